/**
 * The recorder: runs on a worker thread so SQLite (synchronous, and possibly locked by another
 * process for seconds) never blocks the thread that forwards bytes. It splits each stream into lines,
 * builds frames, correlates responses, runs the live checker, and writes batches in transactions.
 *
 * Failure policy: the session matters more than the recording. A database that cannot be opened or
 * written produces one warning; the recording is marked incomplete and the data that could not be
 * written is counted as a gap. Nothing here may throw into the forwarder.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ftruncateSync, readSync, readlinkSync } from 'node:fs';
import { openScratchFile, writeAllAt } from './scratch.js';
import { setPriority } from 'node:os';
import { Socket } from 'node:net';
import type { FromRecorder, RecorderConfig, ToRecorder, StreamCode } from './messages.js';
import { A2C, C2A, STDERR } from './messages.js';
import { RING_CONTROL, RING_HEADER, RingReader, decodeHeader, type RingRecord } from './ring.js';
import { decodeUtf8 } from '../wire/line-splitter.js';
import { CappedLineSplitter, DEFAULT_LINE_CAP, type CappedLine } from './capped-splitter.js';
import { frameFromBytes } from '../wire/make-frame.js';
import { Correlator } from '../wire/correlate.js';
import type { Frame, Item } from '../wire/frame.js';
import { Store, peerInfoFromFrame, toStoreError, type StoredFinding } from '../store/store.js';
import { redactFrame } from '../redact.js';
import type { LiveTrace } from '../otel/live.js';

const config = workerData as RecorderConfig;
const port = parentPort!;
const send = (m: FromRecorder) => port.postMessage(m);

/** Flush at least this often, and sooner when a batch grows past these bounds. */
const FLUSH_MS = 50;
const FLUSH_ITEMS = 500;
const FLUSH_BYTES = 4 * 1024 * 1024;
/** Items kept in memory while the database is busy; beyond this they are dropped (a gap). */
const MAX_PENDING_BYTES = 96 * 1024 * 1024;

interface LiveChecker {
  step(item: Item): StoredFinding[];
  end(): StoredFinding[];
}

let store: Store | null = null;
let recordingId: number | null = null;
let warned = false;
let incompleteReason: string | null = null;
let seq = 0;
let pendingItems: Item[] = [];
let pendingFindings: StoredFinding[] = [];
let pendingBytes = 0;
let droppedItems = 0;
let flushTimer: NodeJS.Timeout | null = null;
let checker: LiveChecker | null = null;
/** Live OpenTelemetry export (--otlp): spans built here, off the forwarding path. */
let trace: LiveTrace | null = null;
let closeUi: (() => Promise<void>) | null = null;

/** Lines longer than the cap are kept cut (and marked truncated), so recorder memory stays bounded. */
const LINE_CAP = DEFAULT_LINE_CAP;
const splitters = [new CappedLineSplitter(LINE_CAP), new CappedLineSplitter(LINE_CAP), new CappedLineSplitter(LINE_CAP)];
const correlator = new Correlator();
const peer: Record<string, unknown> = {};

/**
 * Every SQLite call runs inside `sql()`, which marks it in a flag shared with the forwarding thread.
 * Before the tap exits, that thread raises "stop" and waits for the flag to clear: a thread terminated
 * while inside better-sqlite3 (a call waiting on a locked database) aborts the whole process, taking
 * the agent's exit code with it. Order matters: mark first, then check stop (the other side sets stop,
 * then reads the mark), so one of the two always sees the other.
 */
const guard = config.guard ? new Int32Array(config.guard) : null;
class Stopping extends Error {}
function sql<T>(fn: () => T): T {
  if (!guard) return fn();
  Atomics.store(guard, 0, 1);
  try {
    if (Atomics.load(guard, 1) === 1) throw new Stopping('the tap is exiting');
    return fn();
  } finally {
    Atomics.store(guard, 0, 0);
    Atomics.notify(guard, 0);
  }
}

function warnOnce(msg: string): void {
  if (!incompleteReason) incompleteReason = msg;
  if (warned) return;
  warned = true;
  send({ warn: msg });
}

/** A delay (database locked) loses nothing, so it is said once but does not mark the recording incomplete. */
let delayNoted = false;
function noteDelay(): void {
  if (delayNoted || warned) return;
  delayNoted = true;
  send({ info: `acp-inspect: recording delayed: database ${config.dbPath} is locked by another process; forwarding continues` });
}

/** Set when the database cannot be used at all: nothing is captured or stored. */
let storeFailed = false;
/** True while the database was locked at start and opening it is being retried. */
let opening = false;

