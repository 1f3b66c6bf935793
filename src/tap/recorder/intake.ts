/**
 * Taking records off the ring, in order: from the shared ring (chunks and control messages as the
 * forwarding thread wrote them), from the forwarder's overflow file (what arrived while the ring was
 * full, at the place its marker holds), and from the recorder's own spill file (bursts captured to
 * be indexed once they are over). Records go to `receive` in the order they were written; nothing
 * here splits lines or writes SQLite.
 *
 * Bursts: wait, then capture, then split and index. Splitting, parsing, checking and indexing costs
 * 10–20 µs of CPU per frame. While traffic flows (a flood of updates, a large file, or a quick
 * exchange of requests and answers) that would compete on a small machine with the agent and the
 * client, which matter more: a round trip takes a tenth of a millisecond, and the recorder's share
 * of it is twice what a `cat` spends. So:
 * 1. While bytes keep arriving and less than DEFER_MAX_BYTES wait, the recorder leaves them in the
 *    ring and does nothing: most bursts end before that, and are indexed right after. Ordinary
 *    traffic waits the same way, but never longer than LIVE_DELAY_MS (the live view stays live).
 * 2. A longer burst is *captured*: the unread part of the ring is appended, as it lies there, to a
 *    spill file (one gathering write straight from the shared memory: no copy in JavaScript, no
 *    allocation, nothing dropped), and is split into items once the ring is quiet again, or while
 *    finishing. Order holds: once anything is captured, everything after it is too, until the
 *    indexer has caught up with the spill file.
 *
 * A locked database (another process holds its write lock): the store writer cannot write, so the
 * intake takes nothing more into memory. Records are captured into the spill file as in a burst (the
 * native forwarder's overflow file takes the agent's output as usual), indexing stops where it is (in
 * the middle of a chunk or an overflow region if need be), and it resumes at that place once the
 * writer has written again. A flood under a lock held for minutes then costs disk, not the tap's
 * memory, and nothing is lost. If the database is still locked finishGraceMs after the session
 * ended, the backlog is dropped unread (the writer says so, once) and the recorder finishes.
 */
import { ftruncateSync, readSync } from 'node:fs';
import { Socket } from 'node:net';
import { openScratchFile, writeAllAt } from '../scratch.js';
import type { StreamCode, ToRecorder } from '../messages.js';
import { RING_CONTROL, RING_HEADER, RingReader, decodeHeader, type RingRecord } from '../ring.js';
import type { Guard } from './guard.js';

/** Unread bytes below which traffic counts as ordinary (a burst above: see DEFER_MS). */
const BEHIND_BYTES = 256 * 1024;
/** Ordinary traffic is taken once nothing arrived for this long (the first look; see drain)... */
const SETTLE_MS = 5;
/** ...or once the oldest of it waited this long. */
const LIVE_DELAY_MS = 250;
/**
 * How much of a burst may wait in the ring untouched. Past it the burst is captured, with the rest
 * of the ring as headroom for a recorder that gets little CPU while the burst goes on.
 */
const DEFER_MAX_BYTES = 8 * 1024 * 1024;
/** The live checker is loaded once nothing arrived for this long (loading takes the CPU for a moment). */
const CHECKER_QUIET_MS = 100;
/** A burst is over when nothing arrived for this long; then the capture is indexed. */
const QUIET_MS = 25;
/**
 * After traffic wakes an idle recorder, it lets this long pass before it looks. A request and its
 * answer (a round trip takes well under a millisecond) then go by without the recorder competing
 * for the CPU with the agent and the client, and what arrived meanwhile is taken in one pass,
 * with one wake-up instead of one per chunk.
 */
const WAKE_BATCH_MS = 4;
/** How often the recorder looks at the ring while the forwarder spills a burst into its overflow file. */
const SPILL_LOOK_MS = 10;
/** The indexer works in slices of about this long, looking at the ring in between. */
const INDEX_SLICE_MS = 10;
/** How long to let a growing burst accumulate before looking again. */
const DEFER_MS = 2;
/**
 * The indexer reads the spill and overflow files back in blocks of this size: larger than the
 * largest record (the native forwarder moves up to 1 MiB of the agent's output at a time), so no
 * record needs a buffer of its own (a fresh one per record is external memory that V8 frees only at
 * its next full collection: 30 MB more peak RSS through a 1 GiB flood).
 */
