/**
 * The forwarding thread's side of the recorder: appends what the tap forwards to the recording's
 * capture log (capture-log.ts) and never waits for the recorder, which indexes the log on its own
 * time. Beside the native forwarder its threads append the chunks (forward.c) and this only hands
 * it the tap's own records (stderr, events, the finish); beside the JavaScript forwarder this
 * appends every record itself, one write each. A record the log cannot take (a full disk) is counted,
 * and a `gap` record says how much once it can; forwarding goes on either way.
 *
 * Batched (the remote bridge and proxy, whose records are one message each, not a pipe's read), the
 * records of one turn of the event loop are gathered and written together (see flush): at the end of
 * the turn, when LOG_BATCH_BYTES are waiting, or when the caller flushes before forwarding.
 */
import type { Worker as WorkerType } from 'node:worker_threads';
import { WORKER_BUSY_MS, type FromRecorder, type RecorderConfig, type StreamCode, type ToRecorder } from './messages.js';
import { RECORD_CONTROL, RECORD_HEADER, encodeHeader, pad8, writeAllAt, writeHeader, writeRecord } from './capture-log.js';
import type { NativeForwarder } from './native.js';
import { lazyRequire } from './agent.js';
import { FULL_RETRY_MS, diskFull, fullDiskAtStart, fullDiskDelay, fullDiskLogRefused, isFullError } from '../store/disk.js';
import type { Recorder } from './recorder/index.js';
import { startDetachedIndexer } from './detached-indexer.js';

/**
 * A capture log open for appending: its descriptor, path, file name and where the next record goes;
 * `pendingHeader`: its header record's payload, not written yet (a full disk: see createCaptureLog).
 */
export interface OpenCaptureLog { fd: number; path: string; name: string; pos: number; pendingHeader?: Buffer }

/**
 * The recorder's young generation (V8's nursery), in MB. The recorder's objects die young (a frame
 * lives until its batch is written), so a small one costs a few more quick collections and keeps
 * about 24 MB less resident.
 */
const RECORDER_YOUNG_MB = 8;
/**
 * The recorder, run on this thread beside the native forwarder (see startInProcess), and the
 * worker's entry beside the JavaScript one. Relative to this module and to the CLI's bundle that
 * includes it (dist/src/cli/main.bundle.cjs), hence through the folder's name.
 */
const RECORDER_MODULE = '../tap/recorder/index.js';
const RECORDER_WORKER = '../tap/recorder-worker.js';
/**
 * SQLite's busy timeout for the recorder on this thread: how long one write may wait for a database
 * another process holds. Shorter than the worker's (WORKER_BUSY_MS), since this thread also forwards the agent's
 * stderr and takes the tap's signals; a write that gives up keeps its items and is tried again.
 */
const IN_PROCESS_BUSY_MS = 1000;
/** How much longer than its busy timeout the tap's exit waits for a worker's write (see quiesce). */
const WORKER_BUSY_SLACK_MS = 8000;

/**
 * The most a batched client gathers for one write to the log: a stream of 1 KiB messages then costs
 * a write per 60 or so instead of one each. (The WebSocket bridge spent 14% of its main thread's
 * profile in those writes during a flood; batched, a flood of 20,000 updates took its process 1.14 s
 * of CPU instead of 1.23 s, medians of 5 runs alternated on a loaded machine.)
 */
const LOG_BATCH_BYTES = 64 * 1024;
const NEWLINE = Buffer.from('\n');

/** A backlog this large is not indexed within the tap's exit wait (about 4,000 1 KiB frames): it is handed on at once. */
const HOPELESS_BACKLOG_BYTES = 4 * 1024 * 1024;

export class RecorderClient {
  /** Records are kept (false once the log failed to open, or the tap exits). */
  private running = false;
  private dropped: number[] = [0, 0, 0];
  private readonly head = Buffer.allocUnsafe(RECORD_HEADER);
  private doneResolve: (() => void) | null = null;
  private readonly done: Promise<void>;
  private finished = false;
  private warned = false;
  private recorder: Recorder | null = null;
  private worker: WorkerType | null = null;
  private handedOff: (() => void) | null = null;
  recordingId: number | null = null;
  /** The recorder said something (it met a locked database, for one). */
  private spoke = false;
  /** The committed position of the log (its first Int64), shared with the recorder (and the native forwarder). */
  private readonly committed: BigInt64Array;
  /** [in SQLite, stop, progress, finish sent, flowing]: shared with the recorder (see guard.ts). */
  private readonly guard = new Int32Array(new SharedArrayBuffer(20));