function openStore(): void {
  try {
    store ??= sql(() => Store.open(config.dbPath, { busyTimeout: 2000 }));
    // Checkpoints (copying the write-ahead log into the database, with an fsync) are ours to time:
    // SQLite would run one inside whichever commit crosses 4 MB of log, and an fsync can take
    // hundreds of ms, long enough for a burst to overflow the ring. See checkpointSoon().
    try { sql(() => store!.db.pragma('wal_autocheckpoint = 0')); } catch { /* SQLite's own schedule then */ }
    try { sql(() => store!.markInterrupted()); } catch { /* another writer holds the lock; not ours to fix now */ }
    recordingId = sql(() => store!.createRecording({
      name: config.name,
      startedAt: config.startedAt,
      status: 'running',
      command: config.command,
      cwd: config.cwd,
      hostPid: config.hostPid,
    }));
    opening = false;
    send({ recordingId });
    if (Object.keys(peer).length) updatePeer();
  } catch (e) {
    if (isBusy(e)) {
      // Locked by another process: keep the items in memory (bounded) and try again shortly.
      opening = true;
      noteDelay();
      return;
    }
    opening = false;
    storeFailed = true;
    const err = toStoreError(e, config.dbPath);
    warnOnce(`not recording: ${err.message}. The session is forwarded untouched.`);
    store?.close();
    store = null;
  }
}

async function loadChecker(): Promise<void> {
  if (!config.check) return;
  try {
    const mod = (await import('../check/index.js')) as { createChecker?: () => LiveChecker };
    if (typeof mod.createChecker === 'function') checker = mod.createChecker();
  } catch {
    checker = null; // checking is an extra; recording goes on without it
  }
}

/** Loaded only for --otlp; a variable keeps the OpenTelemetry packages out of the tap otherwise. */
const OTEL_MODULE = '../otel/live.js';

/** Starts the live trace (after the checker, whose model it shares); the session goes on without it if that fails. */
async function loadTrace(): Promise<void> {
  if (!config.otlp) return;
  try {
    const mod = (await import(OTEL_MODULE)) as typeof import('../otel/live.js');
    trace = mod.startLiveTrace({
      target: config.otlp.target,
      content: config.otlp.content,
      startedAt: config.startedAt,
      name: config.name,
      command: config.command,
      state: (checker as { state?: import('../check/model.js').ModelState } | null)?.state,
      warn: (msg) => send({ info: msg }),
    });
  } catch (e) {
    send({ info: `acp-inspect: OpenTelemetry export not started: ${(e as Error).message}` });
  }
}

function stepTrace(item: Item, from: number): void {
  try {
    trace!.step(item, pendingFindings.length > from ? pendingFindings.slice(from) : undefined);
  } catch {
    trace = null; // the trace is an extra; recording goes on without it
  }
}

function stepChecker(item: Item): void {
  if (!checker) return;
  try {
    for (const f of checker.step(item)) pendingFindings.push(f);
  } catch {
    checker = null;
  }
}

/** The time of the newest item so far: items are stored in order, and their times must not go back. */
let lastItemT = 0;

function push(item: Item, bytes: number): void {
  // Items are stored in the order the tap handed them over (one lock for both forwarding threads and
  // the main thread), but each took its time just before that lock: a thread preempted in between
  // (a busy machine) would make the timeline go back by a fraction of a millisecond. It never does:
  // an item is stamped no earlier than the one before it.
  if (item.t > lastItemT) lastItemT = item.t;
  else item.t = lastItemT;
  pendingItems.push(item);
  pendingBytes += bytes;
  const findingsBefore = pendingFindings.length;
  stepChecker(item);
  if (trace) stepTrace(item, findingsBefore);
  // What waits for the batch write needs the raw line and the derived columns, not the parsed JSON
  // (often twice the line's size in objects): let it go now, while it is still young.
  if ((item as Frame).json !== undefined) (item as Frame).json = undefined;
  if (pendingItems.length >= FLUSH_ITEMS || pendingBytes >= FLUSH_BYTES) flush();
  else if (!flushTimer) flushTimer = setTimeout(flush, FLUSH_MS);
}