const SPILL_BLOCK_BYTES = 2 * 1024 * 1024;
/**
 * Spill file space made at start-up, before any burst (see warmSpill): a burst's capture then writes
 * into pages the file has, not new ones (each costs the kernel an allocation and a clearing, several
 * times the copy). Shared memory, not the tap's RSS. 48 MiB covers the capture of a 64 MiB burst;
 * at 16 MiB, the first such burst cost the recorder 20-70 ms of CPU instead of 10-15 (a 32 MiB flood).
 */
const SPILL_WARM_BYTES = 48 * 1024 * 1024;
/** Spill file space kept for the next burst once the indexer has caught up (see indexSlice). */
const SPILL_KEEP_BYTES = 64 * 1024 * 1024;
/** A spilled backlog this large is indexed even during a burst (a slice per pass): disk is not infinite. */
const MAX_BACKLOG_BYTES = 1024 * 1024 * 1024;
/** How often a recorder whose writer is blocked (database locked) looks whether it can go on. */
const BLOCKED_LOOK_MS = 50;
/**
 * How long the session's end waits for a locked database before the backlog is given up: the tap's
 * exit wait for a recorder that makes no progress (RecorderConfig.finishWaitMs: 6 s, or
 * ACP_INSPECT_FINISH_WAIT_MS) less 2 s, so the recorder can still finish and say why before the tap
 * exits. Other taps writing to the same file lock it too, for a moment at a time: a writer can lose to
 * them a few tries in a row.
 */
function finishGraceMs(finishWaitMs: number): number {
  return Math.max(1000, finishWaitMs - 2000);
}
/**
 * Bytes of a chunk the indexer splits at a time. A 64 KiB chunk of small frames is hundreds of
 * frames, tens of ms of work: in pieces, the indexer can stop within its budget and see to the ring.
 */
const INDEX_PIECE_BYTES = 16 * 1024;

/** What the intake asks of the rest of the recorder. */
export interface IntakeHooks {
  /** One message, in order (a chunk as a tuple, or a control message). */
  receive(m: ToRecorder): void;
  /** True once the finish is received: stop taking records. */
  finishing(): boolean;
  /** True once the live checker is loaded: until then everything is captured. */
  ready(): boolean;
  /** Time to load the live checker (the ring is quiet, or the session is over). */
  startChecker(): void;
  /** The database cannot be used: records are taken (and dropped) at once, never captured. */
  storeFailed(): boolean;
  /**
   * The store writer cannot write (the database is locked by another process): take nothing more
   * into memory until it can (see "A locked database" above).
   */
  writerBlocked(): boolean;
  /** The database stayed locked after the session ended: what waits is dropped (see finishGraceMs). */
  giveUp(): void;
  /** A captured backlog is being indexed (true, once a slice) or has been caught up with (false). */
  indexing?(active: boolean): void;
  warnOnce(msg: string): void;
}

/** Records kept in memory instead of the spill file, when that file cannot be written. */
interface Captured { stream: number; t: number; data: Buffer }

export class Intake {
  /** True while more than DEFER_MAX_BYTES wait in the ring: records are captured rather than indexed. */
  bursting = false;
  /** True while captured records (in the spill file or in `capture`) wait to be indexed. */
  captured = false;
  /** When traffic was last seen arriving (performance.now()). */
  lastTraffic = 0;
  private capture: Captured[] = [];
  /** The session is over (its finish record is captured): index now, whatever still arrives. */
  private finishCaptured = false;
  /**
   * The spill file: captured ring records, byte for byte as they lay in the ring (16-byte header, the
   * payload, padding to 8 bytes), read back by the indexer. It lives in shared memory or the temp
   * folder, owner-only, and is unlinked as soon as it is opened, so nothing is left behind whatever
   * happens to the tap. Written from the start again each time the indexer catches up.
   */
  private spillFd: number | null = null;
  private spillWrite = 0;
  private spillRead = 0;
  /** Set when the spill file cannot be written: captured records are then kept in memory. */
  private captureBroken = false;
  /** The rest of a chunk the indexer stopped in the middle of (its bytes are already read). */
  private pendingPiece: { stream: StreamCode; t: number; rest: Buffer } | null = null;
  /** The rest of an overflow region the indexer stopped in (the writer blocked); taken before anything after it. */
  private pendingOverflow: { fd: number; from: number; to: number } | null = null;
  /** Set once the database stayed locked past the session's end: records are dropped unread. */
  private discarding = false;
  /** When the writer was found blocked after the session ended (see finishGraceMs). */
  private blockedAtEnd: number | null = null;
  /**
   * The indexer's one read buffer for the spill file, reused block after block: a fresh 256 KiB buffer
   * per block is external memory that V8 frees only at its next full collection, tens of MB resident
   * under a long backlog. Safe to reuse: nothing keeps a view of a block once its records are indexed
   * (the line splitter copies a partial line; `pendingPiece` is used up before the next block).
   */
  private readonly spillBlock = Buffer.allocUnsafe(SPILL_BLOCK_BYTES);
  /** The overflow file's read buffer (its own: an overflow marker is met while a spill block is in use). */
  private overflowBlock: Buffer | null = null;