  /** Batched: the records waiting for their write (see flush), their size, and the stream bytes among them, by stream. */
  private batch: Buffer | null = null;
  private batchLen = 0;
  private readonly batchBytes: number[] = [0, 0, 0];
  private batchT = 0;
  private flushQueued = false;
  private readonly flushNow = () => this.flush();

  /**
   * Takes records from now on (into the log); the recorder that indexes them begins with start().
   * `batched`: records are gathered and written a turn of the event loop at a time (see flush).
   */
  /** The database the recording goes to (known once start is called): what a full disk's message names. */
  private dbPath: string | null = null;

  constructor(private readonly warn: (msg: string) => void, private readonly native: NativeForwarder | null, private readonly log: OpenCaptureLog | null, private readonly shared: SharedArrayBuffer, private readonly batched = false) {
    this.done = new Promise((r) => (this.doneResolve = r));
    this.committed = new BigInt64Array(shared, 0, 1);
    if (log) {
      Atomics.store(this.committed, 0, BigInt(log.pos));
      this.running = true;
    } else this.doneResolve?.();
  }

  /**
   * Starts the recorder. The tap calls it once the agent is spawned and its bytes are forwarded:
   * loading the recorder (SQLite, the checker) is the larger part of the tap's start-up, and what
   * arrives meanwhile waits in the log.
   */
  start(config: Omit<RecorderConfig, 'capture'>): void {
    this.dbPath = config.dbPath;
    if (!this.running || !this.log) return;
    if (this.log.pendingHeader) {
      // The disk was full as the tap started: the recording starts once the log's header fits.
      this.warnOnce(fullDiskAtStart(config.dbPath));
      const retry = setInterval(() => {
        if (!this.running || this.finished) clearInterval(retry);
        else if (this.headerWritten()) {
          clearInterval(retry);
          this.start(config);
        }
      }, FULL_RETRY_MS);
      retry.unref();
      return;
    }
    const full: RecorderConfig = { ...config, capture: { path: this.log.path, name: this.log.name }, shared: this.shared, guard: this.guard.buffer };
    try {
      if (this.native) this.startInProcess(full);
      else this.startWorker(full);
    } catch (e) {
      this.failed(e);
    }
  }

  /**
   * Writes the log's header, when a full disk kept it out (see createCaptureLog): true once it is
   * there. What the forwarder appended meanwhile is after it, with gap records for what the disk refused.
   */
  private headerWritten(): boolean {
    const log = this.log!;
    if (!log.pendingHeader) return true;
    try {
      writeHeader(log.fd, log.pendingHeader);
    } catch {
      return false;
    }
    log.pendingHeader = undefined;
    return true;
  }

  /** A message from the recorder. */
  private onMessage(m: FromRecorder): void {
    if ('warn' in m) this.warnOnce(m.warn);
    else if ('info' in m) {
      this.spoke = true;
      this.warn(m.info);
    }
    else if ('recordingId' in m) this.recordingId = m.recordingId;
    else if ('done' in m) this.doneResolve?.();
    else if ('handedOff' in m) this.handedOff?.();
  }

  /** The recorder failed (a bug): the log is still written, and whoever opens the database next indexes it. */
  private failed(e: unknown): void {
    this.warnOnce(`recorder failed (${(e as Error)?.message ?? String(e)}); the capture log keeps recording, and the next acp-inspect that opens the database indexes it`);
    this.doneResolve?.();
  }