function onLine(code: StreamCode, t: number, capped: CappedLine): void {
  const line = capped.bytes;
  seq++;
  if (code === STDERR) {
    let text = decodeUtf8(line).text;
    if (text.endsWith('\r')) text = text.slice(0, -1);
    push({ seq, t, dir: 'stderr', raw: text }, line.length);
    return;
  }
  let frame: Frame = frameFromBytes(seq, t, code === C2A ? 'c2a' : 'a2c', line);
  if (capped.size > line.length) {
    // Past the recorder's line cap: only the first bytes were kept, so the frame cannot be parsed.
    frame.size = capped.size;
    frame.truncated = true;
    frame.kind = 'invalid';
    frame.parseError = `frame of ${capped.size} bytes is larger than the recorder's cap (${LINE_CAP} bytes); stored cut`;
    delete frame.json;
  }
  if (config.maxFrameBytes !== null && line.length > config.maxFrameBytes) {
    const cut = line.subarray(0, config.maxFrameBytes);
    const { text, valid } = decodeUtf8(cut);
    frame.raw = text;
    frame.truncated = true;
    if (!valid) frame.rawBase64 = cut.toString('base64');
    else delete frame.rawBase64;
  }
  if (config.redact) frame = redactFrame(frame);
  correlator.observe(frame);
  if (frame.kind === 'request' || frame.kind === 'result') {
    const info = peerInfoFromFrame(frame);
    if (Object.keys(info).length) {
      Object.assign(peer, info);
      updatePeer();
    }
  }
  push(frame, Math.min(line.length, config.maxFrameBytes ?? Infinity) + 200);
}

function updatePeer(): void {
  if (!store || recordingId === null) return;
  try {
    sql(() => store!.updateRecording(recordingId!, {
      client_name: (peer.clientName as string) ?? null,
      client_version: (peer.clientVersion as string) ?? null,
      agent_name: (peer.agentName as string) ?? null,
      agent_version: (peer.agentVersion as string) ?? null,
      protocol_version: (peer.protocolVersion as number) ?? null,
    }));
  } catch { /* retried with the next peer update or at finish */ }
}

function isBusy(e: unknown): boolean {
  const code = (e as { code?: string }).code ?? '';
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED') || code === 'E_DB_LOCKED';
}

function flush(): void {
  if (flushTimer) {
    clearTimeout(flushTimer);
    flushTimer = null;
  }
  if (pendingItems.length === 0 && pendingFindings.length === 0) return;
  if (opening) openStore();
  if (opening) {
    if (pendingBytes >= MAX_PENDING_BYTES) {
      droppedItems += pendingItems.length;
      incompleteReason ??= `the database was locked for too long; ${droppedItems} items were not recorded`;
      pendingItems = [];
      pendingFindings = [];
      pendingBytes = 0;
    }
    if (!flushTimer) flushTimer = setTimeout(flush, 250);
    return;
  }
  if (!store || recordingId === null) {
    pendingItems = [];
    pendingFindings = [];
    pendingBytes = 0;
    return;
  }
  try {
    sql(() => store!.db.transaction(() => {
      store!.appendItems(recordingId!, pendingItems);
      store!.appendFindings(recordingId!, pendingFindings);
    })());
    unCheckpointed += pendingBytes;
    pendingItems = [];
    pendingFindings = [];
    pendingBytes = 0;
    checkpointSoon();
  } catch (e) {
    if (isBusy(e) && pendingBytes < MAX_PENDING_BYTES) {
      noteDelay();
      if (!flushTimer) flushTimer = setTimeout(flush, 250);
    } else {
      droppedItems += pendingItems.length;
      pendingItems = [];
      pendingFindings = [];
      pendingBytes = 0;
      const err = toStoreError(e, config.dbPath);
      warnOnce(`recording incomplete: cannot write to ${config.dbPath} (${(e as Error).message}); forwarding continues`);
      void err;
    }
  }
}

/** Bytes committed since the last checkpoint (roughly what the write-ahead log grew by). */
let unCheckpointed = 0;
let checkpointTimer: NodeJS.Timeout | null = null;
let lastTraffic = 0;
/** Log growth past which a checkpoint runs even while traffic goes on (the log must not grow without end). */
const CHECKPOINT_FORCE_BYTES = 256 * 1024 * 1024;
/** A checkpoint waits until the ring has been quiet for this long. */
const CHECKPOINT_QUIET_MS = 250;

/** Bytes waiting in the ring (0 without one): traffic the drain loop has not looked at yet. */
let ringUsed = (): number => 0;

/** Checkpoints once the session is quiet (or the log very large), never in the middle of a burst. */
function checkpointSoon(): void {
  if (unCheckpointed === 0 || checkpointTimer) return;
  if (unCheckpointed >= CHECKPOINT_FORCE_BYTES && !bursting && !captured) {
    checkpoint();
    return;
  }
  checkpointTimer = setTimeout(() => {
    checkpointTimer = null;
    if (captured || bursting || ringUsed() > 0 || performance.now() - lastTraffic < CHECKPOINT_QUIET_MS) checkpointSoon();
    else checkpoint();
  }, CHECKPOINT_QUIET_MS);
  checkpointTimer.unref();
}

