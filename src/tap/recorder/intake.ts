/**
 * Taking records off the capture log, in order: reads the log from where indexing stopped up to
 * its committed end (a live tap's forwarder moves it on; a log whose tap is gone ends at its size)
 * and hands each record to `receive`. Nothing here splits lines or writes SQLite.
 *
 * The log is on disk already (capture-log.ts), so nothing waits in memory and nothing needs to be
 * taken quickly: while a burst arrives (more than BURST_BYTES between two looks) the recorder leaves
 * it in the log and indexes once it is over, so splitting, parsing, checking and storing (10-20 µs of
 * CPU a frame) do not compete on a small machine with the agent and the client, which matter more.
 * Ordinary traffic is indexed once it pauses for a look (LOOK_MS), or at most LIVE_DELAY_MS after it
 * arrived: the live view stays live. A locked
 * database (another process holds its write lock) pauses indexing; the bytes wait in the log.
 *
 * Records are indexed whole (a record holds at most 1 MiB of one stream: about a thousand frames),
 * so the store writer's batches, and the state saved with each, end between two records.
 */
import { closeSync, fstatSync, openSync } from 'node:fs';
import type { StreamCode, ToRecorder } from '../messages.js';
import { RECORD_CONTROL, RECORD_HEADER, pad8, readRecords } from '../capture-log.js';

/** How often the log is looked at while the tap runs. */
const LOOK_MS = 20;
/** ...and once nothing arrived for IDLE_AFTER_MS. */
const IDLE_LOOK_MS = 100;
const IDLE_AFTER_MS = 1000;
/** Log growth between two looks that counts as a burst: indexing waits for it to end. */
const BURST_BYTES = 512 * 1024;
/**
 * A burst has ended once the log was quiet this long (or grew by less than BURST_BYTES a look): a
 * peer reading more slowly than the agent writes still reads what is in the sockets' buffers (a few
 * MiB on loopback) for a while after the last byte came through, and a look that saw no growth then
 * is no pause.
 */
const BURST_QUIET_MS = 250;
/**
 * Ordinary traffic is indexed once it pauses for a look, or once its oldest bytes waited this long:
 * a request and its answer take a tenth of a millisecond, and the recorder's 40-80 µs of CPU per
 * round trip would compete with the agent and the client while they talk.
 */
const LIVE_DELAY_MS = 250;
/** The live checker is loaded once nothing arrived for this long (loading takes the CPU for a moment)... */
const CHECKER_QUIET_MS = 100;
/** ...or this long after the start, whatever arrives. */
const CHECKER_LATEST_MS = 1000;
/** The indexer works in slices of about this long, looking at the log in between. */
const INDEX_SLICE_MS = 20;
/** The log is read in blocks of this size (a record larger than the block is read on its own). */
const BLOCK_BYTES = 2 * 1024 * 1024;

/** What the intake asks of the rest of the recorder. */
export interface IntakeHooks {
  /** One message, in order (a chunk as a tuple, or a control message). */
  receive(m: ToRecorder): void;
  /** A record was taken whole; the log is indexed up to `offset` (a batch may end here). */
  recordDone(offset: number): void;
  /** True once the finish is received: stop taking records. */
  finishing(): boolean;
  /** True once the live checker is loaded: until then records wait in the log. */
  ready(): boolean;
  /** Time to load the live checker (the log is quiet, or the session is over). */
  startChecker(): void;
  /** The store writer cannot write (the database is locked): records wait in the log. */
  writerBlocked(): boolean;
  /** The tap is still handing on what it recorded: traffic, as if the log grew (see Guard.flowing). */
  flowing?(): boolean;
  /** A backlog is being indexed (true, once a slice) or has been caught up with (false). */
  indexing?(active: boolean): void;
  /**
   * The log waits to be indexed from `from` to `end`: another thread may do it (see helper.ts).
   * Null: index it here. Else resolves with where the log is indexed up to once it is back (null:
   * nothing was, go on from `from`).
   */
  delegate?(from: number, end: number): Promise<number | null> | null;
  warnOnce(msg: string): void;
}

export class Intake {
  /** The next record's position in the log. */
  offset: number;
  /** When traffic was last seen arriving (performance.now()). */
  lastTraffic = 0;
  /** True while a burst arrives (no checkpoint of the database's log then). */
  bursting = false;
  private readonly fd: number;
  private readonly block = Buffer.allocUnsafe(BLOCK_BYTES);
  private stopped = false;
  /** Set once the tap wrote its finish record (sessionOver). */
  private over = false;
  private wake: (() => void) | null = null;

  /**
   * `committed`: how far the log holds whole records (null: a finished log, read to its end).
   * `start`: where indexing resumes.
   */
  constructor(path: string, start: number, private readonly committed: (() => number) | null, private readonly hooks: IntakeHooks) {
    this.fd = openSync(path, 'r');
    this.offset = start;
  }

  /** Bytes of the log not indexed yet. */
  get behind(): number {
    return Math.max(0, this.end() - this.offset);
  }

  private end(): number {
    if (this.committed) return this.committed();
    try { return fstatSync(this.fd).size; } catch { return this.offset; }
  }