  /**
   * Beside the JavaScript forwarder, the recorder runs on a worker thread: this thread forwards, and
   * SQLite (synchronous, possibly waiting seconds for a locked database) must not stop it.
   */
  private startWorker(config: RecorderConfig): void {
    // Required here, not imported: beside the native forwarder the tap's start-up does without it.
    const { Worker } = lazyRequire('node:worker_threads') as { Worker: typeof WorkerType };
    const w = new Worker(new URL(RECORDER_WORKER, import.meta.url), { workerData: config, stdout: false, stderr: false, resourceLimits: { maxYoungGenerationSizeMb: RECORDER_YOUNG_MB } });
    w.unref();
    w.on('message', (m: FromRecorder) => this.onMessage(m));
    w.on('error', (e) => this.failed(e));
    w.on('exit', () => this.doneResolve?.());
    this.worker = w;
  }

  /**
   * Beside the native forwarder, whose threads move the bytes, the recorder runs on this thread: it
   * has nothing else to do but the agent's stderr and the tap's signals, and a second V8 isolate
   * would cost about 10 MB and its own copy of every module. Loaded once the agent is spawned and
   * forwarded, through a variable, so the tap's start-up bundle stays without it. Its young
   * generation stays small (see youngGeneration).
   */
  private startInProcess(config: RecorderConfig): void {
    // With --otlp the optimizer is never turned off (see runTap): nothing to turn on.
    const tuning = burstTuning(!config.otlp);
    (import(RECORDER_MODULE) as Promise<typeof import('./recorder/index.js')>).then((mod) => {
      if (!this.running) return;
      // Lowered only now: the forwarding threads, started meanwhile, keep the normal priority.
      mod.lowerPriority();
      this.recorder = mod.startRecorder(config, (m) => this.onMessage(m), {
        busyTimeoutMs: IN_PROCESS_BUSY_MS,
        onFatal: (e) => this.failed(e),
        indexing: tuning.indexing,
        helped: tuning.pin,
      });
    }).catch((e) => this.failed(e));
  }

