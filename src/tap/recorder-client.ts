/**
 * The forwarding thread's side of the recorder: hands copies of chunks to the recorder worker and
 * never waits for it. Chunks and control messages go through one shared byte ring (ring.ts), so a
 * chunk costs one memcpy and no message, and the memory is fixed up front. When the ring is full
 * (the recorder stalled), records go on, in order, into an overflow file in shared memory and a
 * marker in the ring points the recorder to them. Only if that file cannot be written are chunks
 * not recorded, and the recording gets a marked gap instead; forwarding goes on either way. Control
 * messages (events, end of stream, finish) are never dropped: one that does not fit waits in a small
 * backlog, and chunks are skipped until it is written, so order holds.
 */
import type { Worker as WorkerType } from 'node:worker_threads';
import type { FromRecorder, RecorderConfig, StreamCode, ToRecorder } from './messages.js';
import { RING_CONTROL, RING_HEADER, RingWriter, createRing, encodeHeader, pad8 } from './ring.js';
import { openScratchFile, writeAllAt } from './scratch.js';
import type { NativeForwarder } from './native.js';
import { lazyRequire } from './agent.js';

/**
 * The native forwarder's hand-off: the ring it writes into (made and given to it before the agent
 * was spawned) and its wake pipe. With it, every record goes through `fwd.push()` (in order with the
 * chunks its threads push), which also keeps the overflow file, the backlog and the gap markers.
 */
export interface NativeHandoff {
  fwd: NativeForwarder;
  ring: SharedArrayBuffer;
  wakeFd: number;
}

/** Bytes of the ring: what the recorder may lag behind the session before chunks are dropped (a gap). */
export const RING_BYTES = 16 * 1024 * 1024;
/**
 * The recorder's young generation (V8's nursery), in MB. V8 lets it grow to 32 MB while indexing a
 * flood; the recorder's objects die young (a frame lives until its batch is written), so a smaller
 * one costs a few more quick collections and keeps about 24 MB less resident.
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
 * another process holds. Shorter than the worker's 2 s, since this thread also forwards the agent's
 * stderr and takes the tap's signals; a write that gives up keeps its items and is tried again.
 */
const IN_PROCESS_BUSY_MS = 1000;
/** Padding for overflow records (records are 8-byte aligned, as in the ring). */
const ZEROS = Buffer.alloc(8);
/** Once dropping, chunks are taken again only when this much of the ring is free (one gap, not many). */
const RESUME_FREE_BYTES = RING_BYTES / 4;
/** Kept for callers that name the old bound: the most that may be in flight to the recorder. */
export const MAX_INFLIGHT_BYTES = RING_BYTES;

export class RecorderClient {
  /** The recorder is there and taking records (false once it failed or finished). */
  private running = false;
  private readonly ring: RingWriter | null = null;
  private dropped: number[] = [0, 0, 0];
  private backlog: Buffer[] = [];
  /** The overflow file (see overflowRecord): its fd, where its next record goes, where the open run began. */
  private overflowFd: number | null = null;
  private overflowPos = 0;
  private overflowFrom: number | null = null;
  private overflowBroken = false;
  private backlogTimer: NodeJS.Timeout | null = null;
  private doneResolve: (() => void) | null = null;
  private readonly done: Promise<void>;
  private finished = false;
  private warned = false;
  recordingId: number | null = null;
  /** [in SQLite, stop, progress, finish sent]: shared with the worker (see `sql()`, `progressed()` and `captureRing()` in recorder-worker.ts). */
  private readonly guard = new Int32Array(new SharedArrayBuffer(16));

  private readonly sab: SharedArrayBuffer | null = null;

  /**
   * Takes records from now on (they wait in the ring); the recorder that reads them begins with
   * start(), once the tap forwards.
   */
  constructor(private readonly warn: (msg: string) => void, private readonly native: NativeHandoff | null = null) {
    this.done = new Promise((r) => (this.doneResolve = r));
    try {
      this.sab = native?.ring ?? createRing(RING_BYTES);
      this.ring = new RingWriter(this.sab);
      this.running = true;
    } catch (e) {
      this.cannotStart(e);
    }
  }

  /**
   * Starts the recorder. The tap calls it once the agent is spawned and its bytes are forwarded:
   * loading the recorder (SQLite, the checker) is the larger part of the tap's start-up, and what
   * arrives meanwhile waits in the ring, in order.
   */
  start(config: RecorderConfig): void {
    if (!this.running) return;
    const full: RecorderConfig = { ...config, ...(this.native ? { wakeFd: this.native.wakeFd } : {}), ring: this.sab!, guard: this.guard.buffer };
    try {
      if (this.native) this.startInProcess(full);
      else this.startWorker(full);
    } catch (e) {
      this.running = false;
      this.cannotStart(e);
    }
  }

  private cannotStart(e: unknown): void {
    this.warnOnce(`recording disabled: cannot start the recorder (${(e as Error).message}); forwarding continues`);
    this.native?.fwd.stopRecording();
    this.doneResolve?.();
  }