  /** See finishGraceMs. */
  private readonly finishGraceMs: number;

  constructor(private readonly reader: RingReader, private readonly guard: Guard, private readonly hooks: IntakeHooks, finishWaitMs: number) {
    this.finishGraceMs = finishGraceMs(finishWaitMs);
  }

  /** True while nothing more may be indexed: the writer is blocked (see "A locked database" above). */
  private paused(): boolean {
    return !this.discarding && this.hooks.writerBlocked();
  }

  /**
   * Called on each pass while paused: once the session has ended (its finish handed on) and the
   * database stayed locked for finishGraceMs, the backlog is given up so the recorder can finish.
   */
  private giveUpAfterEnd(paused: boolean): void {
    if (!paused || !this.guard.finishSent()) {
      this.blockedAtEnd = null;
      return;
    }
    this.blockedAtEnd ??= performance.now();
    if (performance.now() - this.blockedAtEnd < this.finishGraceMs) return;
    this.discarding = true;
    this.hooks.giveUp();
  }

  /** Bytes waiting in the ring: traffic the drain loop has not looked at yet. */
  get ringUsed(): number {
    return this.reader.used;
  }

  /** Starts taking records (the drain loop) and warming the spill file; resolves when the session is over. */
  start(): Promise<void> {
    void this.warmSpill();
    return this.drain();
  }