  /**
   * At the tap's exit, with the rest of the log handed on, when its recorder said nothing: says once
   * that the database's disk is full, or, the recorder having made no recording (the session ended
   * before it met the database), that the database is locked by another process, since the recording
   * then waits for space, or for the next acp-inspect that opens it.
   * A write is tried at once, not waited for. Not where SQLite's log is large: closing the last
   * connection copies it, which the tap's exit does not wait on (see StoreWriter.finish).
   */
  sayIfLocked(dbPath: string): void {
    if (this.spoke || this.warned || !this.log) return;
    // Its disk full (the recorder may not have met it yet): the rest waits for space.
    if (diskFull(dbPath)) {
      this.warnOnce(fullDiskDelay(dbPath));
      return;
    }
    if (this.recordingId !== null) return;
    try {
      const { existsSync, statSync } = lazyRequire('node:fs') as typeof import('node:fs');
      if (!existsSync(dbPath) || (existsSync(`${dbPath}-wal`) && statSync(`${dbPath}-wal`).size >= 16 * 1024 * 1024)) return;
      const Database = lazyRequire('better-sqlite3') as typeof import('better-sqlite3');
      const db = new Database(dbPath, { fileMustExist: true, timeout: 0 });
      try {
        db.exec('BEGIN IMMEDIATE');
        db.exec('ROLLBACK');
      } finally {
        db.close();
      }
    } catch (e) {
      const code = (e as { code?: string }).code ?? '';
      if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
        this.warnOnce(`recording delayed: database ${dbPath} is locked by another process; the recording is kept beside it and stored by the next acp-inspect that opens it`);
      }
    }
  }

  private warnOnce(msg: string): void {
    if (this.warned) return;
    this.warned = true;
    this.warn(msg);
  }

  /** Appends a record to the log (JavaScript forwarder); one the log cannot take is counted for a gap record. */
  private append(type: number, t: number, bytes: Uint8Array): void {
    const size = RECORD_HEADER + pad8(bytes.length);
    if (this.batched && size <= LOG_BATCH_BYTES) return this.gather(type, t, bytes, size);
    if (this.batchLen > 0) this.flush();
    const log = this.log!;
    try {
      this.writeGaps(t);
      log.pos += writeRecord(log.fd, log.pos, type, t, bytes, this.head);
      Atomics.store(this.committed, 0, BigInt(log.pos));
    } catch (e) {
      if (type !== RECORD_CONTROL) this.dropped[type]! += bytes.length;
      this.cannotWrite(e);
    }
  }

  /** Writes a `gap` record for each stream whose bytes the log could not take. Throws as writeRecord. */
  private writeGaps(t: number): void {
    if ((this.dropped[0]! | this.dropped[1]! | this.dropped[2]!) === 0) return;
    const log = this.log!;
    for (const c of [0, 1, 2] as StreamCode[]) {
      if (this.dropped[c] === 0) continue;
      log.pos += writeRecord(log.fd, log.pos, RECORD_CONTROL, t, Buffer.from(JSON.stringify({ gap: c, t, bytes: this.dropped[c] } satisfies ToRecorder)), this.head);
      this.dropped[c] = 0;
    }
  }

  private cannotWrite(e: unknown): void {
    // A full disk is said as the rest of the tap says it, naming the disk and the way out.
    if (isFullError(e) && this.dbPath !== null) this.warnOnce(fullDiskLogRefused(this.dbPath));
    else this.warnOnce(`recording incomplete: cannot write the capture log ${this.log!.path} (${(e as Error).message}); forwarding continues`);
  }

  /** Batched: adds a record of `size` bytes to the batch (written by flush, at the latest at the end of this turn of the event loop). */
  private gather(type: number, t: number, bytes: Uint8Array, size: number, newline = false): void {
    if (this.batchLen + size > LOG_BATCH_BYTES) this.flush();
    const buf = (this.batch ??= Buffer.allocUnsafe(LOG_BATCH_BYTES));
    if (this.batchLen === 0) this.batchT = t;
    const at = this.batchLen;
    const len = bytes.length + (newline ? 1 : 0);
    encodeHeader(buf.subarray(at, at + RECORD_HEADER), len, type, t);
    buf.set(bytes, at + RECORD_HEADER);
    if (newline) buf[at + RECORD_HEADER + bytes.length] = 10;
    buf.fill(0, at + RECORD_HEADER + len, at + size);
    this.batchLen += size;
    if (type !== RECORD_CONTROL) this.batchBytes[type]! += len;
    if (!this.flushQueued) {
      this.flushQueued = true;
      setImmediate(this.flushNow);
    }
  }

  /**
   * Batched: writes the records gathered so far to the log, in one write. The bridge calls it before
   * it hands the agent's messages on, so that what the editor gets is in the log first, as the stdio
   * tap's native forwarder has it. A batch the log cannot take is counted for gap records, as a record is.
   */
  flush(): void {
    this.flushQueued = false;
    if (this.batchLen === 0) return;
    const log = this.log!;
    const len = this.batchLen;
    this.batchLen = 0;
    try {
      this.writeGaps(this.batchT);
      log.pos += writeAllAt(log.fd, [this.batch!.subarray(0, len)], log.pos);
      Atomics.store(this.committed, 0, BigInt(log.pos));
    } catch (e) {
      for (let c = 0; c < 3; c++) this.dropped[c]! += this.batchBytes[c]!;
      this.cannotWrite(e);
    }
    this.batchBytes.fill(0);
  }

  private control(m: ToRecorder, t: number): void {
    if (!this.running) return;
    const bytes = Buffer.from(JSON.stringify(m));
    if (this.native) this.native.push(RECORD_CONTROL, t, bytes);
    else this.append(RECORD_CONTROL, t, bytes);
  }

  /** Records a copy of a forwarded chunk. Call after the chunk was written on. */
  chunk(code: StreamCode, t: number, bytes: Buffer): void {
    if (!this.running) return;
    if (this.native) this.native.push(code, t, bytes);
    else this.append(code, t, bytes);
  }

  /**
   * Records a line: `bytes` and a newline after them, gathered without joining them first (a
   * batched client's; a stream of small messages otherwise costs an allocation each).
   */
  line(code: StreamCode, t: number, bytes: Buffer): void {
    if (!this.running) return;
    const size = RECORD_HEADER + pad8(bytes.length + 1);
    if (!this.native && this.batched && size <= LOG_BATCH_BYTES) this.gather(code, t, bytes, size, true);
    else this.chunk(code, t, Buffer.concat([bytes, NEWLINE]));
  }

  event(ev: string, t: number, data: Record<string, unknown>): void {
    this.control({ ev, t, data }, t);
  }

  /** What was recorded is (true) or is no longer (false) waiting to be handed on to the peer (see Guard.flowing). */
  flowing(on: boolean): void {
    Atomics.store(this.guard, 4, on ? 1 : 0);
  }

  eof(code: StreamCode, t: number): void {
    this.control({ eof: code, t }, t);
  }

  /**
   * Stops the recorder from starting SQLite calls and waits (blocking, at most `maxMs`, or a worker's
   * busy timeout) for the one in progress to return, and stops the log's writers. Call right before the process exits: a thread
   * terminated inside better-sqlite3 aborts the whole process (exit 134 and a native stack trace
   * instead of the agent's exit code), and the forwarder's threads may still be running (a leftover
   * child writing).
   */
  quiesce(maxMs: number): void {
    if (this.running) this.flush();
    this.running = false;
    this.native?.stopRecording();
    Atomics.store(this.guard, 1, 1);
    // A worker's write waiting on a locked database is waited out: a process that exits while a
    // thread is inside SQLite aborts (SIGABRT), and the agent's exit code is lost with it. SQLite's
    // busy wait sleeps in steps, each of which a loaded machine can stretch: 250 ms over the busy
    // timeout was outrun at load averages of 10 (the test of sessions that end on a locked database
    // aborted twice, each time beside a second suite). The wait ends as soon as the write returns,
    // and only a database another process holds makes it wait at all.
    const until = Date.now() + (this.worker ? Math.max(maxMs, WORKER_BUSY_MS + WORKER_BUSY_SLACK_MS) : maxMs);
    while (Atomics.load(this.guard, 0) === 1) {
      const left = until - Date.now();
      if (left <= 0) return;
      Atomics.wait(this.guard, 0, 1, left);
    }
  }

  /**
   * Writes the finish record and gives the recorder at most `waitMs` to index the rest of the log
   * and finish the recording. True when it did; false when the rest is left to another process
   * (handOff(), then a detached indexer or the next opener): the tap never waits on its recorder.
   */
  async finish(code: number | null, signal: string | null, t: number, waitMs: number): Promise<boolean> {
    if (!this.log || this.finished) return false;
    this.finished = true;
    Atomics.store(this.guard, 3, 1);
    this.control({ finish: { code, signal, t } }, t);
    this.flush();
    // The recorder never started (the log's header never fitted): the header once more, for
    // whoever indexes the log next (handOff).
    if (this.log.pendingHeader) {
      this.headerWritten();
      return false;
    }
    this.recorder?.poke();
    this.worker?.postMessage('poke');
    // A backlog no recorder indexes in that time (a flood's): no use waiting for it.
    if (waitMs < 1000 && (this.recorder?.behind ?? 0) > HOPELESS_BACKLOG_BYTES) return false;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((r) => { timer = setTimeout(() => r(false), waitMs); });
    const stored = await Promise.race([this.done.then(() => true), late]);
    clearTimeout(timer);
    return stored;
  }

  /**
   * The recorder did not finish in time: it writes what waits, with the agent's exit, and lets go of
   * the log (see Recorder.handOff); resolves once it did (the worker says so), or after `maxMs`.
   */
  /**
   * At the tap's exit, when finish did not store the recording's rest: hands it on (handOff), says once
   * that the database is locked or its disk full, and has a detached indexer finish it, named as
   * indexing this log and told the exit (a full disk may have refused the log's finish record and the
   * database's copy alike: see startDetachedIndexer). A stdio tap and a remote one end alike.
   */
  async handOn(dbPath: string, code: number | null, signal: string | null): Promise<void> {
    if (!this.log) return;
    await this.handOff(code, signal);
    this.sayIfLocked(dbPath);
    startDetachedIndexer(dbPath, this.log.name, { endedAt: new Date().toISOString(), exitCode: code, exitSignal: signal });
  }

  async handOff(code: number | null, signal: string | null, maxMs = 150): Promise<void> {
    try { this.recorder?.handOff(code, signal); } catch { /* the next indexer goes on from the last batch */ }
    if (!this.worker) return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((r) => {
      this.handedOff = r;
      timer = setTimeout(r, maxMs);
      this.worker!.postMessage({ handOff: [code, signal] });
    });
    clearTimeout(timer);
  }

  /** The capture log's path (null when none could be made). */
  get logPath(): string | null {
    return this.log?.path ?? null;
  }
}