function checkpoint(): void {
  if (!store) return;
  try {
    sql(() => store!.db.pragma('wal_checkpoint(PASSIVE)'));
    unCheckpointed = 0;
  } catch { /* busy or stopping: the next one, or the last connection's close, does it */ }
}

async function finish(code: number | null, signal: string | null, exitT: number): Promise<void> {
  // The agent's exit is seen before its last output is (the tap waits for its pipes to drain), so
  // the exit item, stored last, takes the later of the two times: a timeline never goes back.
  // The recording's duration keeps the exit's own time.
  const t = Math.max(exitT, lastItemT);
  // Bounded (each try may wait out the 2 s busy timeout), so a final warning still reaches the user
  // before the forwarding thread stops waiting for us (6 s without progress).
  const deadline = Date.now() + 2500;
  for (const c of [C2A, A2C, STDERR] as StreamCode[]) {
    const rest = splitters[c]!.end();
    if (rest) onLine(c, t, rest);
  }
  seq++;
  push({ seq, t, dir: 'event', type: 'exit', data: { code, signal } }, 64);
  if (checker) {
    const from = pendingFindings.length;
    try { for (const f of checker.end()) pendingFindings.push(f); } catch { /* ignore */ }
    try { trace?.addFindings(pendingFindings.slice(from)); } catch { /* ignore */ }
  }
  // The last spans go out while the database is finished (bounded: see startLiveTrace).
  const traceDone = trace ? trace.finish(t, recordingId).catch(() => undefined) : null;
  flush();
  // A still-busy database gets a few more tries (each may wait out the busy timeout) before we give
  // up on the tail.
  while (pendingItems.length > 0 && Date.now() < deadline) {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = null;
    await new Promise((r) => setTimeout(r, 250));
    flush();
  }
  if (flushTimer) clearTimeout(flushTimer);
  flushTimer = null;
  if (checkpointTimer) clearTimeout(checkpointTimer);
  checkpointTimer = null;
  if (pendingItems.length > 0) {
    droppedItems += pendingItems.length;
    warnOnce(recordingId === null
      ? `not recorded: database ${config.dbPath} stayed locked by another process; the session was forwarded untouched`
      : `recording incomplete: ${pendingItems.length} items could not be written to ${config.dbPath}`);
  }
  if (store && recordingId !== null) {
    try {
      updatePeer();
      const incomplete = incompleteReason !== null || droppedItems > 0;
      sql(() => store!.updateRecording(recordingId!, {
        status: incomplete ? 'incomplete' : 'complete',
        incomplete: incomplete ? 1 : 0,
        incomplete_reason: incompleteReason ?? (droppedItems > 0 ? `${droppedItems} items were not recorded` : null),
        ended_at: new Date().toISOString(),
        exit_code: code,
        exit_signal: signal,
        duration_ms: exitT,
      }));
    } catch (e) {
      warnOnce(`recording not finished: ${(e as Error).message}`);
    }
    try { sql(() => store!.close()); } catch { /* the tap is exiting; SQLite's journal keeps the file consistent */ }
  }
  if (traceDone) await traceDone;
  if (closeUi) await closeUi().catch(() => undefined);
  send({ done: true });
}


function handle(m: ToRecorder): void {
  if (Array.isArray(m)) {
    const [code, t, bytes] = m;
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (const line of splitters[code]!.push(buf)) onLine(code, t, line);
    return;
  }
  if ('ev' in m) {
    seq++;
    push({ seq, t: m.t, dir: 'event', type: m.ev, data: m.data }, 256);
  } else if ('gap' in m) {
    const lost = splitters[m.gap]!.discard();
    incompleteReason ??= 'the recorder fell behind and skipped data (a gap is marked)';
    seq++;
    push({ seq, t: m.t, dir: 'event', type: 'gap', data: { stream: ['c2a', 'a2c', 'stderr'][m.gap], bytes: m.bytes + lost } }, 64);
  } else if ('eof' in m) {
    const rest = splitters[m.eof]!.end();
    if (rest) onLine(m.eof, m.t, rest);
  }
}

let ready = false;
let finishing = false;
const early: ToRecorder[] = [];