  /** A message from the recorder. */
  private onMessage(m: FromRecorder): void {
    if ('warn' in m) this.warnOnce(m.warn);
    else if ('info' in m) this.warn(m.info);
    else if ('recordingId' in m) this.recordingId = m.recordingId;
    else if ('done' in m) this.doneResolve?.();
  }

  private failed(e: unknown): void {
    if (!this.running) return;
    this.warnOnce(`recording stopped: recorder failed (${(e as Error)?.message ?? String(e)}); forwarding continues`);
    this.stop();
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
    w.on('exit', () => this.stop());
  }

  /**
   * Beside the native forwarder, whose threads move the bytes, the recorder runs on this thread: it
   * has nothing else to do but the agent's stderr and the tap's signals, and a second V8 isolate
   * would cost about 10 MB and its own copy of every module. Loaded once the agent is spawned and
   * forwarded (the ring holds what arrives meanwhile), through a variable, so the tap's start-up
   * bundle stays without it. Its young generation stays small, and V8's optimizer runs only while a
   * burst is indexed (see burstTuning).
   */
  private startInProcess(config: RecorderConfig): void {
    // With --otlp the optimizer is never turned off (see runTap): nothing to turn on.
    const grow = burstTuning(!config.otlp);
    (import(RECORDER_MODULE) as Promise<typeof import('./recorder/index.js')>).then((mod) => {
      if (!this.running) return;
      // Lowered only now: the forwarding threads, started meanwhile, keep the normal priority.
      mod.lowerPriority();
      mod.startRecorder(config, (m) => this.onMessage(m), {
        busyTimeoutMs: IN_PROCESS_BUSY_MS,
        onFatal: (e) => this.failed(e),
        indexing: grow,
      });
    }).catch((e) => this.failed(e));
  }

  private stop(): void {
    this.native?.fwd.stopRecording();
    this.running = false;
    this.backlog = [];
    if (this.backlogTimer) clearInterval(this.backlogTimer);
    this.backlogTimer = null;
    this.doneResolve?.();
  }

  private warnOnce(msg: string): void {
    if (this.warned) return;
    this.warned = true;
    this.warn(msg);
  }

  /**
   * Appends a record to the overflow file (ring format), opening it and a run as needed. When the
   * ring is full (the recorder stalled: a checkpoint's fsync, loading the checker, no CPU), records
   * go there in order instead of being lost, and a marker in the ring tells the recorder where they
   * are once the ring has room again. It is shared memory (/dev/shm) where possible, so this write
   * never waits on a disk; false (and the caller drops, marking a gap) when it cannot be written.
   */
  private overflowRecord(type: number, t: number, payload: Buffer): boolean {
    if (this.overflowBroken || this.backlog.length > 0 || (this.dropped[0]! | this.dropped[1]! | this.dropped[2]!) !== 0) return false;
    try {
      this.overflowFd ??= openScratchFile('overflow');
      const head = encodeHeader(Buffer.allocUnsafe(RING_HEADER), payload.length, type, t);
      const pad = ZEROS.subarray(0, pad8(payload.length) - payload.length);
      const written = writeAllAt(this.overflowFd, [head, payload, pad], this.overflowPos);
      this.overflowFrom ??= this.overflowPos;
      this.overflowPos += written;
      this.retryLater(t);
      return true;
    } catch {
      this.overflowBroken = true;
      return false;
    }
  }

  /** Ends an overflow run with its marker in the ring; false while the ring has no room yet. */
  private closeOverflow(t: number): boolean {
    if (this.overflowFrom === null) return true;
    if (this.ring!.free < RESUME_FREE_BYTES) return false;
    const m: ToRecorder = { overflow: { fd: this.overflowFd!, from: this.overflowFrom, to: this.overflowPos } };
    if (!this.ring!.write(RING_CONTROL, t, Buffer.from(JSON.stringify(m)))) return false;
    this.overflowFrom = null;
    return true;
  }

  /** Keeps trying to write what waits (an overflow marker, control messages) until it is written. */
  private retryLater(t: number): void {
    this.backlogTimer ??= setInterval(() => {
      if (!this.running || this.flushBacklog(t)) {
        clearInterval(this.backlogTimer!);
        this.backlogTimer = null;
      }
    }, 10);
  }

  /** Writes what waits (an overflow marker, control messages, then gap markers); true when nothing waits any more. */
  private flushBacklog(t: number): boolean {
    const ring = this.ring!;
    if (!this.closeOverflow(t)) return false;
    while (this.backlog.length > 0) {
      if (!ring.write(RING_CONTROL, t, this.backlog[0]!)) return false;
      this.backlog.shift();
    }
    for (const c of [0, 1, 2] as StreamCode[]) {
      const n = this.dropped[c]!;
      if (n > 0) {
        if (!ring.write(RING_CONTROL, t, Buffer.from(JSON.stringify({ gap: c, t, bytes: n } satisfies ToRecorder)))) return false;
        this.dropped[c] = 0;
      }
    }
    return true;
  }