/** Required when first needed, not imported: node:v8 costs the tap's start-up 1-2 ms before the agent is spawned. */
function nodeV8(): typeof import('node:v8') {
  return lazyRequire('node:v8') as typeof import('node:v8');
}

/**
 * Slices of indexing (about 10 ms each) after which a backlog counts as a burst's: the first frames
 * of a session (the checker compiling its schemas) are a short backlog and would grow it for good.
 */
const GROW_AFTER_SLICES = 10;

/**
 * What changes while a burst's backlog is indexed, and changes back once it is caught up: V8's
 * young generation may grow (see youngGeneration), and its optimizing compiler runs.
 *
 * The tap runs without the optimizer (see withoutOptimizer in run.ts): what it compiles costs memory
 * the allocator keeps. Indexing a backlog is the one place where the recorder's JavaScript (splitting,
 * parsing, the checker, the store's statements) is hot for seconds, and it runs about 45% cheaper
 * optimized (a 128 MiB flood of 1 KiB frames: 25 µs of CPU per frame instead of 44), for about 10 MiB
 * more peak RSS through a 1 GiB flood. The optimizer is turned on after GROW_AFTER_SLICES slices of
 * a backlog, so a session's first frames (a short backlog while the checker loads) do not compile,
 * and off again once the backlog is caught up: what was compiled stays, nothing new is. An idle tap
 * never turns it on. With `optimize` false (the optimizer was never turned off) only the young
 * generation changes.
 */