function receive(m: ToRecorder): void {
  if (finishing) return;
  if (!Array.isArray(m) && 'finish' in m) {
    finishing = true;
    const { code, signal, t } = m.finish;
    void finish(code, signal, t);
    return;
  }
  try {
    handle(m);
  } catch (e) {
    warnOnce(`recorder error: ${(e as Error).message}; forwarding continues`);
  }
}

port.on('message', (m: ToRecorder) => {
  if (!ready) early.push(m);
  else receive(m);
});

// ---- bursts: wait, then capture, then split and index -------------------------------------------

/**
 * Splitting, parsing, checking and indexing costs 10–20 µs of CPU per frame. While traffic flows (a
 * flood of updates, a large file, or a quick exchange of requests and answers) that would compete
 * on a small machine with the agent and the client, which matter more: a round trip takes a tenth
 * of a millisecond, and the recorder's share of it is twice what a `cat` spends. So:
 * 1. While bytes keep arriving and less than DEFER_MAX_BYTES wait, the recorder leaves them in the
 *    ring and does nothing: most bursts end before that, and are indexed right after. Ordinary
 *    traffic waits the same way, but never longer than LIVE_DELAY_MS (the live view stays live).
 * 2. A longer burst is *captured*: the unread part of the ring is appended, as it lies there, to a
 *    spill file (one gathering write straight from the shared memory: no copy in JavaScript, no
 *    allocation, nothing dropped), and is split into items once the ring is quiet again, or while
 *    finishing. Order holds: once anything is captured, everything after it is too, until the
 *    indexer has caught up with the spill file.
 */
/** Unread bytes below which traffic counts as ordinary (a burst above: see DEFER_MS). */
const BEHIND_BYTES = 256 * 1024;
/** Ordinary traffic is taken once nothing arrived for this long (the first look; see drainRing)... */
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
 * Spill file space made at start-up, before any burst (see touchRing): a burst's capture then writes
 * into pages the file has, not new ones (each costs the kernel an allocation and a clearing, several
 * times the copy). Shared memory, not the tap's RSS. 48 MiB covers the capture of a 64 MiB burst;
 * at 16 MiB, the first such burst cost the recorder 20-70 ms of CPU instead of 10-15 (a 32 MiB flood).
 */
const SPILL_WARM_BYTES = 48 * 1024 * 1024;
/** Spill file space kept for the next burst once the indexer has caught up (see indexSlice). */
const SPILL_KEEP_BYTES = 64 * 1024 * 1024;
/** A spilled backlog this large is indexed even during a burst (a slice per pass): disk is not infinite. */
const MAX_BACKLOG_BYTES = 1024 * 1024 * 1024;

/** True while more than DEFER_MAX_BYTES wait in the ring: records are captured rather than indexed. */
let bursting = false;

/** Records kept in memory instead of the spill file, when that file cannot be written. */
interface Captured { stream: number; t: number; data: Buffer }
let capture: Captured[] = [];
/** True while captured records (in the spill file or in `capture`) wait to be indexed. */
let captured = false;
/** The session is over (its finish record is captured): index now, whatever still arrives. */
let finishCaptured = false;
/**
 * The spill file: captured ring records, byte for byte as they lay in the ring (16-byte header, the
 * payload, padding to 8 bytes), read back by the indexer. It lives in the temp folder, owner-only,
 * and is unlinked as soon as it is opened, so nothing is left behind whatever happens to the tap.
 * Written from the start again each time the indexer catches up.
 */
let spillFd: number | null = null;
let spillWrite = 0;
let spillRead = 0;
/** Set when the spill file cannot be written: captured records are then kept in memory. */
let captureBroken = false;
/** Whether the forwarding thread has handed on the finish record (guard slot 3; true without a guard). */
function finishSent(): boolean {
  return !guard || guard.length <= 3 || Atomics.load(guard, 3) === 1;
}
/** Shared progress counter (guard slot 2): the forwarding thread waits for a recorder that advances. */
function progressed(): void {
  if (guard && guard.length > 2) Atomics.add(guard, 2, 1);
}

function parseControl(payload: Buffer): ToRecorder | null {
  try {
    return JSON.parse(payload.toString('utf8')) as ToRecorder;
  } catch {
    return null; // never written by us
  }
}

function dispatch(type: number, t: number, payload: Buffer): void {
  if (type === RING_CONTROL) {
    const m = parseControl(payload);
    if (m && !Array.isArray(m) && 'overflow' in m) indexOverflow(m.overflow);
    else if (m) receive(m);
  } else {
    // In pieces: a chunk of up to 1 MiB is a thousand frames, and split at once they would all be
    // alive together, past V8's young generation (peak RSS through a 1 GiB flood: 132 MiB, not 114).
    if (payload.length === 0) receive([type as StreamCode, t, payload]);
    else indexPieces(type as StreamCode, t, payload, Infinity);
  }
}