  /**
   * Drains the shared ring (chunks and control messages, in the order they were written) a slice at a
   * time, yielding to timers between slices. Space is released as records are taken, so the ring
   * bounds what waits. See "Bursts" above for when records wait, are captured, or are indexed at once.
   */
  private async drain(): Promise<void> {
    const { reader, hooks } = this;
    const deferLimit = Math.min(reader.capacity / 4, DEFER_MAX_BYTES);
    let prevUsed = 0;
    let prevSpilled = reader.spilled;
    let lastActivity = performance.now();
    /** When the ring was last seen going from empty to holding something. */
    let waitingSince: number | null = null;
    for (;;) {
      const used = reader.used;
      const growing = used !== prevUsed;
      prevUsed = used;
      // The native forwarder spills a burst of the agent's output straight into its overflow file
      // (forward.c, spill_chunk): only the regions' markers come through the ring. A burst all the same:
      // capture what the ring holds (little), and index once the burst is over.
      const spilled = reader.spilled;
      const spilling = spilled !== prevSpilled;
      prevSpilled = spilled;
      // 1. Traffic is arriving and there is room: let it arrive undisturbed (a burst until it ends,
      //    ordinary traffic at most LIVE_DELAY_MS). Once capturing, keep capturing: the burst outran
      //    the ring once already.
      if (used === 0) waitingSince = null;
      else waitingSince ??= performance.now();
      const waited = waitingSince === null ? 0 : performance.now() - waitingSince;
      if (growing && !spilling && !this.captured && used < deferLimit && (used > BEHIND_BYTES || waited < LIVE_DELAY_MS)) {
        this.lastTraffic = performance.now(); // traffic is arriving: no checkpoint now
        // Ordinary traffic: look again after SETTLE_MS, then after twice as long each time it still
        // flows (a handful of wake-ups in a long exchange, not one every few ms), up to LIVE_DELAY_MS.
        const settle = Math.min(Math.max(SETTLE_MS, waited), LIVE_DELAY_MS - waited);
        await new Promise((r) => setTimeout(r, used > BEHIND_BYTES ? DEFER_MS : Math.max(1, settle)));
        continue;
      }
      this.bursting = used >= deferLimit || spilling;
      const ready = hooks.ready();
      // A locked database: capture (never index) until the writer can write again.
      const paused = this.paused();
      this.giveUpAfterEnd(paused);
      let n = 0;
      if (!hooks.storeFailed() && !this.captureBroken && (this.captured || this.bursting || !ready || paused)) {
        // 2. Capture: everything unread, in one write.
        if (this.captureRing() > 0) n = 1;
      } else {
        let rec: RingRecord | null = null;
        // Without a spill file, a paused recorder leaves records in the ring (and past it, in the
        // forwarder's overflow file) rather than in memory.
        while (!hooks.finishing() && n < 256 && !this.paused() && (rec = reader.read()) !== null) {
          n++;
          this.take(rec.type, rec.t, rec.payload);
          // Indexing at once is for ordinary traffic: when a burst starts piling up behind us, go back
          // to the top and let it arrive (or capture it) instead of indexing it record by record.
          if (!this.captured && reader.used > BEHIND_BYTES) break;
        }
      }
      if (hooks.finishing()) return;
      prevUsed = reader.used;
      if (prevUsed === 0) waitingSince = null; // what arrives next starts a new wait
      if (n > 0 || spilling) lastActivity = this.lastTraffic = performance.now();
      const quietNow = performance.now() - lastActivity >= QUIET_MS;
      if (!hooks.ready()) {
        if (this.finishCaptured || (prevUsed === 0 && performance.now() - lastActivity >= CHECKER_QUIET_MS)) hooks.startChecker();
      } else if (this.captured && !this.paused()) {
        // Index once the burst is over: nothing arrived for QUIET_MS (or the backlog is very large).
        if (quietNow || this.finishCaptured || this.spillWrite - this.spillRead > MAX_BACKLOG_BYTES) this.indexSlice(INDEX_SLICE_MS);
        if (hooks.finishing()) return;
      }
      // With a capture pending, never sleep on the ring: the burst may be over (and the finish record
      // already captured), and only this loop indexes what waits.
      // While the forwarder spills a burst, the ring gets only its markers (and the client's few
      // requests): a look every SPILL_LOOK_MS, not a wake-up per marker, is enough.
      const readyNow = hooks.ready();
      const pausedNow = this.paused();
      if (spilling) await new Promise((r) => setTimeout(r, SPILL_LOOK_MS));
      else if (pausedNow && (this.captureBroken || hooks.storeFailed())) await new Promise((r) => setTimeout(r, BLOCKED_LOOK_MS));
      else if (n >= 256 || (readyNow && this.captured && quietNow && !pausedNow)) await new Promise((r) => setImmediate(r));
      else if (this.captured || !readyNow || pausedNow) {
        // Bytes are arriving: take them in slices of a millisecond. Otherwise sleep on the ring until
        // something arrives or it is time to index (captured: QUIET_MS; paused: a look whether the
        // writer can write again) or to load the checker: a 1 ms poll here would cost a thousand
        // wake-ups a second, against the agent and the client.
        if (reader.used > 0) await new Promise((r) => setTimeout(r, 1));
        else await reader.wait(1, pausedNow ? BLOCKED_LOOK_MS : lastActivity + (this.captured ? QUIET_MS : CHECKER_QUIET_MS) - performance.now());
      } else await reader.wait(WAKE_BATCH_MS);
    }
  }

  /**
   * Captures everything unread in the ring: appends it to the spill file in one gathering write
   * straight from the shared memory, then frees it. Returns the bytes captured; 0 (and the spill file
   * marked broken, nothing lost) when the file cannot be written.
   */
  private captureRing(): number {
    const { reader } = this;
    const { start, bytes, slices } = reader.region();
    if (bytes === 0) return 0;
    try {
      this.spillFd ??= openScratchFile('spill');
      writeAllAt(this.spillFd, slices, this.spillWrite);
    } catch {
      // Disk full or no temp folder: from now on captured records are kept in memory.
      this.captureBroken = true;
      return 0;
    }
    // Control records are few (events, end of streams, the finish); only they are looked into, and
    // only once the forwarding thread says it handed on the finish (guard slot 3, raised before the
    // finish record is written): walking every chunk's header in the middle of a flood costs about a
    // third of the capture. Read after the region was taken, so a finish inside it is never missed.
    if (!this.finishCaptured && this.guard.finishSent()) {
      for (let p = 0; p < bytes;) {
        const h = reader.headerAt((start + p) | 0);
        if (h.type === RING_CONTROL && isFinish(reader.payloadAt((start + p) | 0, h.len))) this.finishCaptured = true;
        p += h.size;
      }
    }
    this.spillWrite += bytes;
    reader.release(bytes);
    this.captured = true;
    this.guard.progressed();
    return bytes;
  }