function burstTuning(optimize: boolean): { indexing(active: boolean): void; pin(): void } {
  const { setFlagsFromString } = nodeV8();
  const grow = youngGeneration();
  let slices = 0;
  let optimizing = false;
  let pinned = false;
  const set = (on: boolean) => {
    if (!optimize || on === optimizing) return;
    optimizing = on;
    try { setFlagsFromString(on ? '--opt' : '--no-opt'); } catch { /* this V8 does not know the flag */ }
  };
  return {
    indexing(active) {
      slices = active ? slices + 1 : 0;
      const burst = slices > GROW_AFTER_SLICES;
      grow(burst);
      set(burst || pinned);
    },
    /**
     * A backlog was indexed by the recorder's helper (recorder/helper.ts): this thread only wrote it,
     * and its making (splitting, parsing, checking) stayed cold. Without the optimizer it then took
     * over 50 ms to index the 250 ms of traffic a session's end finds waiting (the bench's 1000
     * pings after its floods), and the tap handed the recording on instead of finishing it: the
     * optimizer stays on for the rest of the session.
     */
    pin() {
      pinned = true;
      set(true);
    },
  };
}

/**
 * This thread's young generation (V8's nursery) once the recorder runs here. V8 doubles it each time
 * a collection finds much of it alive, up to 32 MB while indexing a flood, and gives little of it
 * back: loading the checker alone grew it to 8 MB, and an idle tap kept that. The cap a worker gets
 * (RECORDER_YOUNG_MB) cannot be set on a running isolate, but growth can be turned off and on: off,
 * except while a burst's backlog is indexed, and then up to RECORDER_YOUNG_MB. Smaller then would
 * cost more: frames waiting for their batch outlive a small young generation and fill the old one
 * (peak RSS through a 128 MiB flood: 113 MiB with 4 MB, 90 with 8).
 */
function youngGeneration(): (burst: boolean) => void {
  const { getHeapSpaceStatistics, setFlagsFromString } = nodeV8();
  const limit = RECORDER_YOUNG_MB * 1024 * 1024;
  const size = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? limit;
  let factor = 0;
  const set = (f: number) => {
    if (f === factor) return;
    factor = f;
    try { setFlagsFromString(`--semi-space-growth-factor=${f}`); } catch { /* this V8 does not know the flag */ }
  };
  set(1);
  return (burst) => set(burst && size() < limit ? 2 : 1);
}