/** Tells the forwarder how much of its overflow file was taken (it writes the file over once all is). */
let tookOverflow: (bytes: number) => void = () => {};

/** The overflow file's read buffer (its own: an overflow marker is met while a spill block is in use). */
let overflowBlock: Buffer | null = null;

/**
 * Takes the records the forwarding thread wrote to its overflow file while the ring was full (see
 * recorder-client.ts), in order, at the place their marker holds in the stream.
 */
function indexOverflow(o: { fd: number; from: number; to: number }): void {
  overflowBlock ??= Buffer.allocUnsafe(SPILL_BLOCK_BYTES);
  let pos = o.from;
  try {
    while (pos < o.to && !finishing) {
      pos = readRecords(o.fd, pos, o.to, overflowBlock, (type, t, payload) => {
        dispatch(type, t, payload);
        return !finishing;
      });
      progressed(); // a large region takes seconds: the tap's exit waits while we advance
    }
  } catch (e) {
    warnOnce(`recording incomplete: the overflow file could not be read (${(e as Error).message})`);
  }
  tookOverflow(o.to - o.from);
  progressed();
}

/** Routes one ring record: straight to the indexer, or (spill file broken) into the memory capture. */
function take(type: number, t: number, payload: Buffer): void {
  if (!captured && (storeFailed || (ready && !bursting))) {
    dispatch(type, t, payload);
    return;
  }
  captured = true;
  if (type === RING_CONTROL && isFinish(payload)) finishCaptured = true;
  capture.push({ stream: type, t, data: payload });
}

function isFinish(payload: Buffer): boolean {
  const m = parseControl(payload);
  return m !== null && !Array.isArray(m) && 'finish' in m;
}


/**
 * Captures everything unread in the ring: appends it to the spill file in one gathering write
 * straight from the shared memory, then frees it. Returns the bytes captured; 0 (and the spill file
 * marked broken, nothing lost) when the file cannot be written.
 */