  /** Routes one ring record: straight to the indexer, or (spill file broken) into the memory capture. */
  private take(type: number, t: number, payload: Buffer): void {
    const { hooks } = this;
    if (!this.captured && (hooks.storeFailed() || (hooks.ready() && !this.bursting))) {
      this.dispatch(type, t, payload);
      // The writer blocked in the middle of it: what follows waits behind the rest (see indexSlice).
      if (this.pendingPiece || this.pendingOverflow) this.captured = true;
      return;
    }
    this.captured = true;
    if (type === RING_CONTROL && isFinish(payload)) this.finishCaptured = true;
    this.capture.push({ stream: type, t, data: payload });
  }

  private dispatch(type: number, t: number, payload: Buffer): void {
    if (type === RING_CONTROL) {
      const m = parseControl(payload);
      if (m && !Array.isArray(m) && 'overflow' in m) this.indexOverflow(m.overflow);
      else if (m) this.hooks.receive(m);
    } else if (this.discarding) {
      // Given up (see finishGraceMs): chunks go unread; control records still end the session.
    } else {
      // In pieces: a chunk of up to 1 MiB is a thousand frames, and split at once they would all be
      // alive together, past V8's young generation (peak RSS through a 1 GiB flood: 132 MiB, not 114).
      if (payload.length === 0) this.hooks.receive([type as StreamCode, t, payload]);
      else this.indexPieces(type as StreamCode, t, payload, Infinity);
    }
  }

  /**
   * Takes the records the forwarding thread wrote to its overflow file while the ring was full (see
   * recorder-client.ts), in order, at the place their marker holds in the stream.
   */
  private indexOverflow(o: { fd: number; from: number; to: number }): void {
    const block = (this.overflowBlock ??= Buffer.allocUnsafe(SPILL_BLOCK_BYTES));
    let pos = this.discarding ? o.to : o.from;
    // Stops early when the writer blocks: the rest waits in the file (pendingOverflow), not in memory.
    const goOn = () => !this.hooks.finishing() && !this.pendingPiece && !this.paused();
    try {
      while (pos < o.to && goOn()) {
        pos = readRecords(o.fd, pos, o.to, block, (type, t, payload) => {
          this.dispatch(type, t, payload);
          return goOn();
        });
        this.guard.progressed(); // a large region takes seconds: the tap's exit waits while we advance
      }
    } catch (e) {
      this.hooks.warnOnce(`recording incomplete: the overflow file could not be read (${(e as Error).message})`);
      pos = o.to;
    }
    if (this.hooks.finishing()) pos = o.to;
    this.pendingOverflow = pos < o.to ? { fd: o.fd, from: pos, to: o.to } : null;
    this.reader.tookOverflow(pos - o.from);
    this.guard.progressed();
  }

  /** Indexes a chunk piece by piece until `until`; keeps what is left in `pendingPiece`. */
  private indexPieces(stream: StreamCode, t: number, data: Buffer, until: number): void {
    const { hooks } = this;
    let off = 0;
    while (off < data.length && !hooks.finishing()) {
      const end = Math.min(data.length, off + INDEX_PIECE_BYTES);
      hooks.receive([stream, t, data.subarray(off, end)]);
      off = end;
      if (off < data.length && (performance.now() >= until || this.paused())) {
        this.pendingPiece = { stream, t, rest: data.subarray(off) };
        return;
      }
    }
    this.pendingPiece = null;
  }

  /** Indexes the spill file's records from one block read, for about as long as `until` allows. */
  private indexSpillBlock(until: number): void {
    try {
      this.spillRead = readRecords(this.spillFd!, this.spillRead, this.spillWrite, this.spillBlock, (type, t, payload) => {
        if (type === RING_CONTROL || this.discarding) this.dispatch(type, t, payload);
        else this.indexPieces(type as StreamCode, t, payload, until);
        // A record may hold hundreds of frames: look at the clock after each one.
        return !this.hooks.finishing() && !this.pendingPiece && !this.pendingOverflow && !this.paused() && performance.now() < until;
      });
    } catch (e) {
      this.hooks.warnOnce(`recording incomplete: the recorder's spill file failed (${(e as Error).message})`);
      this.spillRead = this.spillWrite;
    }
    this.guard.progressed();
  }