  /**
   * The native forwarder has records waiting for room in the ring (an overflow run, control
   * messages, gap markers): keep asking it to write them until nothing waits.
   */
  flushNativeLater(t: number): void {
    const fwd = this.native?.fwd;
    if (!fwd || this.backlogTimer) return;
    this.backlogTimer = setInterval(() => {
      if (!this.running || fwd.flush(t)) {
        clearInterval(this.backlogTimer!);
        this.backlogTimer = null;
      }
    }, 10);
  }

  /** A control message is never dropped: it waits (in order) until the ring has room. */
  private control(m: ToRecorder, t: number): void {
    if (!this.running) return;
    const bytes = Buffer.from(JSON.stringify(m));
    if (this.native) {
      this.native.fwd.push(RING_CONTROL, t, bytes);
      return;
    }
    if (this.backlog.length === 0 && this.flushBacklog(t) && this.ring!.write(RING_CONTROL, t, bytes)) return;
    if (this.overflowRecord(RING_CONTROL, t, bytes)) return;
    this.backlog.push(bytes);
    this.retryLater(t);
  }

  /** Hands a copy of a forwarded chunk to the recorder. Call after the chunk was written on. */
  chunk(code: StreamCode, t: number, bytes: Buffer): void {
    if (!this.running) return;
    if (this.native) {
      this.native.fwd.push(code, t, bytes);
      return;
    }
    if (this.overflowFrom !== null || this.backlog.length > 0 || (this.dropped[0]! | this.dropped[1]! | this.dropped[2]!) !== 0) {
      if (this.ring!.free < RESUME_FREE_BYTES || !this.flushBacklog(t)) {
        if (!this.overflowRecord(code, t, bytes)) this.dropped[code]! += bytes.length;
        return;
      }
    }
    if (!this.ring!.write(code, t, bytes) && !this.overflowRecord(code, t, bytes)) this.dropped[code]! += bytes.length;
  }

  event(ev: string, t: number, data: Record<string, unknown>): void {
    this.control({ ev, t, data }, t);
  }

  eof(code: StreamCode, t: number): void {
    this.control({ eof: code, t }, t);
  }

  /**
   * Stops the recorder from starting SQLite calls and waits (blocking, at most `maxMs`) for the one in
   * progress to return. Call right before the process exits: a thread terminated inside better-sqlite3
   * aborts the whole process (exit 134 and a native stack trace instead of the agent's exit code).
   */
  quiesce(maxMs: number): void {
    // The native forwarder's threads may still be running (a leftover child writing): they must not
    // write into the ring while the process tears its memory down.
    this.native?.fwd.stopRecording();
    Atomics.store(this.guard, 1, 1);
    const until = Date.now() + maxMs;
    while (Atomics.load(this.guard, 0) === 1) {
      const left = until - Date.now();
      if (left <= 0) return;
      Atomics.wait(this.guard, 0, 1, left);
    }
  }

  /**
   * Finishes the recording; resolves when it is stored, or when the recorder made no progress for
   * `timeoutMs` (a recorder catching up on a backlog is given the time it needs while it advances).
   */
  async finish(code: number | null, signal: string | null, t: number, timeoutMs: number): Promise<void> {
    if (!this.running || this.finished) return this.done;
    this.finished = true;
    // Raised before the finish record is handed on: the recorder looks for it only once this is set.
    Atomics.store(this.guard, 3, 1);
    this.control({ finish: { code, signal, t } }, t);
    // Progress is the ring being read, or a burst captured earlier being indexed (guard slot 2).
    const position = () => this.ring!.readPosition + Atomics.load(this.guard, 2);
    let lastPos = position();
    let lastMove = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<void>((r) => {
      timer = setInterval(() => {
        const pos = position();
        if (pos !== lastPos) {
          lastPos = pos;
          lastMove = Date.now();
        } else if (Date.now() - lastMove >= timeoutMs) r();
      }, 100);
    });
    let stored = false;
    await Promise.race([this.done.then(() => { stored = true; }), stalled]);
    clearInterval(timer);
    if (!stored) {
      // Said once, so a recording left unfinished is never a surprise (it lists as interrupted).
      this.warnOnce(`recording not finished: the recorder made no progress for ${Math.round(timeoutMs / 1000)} s (machine busy or database stuck); it will be listed as interrupted`);
    }
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
function burstTuning(optimize: boolean): (indexing: boolean) => void {
  const { setFlagsFromString } = nodeV8();
  const grow = youngGeneration();
  let slices = 0;
  let optimizing = false;
  return (indexing) => {
    slices = indexing ? slices + 1 : 0;
    const burst = slices > GROW_AFTER_SLICES;
    grow(burst);
    if (optimize && burst !== optimizing) {
      optimizing = burst;
      try { setFlagsFromString(burst ? '--opt' : '--no-opt'); } catch { /* this V8 does not know the flag */ }
    }
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