function captureRing(reader: RingReader): number {
  const { start, bytes, slices } = reader.region();
  if (bytes === 0) return 0;
  try {
    spillFd ??= openScratchFile('spill');
    writeAllAt(spillFd, slices, spillWrite);
  } catch {
    // Disk full or no temp folder: from now on captured records are kept in memory.
    captureBroken = true;
    return 0;
  }
  // Control records are few (events, end of streams, the finish); only they are looked into, and
  // only once the forwarding thread says it handed on the finish (guard slot 3, raised before the
  // finish record is written): walking every chunk's header in the middle of a flood costs about a
  // third of the capture. Read after the region was taken, so a finish inside it is never missed.
  if (!finishCaptured && finishSent()) {
    for (let p = 0; p < bytes;) {
      const h = reader.headerAt((start + p) | 0);
      if (h.type === RING_CONTROL && isFinish(reader.payloadAt((start + p) | 0, h.len))) finishCaptured = true;
      p += h.size;
    }
  }
  spillWrite += bytes;
  reader.release(bytes);
  captured = true;
  progressed();
  return bytes;
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

/**
 * Bytes of a chunk the indexer splits at a time. A 64 KiB chunk of small frames is hundreds of
 * frames, tens of ms of work: in pieces, the indexer can stop within its budget and see to the ring.
 */
const INDEX_PIECE_BYTES = 16 * 1024;
/** The rest of a chunk the indexer stopped in the middle of (its bytes are already read). */
let pendingPiece: { stream: StreamCode; t: number; rest: Buffer } | null = null;

/** Indexes a chunk piece by piece until `until`; keeps what is left in `pendingPiece`. */
function indexPieces(stream: StreamCode, t: number, data: Buffer, until: number): void {
  let off = 0;
  while (off < data.length && !finishing) {
    const end = Math.min(data.length, off + INDEX_PIECE_BYTES);
    receive([stream, t, data.subarray(off, end)]);
    off = end;
    if (off < data.length && performance.now() >= until) {
      pendingPiece = { stream, t, rest: data.subarray(off) };
      return;
    }
  }
  pendingPiece = null;
}

/**
 * The indexer's one read buffer for the spill file, reused block after block: a fresh 256 KiB buffer
 * per block is external memory that V8 frees only at its next full collection, tens of MB resident
 * under a long backlog. Safe to reuse: nothing keeps a view of a block once its records are indexed
 * (the line splitter copies a partial line; `pendingPiece` is used up before the next block).
 */
const spillBlock = Buffer.allocUnsafe(SPILL_BLOCK_BYTES);

/** Indexes the spill file's records from one block read, for about as long as `until` allows. */
function indexSpillBlock(until: number): void {
  try {
    spillRead = readRecords(spillFd!, spillRead, spillWrite, spillBlock, (type, t, payload) => {
      if (type === RING_CONTROL) dispatch(type, t, payload);
      else indexPieces(type as StreamCode, t, payload, until);
      // A record may hold hundreds of frames: look at the clock after each one.
      return !finishing && !pendingPiece && performance.now() < until;
    });
  } catch (e) {
    warnOnce(`recording incomplete: the recorder's spill file failed (${(e as Error).message})`);
    spillRead = spillWrite;
  }
  progressed();
}

/** Indexes captured records for about `budgetMs`; returns true when it caught up. */
function indexSlice(budgetMs: number): boolean {
  const until = performance.now() + budgetMs;
  while (performance.now() < until && !finishing) {
    if (pendingPiece) {
      indexPieces(pendingPiece.stream, pendingPiece.t, pendingPiece.rest, until);
      progressed();
      continue;
    }
    if (spillRead < spillWrite) {
      indexSpillBlock(until);
      continue;
    }
    if (spillWrite > 0) {
      // Caught up: the next burst is written over this one. Pages the file already has are reused
      // (writing into them is a plain copy; new ones cost the kernel an allocation each, several
      // times the copy); what lies beyond SPILL_KEEP_BYTES is given back.
      if (spillWrite > SPILL_KEEP_BYTES) {
        try { ftruncateSync(spillFd!, SPILL_KEEP_BYTES); } catch { /* space comes back when the tap exits */ }
      }
      spillRead = spillWrite = 0;
    }
    if (capture.length > 0) {
      const c = capture.shift()!;
      dispatch(c.stream, c.t, c.data);
      progressed();
      continue;
    }
    captured = false;
    return true;
  }
  return !captured;
}

/**
 * Loads the live checker (its modules and schemas cost a few hundred ms of CPU) once the ring is
 * quiet or the session is over, so it does not compete with the agent's start-up. Until it is
 * loaded, everything is captured, so its findings see every item in order. A burst that arrives
 * while it loads waits in the ring, and past the ring in the forwarding thread's overflow file.
 */
let checkerLoading = false;
function startChecker(): void {
  if (checkerLoading) return;
  checkerLoading = true;
  void loadChecker().then(loadTrace).then(() => {
    ready = true;
    for (const m of early.splice(0)) receive(m);
  });
}

/**
 * Drains the shared ring (chunks and control messages, in the order they were written) a slice at a
 * time, yielding to timers between slices. Space is released as records are taken, so the ring
 * bounds what waits. See "bursts" above for when records wait, are captured, or are indexed at once.
 */
async function drainRing(reader: RingReader, capacity: number): Promise<void> {
  const deferLimit = Math.min(capacity / 4, DEFER_MAX_BYTES);
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
    if (growing && !spilling && !captured && used < deferLimit && (used > BEHIND_BYTES || waited < LIVE_DELAY_MS)) {
      lastTraffic = performance.now(); // traffic is arriving: no checkpoint now
      // Ordinary traffic: look again after SETTLE_MS, then after twice as long each time it still
      // flows (a handful of wake-ups in a long exchange, not one every few ms), up to LIVE_DELAY_MS.
      const settle = Math.min(Math.max(SETTLE_MS, waited), LIVE_DELAY_MS - waited);
      await new Promise((r) => setTimeout(r, used > BEHIND_BYTES ? DEFER_MS : Math.max(1, settle)));
      continue;
    }
    bursting = used >= deferLimit || spilling;
    let n = 0;
    if (!storeFailed && !captureBroken && (captured || bursting || !ready)) {
      // 2. Capture: everything unread, in one write.
      if (captureRing(reader) > 0) n = 1;
    } else {
      let rec: RingRecord | null = null;
      while (!finishing && n < 256 && (rec = reader.read()) !== null) {
        n++;
        take(rec.type, rec.t, rec.payload);
        // Indexing at once is for ordinary traffic: when a burst starts piling up behind us, go back
        // to the top and let it arrive (or capture it) instead of indexing it record by record.
        if (!captured && reader.used > BEHIND_BYTES) break;
      }
    }
    if (finishing) return;
    prevUsed = reader.used;
    if (prevUsed === 0) waitingSince = null; // what arrives next starts a new wait
    if (n > 0 || spilling) lastActivity = lastTraffic = performance.now();
    const quietNow = performance.now() - lastActivity >= QUIET_MS;
    if (!ready) {
      if (finishCaptured || (prevUsed === 0 && performance.now() - lastActivity >= CHECKER_QUIET_MS)) startChecker();
    } else if (captured) {
      // Index once the burst is over: nothing arrived for QUIET_MS (or the backlog is very large).
      if (quietNow || finishCaptured || spillWrite - spillRead > MAX_BACKLOG_BYTES) indexSlice(INDEX_SLICE_MS);
      if (finishing) return;
    }
    // With a capture pending, never sleep on the ring: the burst may be over (and the finish record
    // already captured), and only this loop indexes what waits.
    // While the forwarder spills a burst, the ring gets only its markers (and the client's few
    // requests): a look every SPILL_LOOK_MS, not a wake-up per marker, is enough.
    if (spilling) await new Promise((r) => setTimeout(r, SPILL_LOOK_MS));
    else if (n >= 256 || (ready && captured && quietNow)) await new Promise((r) => setImmediate(r));
    else if (captured || !ready) {
      // Bytes are arriving: take them in slices of a millisecond. Otherwise sleep on the ring until
      // something arrives or it is time to index (captured: QUIET_MS) or to load the checker: a
      // 1 ms poll here would cost a thousand wake-ups a second, against the agent and the client.
      if (reader.used > 0) await new Promise((r) => setTimeout(r, 1));
      else await reader.wait(1, lastActivity + (captured ? QUIET_MS : CHECKER_QUIET_MS) - performance.now());
    } else await reader.wait(WAKE_BATCH_MS);
  }
}