  /** Indexes captured records for about `budgetMs`; returns true when it caught up. */
  private indexSlice(budgetMs: number): boolean {
    const until = performance.now() + budgetMs;
    this.hooks.indexing?.(true);
    while (performance.now() < until && !this.hooks.finishing() && !this.paused()) {
      if (this.pendingPiece) {
        const { stream, t, rest } = this.pendingPiece;
        if (this.discarding) this.pendingPiece = null;
        else this.indexPieces(stream, t, rest, until);
        this.guard.progressed();
        continue;
      }
      if (this.pendingOverflow) {
        this.indexOverflow(this.pendingOverflow);
        continue;
      }
      if (this.spillRead < this.spillWrite) {
        this.indexSpillBlock(until);
        continue;
      }
      if (this.spillWrite > 0) {
        // Caught up: the next burst is written over this one. Pages the file already has are reused
        // (writing into them is a plain copy; new ones cost the kernel an allocation each, several
        // times the copy); what lies beyond SPILL_KEEP_BYTES is given back.
        if (this.spillWrite > SPILL_KEEP_BYTES) {
          try { ftruncateSync(this.spillFd!, SPILL_KEEP_BYTES); } catch { /* space comes back when the tap exits */ }
        }
        this.spillRead = this.spillWrite = 0;
      }
      if (this.capture.length > 0) {
        const c = this.capture.shift()!;
        this.dispatch(c.stream, c.t, c.data);
        this.guard.progressed();
        continue;
      }
      this.captured = false;
      this.hooks.indexing?.(false);
      return true;
    }
    return !this.captured;
  }

  /**
   * Makes the first SPILL_WARM_BYTES of the spill file while the agent starts, a slice at a time so
   * a burst is still captured meanwhile: a burst's capture then writes into pages the file already
   * has (the capture of a burst starts where the ring's room ends). The ring itself is not touched
   * ahead: its pages would be 16 MiB of an idle tap's RSS, and a first pass over them costs the
   * forwarding thread about a page fault per 4 KiB, once.
   */
  private async warmSpill(): Promise<void> {
    const slice = 1024 * 1024;
    try {
      const zeros = Buffer.alloc(slice);
      for (let off = 0; off < SPILL_WARM_BYTES && !this.captured && this.spillWrite === 0; off += slice) {
        this.spillFd ??= openScratchFile('spill');
        writeAllAt(this.spillFd, [zeros], off);
        await new Promise((r) => setImmediate(r));
      }
    } catch { /* made on first use instead */ }
  }
}

function parseControl(payload: Buffer): ToRecorder | null {
  try {
    return JSON.parse(payload.toString('utf8')) as ToRecorder;
  } catch {
    return null; // never written by us
  }
}

function isFinish(payload: Buffer): boolean {
  const m = parseControl(payload);
  return m !== null && !Array.isArray(m) && 'finish' in m;
}

function readAt(fd: number, pos: number, len: number, into?: Buffer): Buffer {
  const buf = into ? into.subarray(0, len) : Buffer.allocUnsafe(len);
  let off = 0;
  while (off < len) {
    const n = readSync(fd, buf, off, len - off, pos + off);
    if (n === 0) throw new Error('scratch file ended early');
    off += n;
  }
  return buf;
}

/**
 * Reads the records (ring format) of scratch file `fd` from `pos` on, not past `end`, with one read
 * into `block` (a record larger than the block is read on its own), and hands each to `take` until
 * it returns false. Returns the position after the last record taken. The payloads are views of
 * `block`: valid until its next read.
 */
function readRecords(fd: number, pos: number, end: number, block: Buffer, take: (type: number, t: number, payload: Buffer) => boolean): number {
  const data = readAt(fd, pos, Math.min(block.length, end - pos), block);
  let off = 0;
  while (off + RING_HEADER <= data.length) {
    const h = decodeHeader(data, off);
    let payload: Buffer;
    if (off + RING_HEADER + h.len <= data.length) payload = data.subarray(off + RING_HEADER, off + RING_HEADER + h.len);
    else if (off === 0) payload = readAt(fd, pos + RING_HEADER, h.len);
    else break;
    off += h.size;
    if (!take(h.type, h.t, payload)) break;
  }
  if (off === 0) throw new Error('scratch file holds a cut record');
  return pos + off;
}

/** A wait on the native forwarder's wake pipe: resolves on the next byte it writes. */
export function pipeWaker(fd: number): () => Promise<void> {
  let wake: (() => void) | null = null;
  const sock = new Socket({ fd, readable: true, writable: false });
  sock.on('data', () => {
    const w = wake;
    wake = null;
    w?.();
  });
  sock.on('error', () => { /* the forwarder is gone: the session is ending */ });
  return () => new Promise<void>((r) => { wake = r; });
}