  /** Stops taking records (the tap is exiting; another process will finish the log). */
  stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  /**
   * Looks at the log now rather than at the next look, and from now on indexes whatever comes at
   * once: the finish was written, the session is over.
   */
  sessionOver(): void {
    this.over = true;
    this.wake?.();
  }

  /** Looks at the log now rather than at the next look (the checker is loaded); bursts still wait. */
  lookNow(): void {
    this.wake?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((r) => {
      const timer = setTimeout(() => { this.wake = null; r(); }, ms);
      this.wake = () => { clearTimeout(timer); this.wake = null; r(); };
    });
  }

  /** Takes records until the finish record is taken, or stop(); resolves then. */
  async run(): Promise<void> {
    const { hooks } = this;
    let lastEnd = this.end();
    const started = performance.now();
    let quietSince = started;
    /** Since when unindexed bytes wait (null: caught up). */
    let waitingSince: number | null = null;
    /** When a look last saw a burst (see BURST_QUIET_MS). */
    let lastBurst = -Infinity;
    try {
      for (;;) {
        if (this.stopped || hooks.finishing()) return;
        const end = this.end();
        const grew = end - lastEnd;
        lastEnd = end;
        const now = performance.now();
        const flowing = hooks.flowing?.() ?? false;
        if (grew > 0 || flowing) {
          this.lastTraffic = now;
          quietSince = now;
        }
        if (this.offset >= end) waitingSince = null;
        else waitingSince ??= now;
        // While traffic arrives, let it arrive undisturbed: a burst until it pauses, ordinary
        // traffic until it pauses or its oldest bytes waited LIVE_DELAY_MS.
        const live = this.committed !== null && !this.over;
        // What the peer has not read yet is a burst too: it arrived faster than the peer reads it.
        if (live && (grew > BURST_BYTES || flowing)) lastBurst = now;
        this.bursting = live && now - lastBurst < BURST_QUIET_MS;
        const holdBack = this.bursting || (live && grew > 0 && now - (waitingSince ?? now) < LIVE_DELAY_MS);
        if (!hooks.ready()) {
          // Once the log is quiet for a moment, or the session is over, or traffic never pauses.
          if (now - quietSince >= CHECKER_QUIET_MS || now - started >= CHECKER_LATEST_MS || this.over || this.committed === null) hooks.startChecker();
        } else if (!holdBack && this.offset < end && !hooks.writerBlocked()) {
          if (end - this.offset > BURST_BYTES) hooks.indexing?.(true);
          const helped = hooks.delegate?.(this.offset, end);
          if (helped) {
            const to = await helped;
            if (to !== null) this.offset = to;
            if (this.stopped || hooks.finishing()) return;
            // What arrived meanwhile was the helper's to look at, not a burst.
            lastEnd = this.end();
            continue;
          }
          const whole = this.indexSlice(end, now + INDEX_SLICE_MS);
          if (this.offset >= end) hooks.indexing?.(false);
          if (this.stopped || hooks.finishing()) return;
          // A finished log ending in a record cut short (its tap died writing it): that is its end.
          if (!whole && this.committed === null) return;
          if (this.offset < end) {
            // More to do: yield to timers (the writer's flushes, the tap's signals) and go on.
            await new Promise((r) => setImmediate(r));
            continue;
          }
        } else if (this.committed === null && this.offset >= end && hooks.ready()) {
          // A finished log read to its end without a finish record: the tap died (see recorder/index.ts).
          return;
        }
        await this.sleep(now - quietSince > IDLE_AFTER_MS ? IDLE_LOOK_MS : LOOK_MS);
      }
    } finally {
      try { closeSync(this.fd); } catch { /* already closed */ }
    }
  }

  /**
   * Indexes whole records from the log until `end`, or until the clock passes `until`; false when it
   * stopped at a record not whole yet.
   */
  private indexSlice(end: number, until: number): boolean {
    const { hooks } = this;
    while (this.offset < end && !this.stopped && !hooks.finishing() && !hooks.writerBlocked() && performance.now() < until) {
      const start = this.offset;
      let pos = start;
      readRecords(this.fd, pos, end, this.block, (type, t, payload) => {
        pos += RECORD_HEADER + pad8(payload.length);
        this.dispatch(type, t, payload);
        this.offset = pos;
        hooks.recordDone(pos);
        return !this.stopped && !hooks.finishing() && !hooks.writerBlocked() && performance.now() < until;
      });
      if (this.offset === start) return false; // the next record is not whole yet: look again later
    }
    return true;
  }

  private dispatch(type: number, t: number, payload: Buffer): void {
    if (type === RECORD_CONTROL) {
      const m = parseControl(payload);
      // The header record, or one never written by us, is not a message.
      if (m && !(typeof m === 'object' && 'capture' in m)) this.hooks.receive(m as ToRecorder);
    } else if (type <= 2) {
      this.hooks.receive([type as StreamCode, t, payload]);
    }
  }
}

function parseControl(payload: Buffer): unknown {
  try {
    return JSON.parse(payload.toString('utf8'));
  } catch {
    return null;
  }
}