/**
 * The recorder runs one step below normal CPU priority (nice 1): under contention the agent, the
 * client and the forwarding thread go slightly first. It is not lower because during a burst the
 * recorder must still capture as fast as bytes arrive (capture is cheap: see "bursts" above) or the
 * ring overflows into a gap; the expensive per-frame work is what waits for the burst to end.
 * Linux priorities are per thread; elsewhere this is a no-op. The bench finds the thread by this value.
 */
export const RECORDER_NICE = 1;
function lowerPriority(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isSafeInteger(tid) && tid > 0) setPriority(tid, RECORDER_NICE);
  } catch { /* not Linux, or not allowed: run at normal priority */ }
}
lowerPriority();

/** Loaded only for --ui; a variable keeps the tap independent of the server at build time. */
const SERVER_MODULE = '../server/index.js';
/**
 * Backs the ring with real pages while the agent starts (see `touch`), a slice at a time so a burst
 * is still captured meanwhile: otherwise the first pass of a flood would pay a page fault per 4 KiB
 * on the forwarding thread.
 */
async function touchRing(reader: RingReader): Promise<void> {
  const slice = 1024 * 1024;
  for (let off = 0; off < reader.capacity; off += slice) {
    reader.touch(off, slice);
    await new Promise((r) => setImmediate(r));
  }
  // The same for the first SPILL_WARM_BYTES of the spill file: a burst's capture then writes into
  // pages the file already has (the capture of a burst starts where the ring's room ends).
  try {
    const zeros = Buffer.alloc(slice);
    for (let off = 0; off < SPILL_WARM_BYTES && !captured && spillWrite === 0; off += slice) {
      spillFd ??= openScratchFile('spill');
      writeAllAt(spillFd, [zeros], off);
      await new Promise((r) => setImmediate(r));
    }
  } catch { /* made on first use instead */ }
}

/** A wait on the native forwarder's wake pipe: resolves on the next byte it writes. */
function pipeWaker(fd: number): () => Promise<void> {
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

// Drain first (a burst at start-up is captured), then open the database.
if (config.ring) {
  const reader = new RingReader(config.ring, config.wakeFd !== undefined ? pipeWaker(config.wakeFd) : null);
  ringUsed = () => reader.used;
  tookOverflow = (bytes) => reader.tookOverflow(bytes);
  void drainRing(reader, reader.capacity);
  void touchRing(reader);
} else startChecker();
openStore();
if (config.ui !== null && store) {
  import(SERVER_MODULE)
    .then(async (mod: { startServer?: (o: { dbPath: string; port: number }) => Promise<{ url: string; close(): Promise<void> }> }) => {
      if (!mod.startServer) return;
      const srv = await mod.startServer({ dbPath: config.dbPath, port: config.ui! });
      closeUi = () => srv.close();
      send({ info: `acp-inspect: UI at ${srv.url}` });
    })
    .catch((e: Error) => send({ info: `acp-inspect: UI not started: ${e.message}` }));
}
