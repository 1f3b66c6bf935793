/**
 * The recorder: indexes a recording's capture log (capture-log.ts) into the database. An indexer
 * (log-indexer.ts: the intake, the line indexer and the live checker) makes the items, and the store
 * writer, here on the same thread, writes them in batches, each with how far the log is indexed
 * (store-writer.ts).
 *
 * It runs beside a live tap (on a worker thread beside the JavaScript forwarder, or on the tap's
 * main thread when the native forwarder's threads move the bytes), and in any process that finishes
 * a log its tap left (recover.ts): the same code, resuming where the database says indexing got.
 *
 * Failure policy: the session matters more than the recording. A database that cannot be opened or
 * written produces one warning; the recording is marked incomplete. Nothing here may throw into the
 * forwarder.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import type { FromRecorder, RecorderConfig } from '../messages.js';
import type { StoredFinding } from '../../store/store.js';
import { Guard } from './guard.js';
import { StoreWriter } from './store-writer.js';
import { LogIndexer } from './log-indexer.js';
import { HELP_BYTES, HELP_START_BYTES, Helper } from './helper.js';

/** Loaded only for --ui; a variable keeps the tap independent of the server at build time. */
const SERVER_MODULE = '../../server/index.js';

/**
 * The recorder's thread runs one step below normal CPU priority (nice 1): under contention the
 * agent, the client and the forwarding go slightly first. Linux priorities are per thread (threads
 * made later by this one inherit it); elsewhere this is a no-op. The bench finds the recorder by it.
 */
export const RECORDER_NICE = 1;
export function lowerPriority(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isSafeInteger(tid) && tid > 0) setPriority(tid, RECORDER_NICE);
  } catch { /* not Linux, or not allowed: run at normal priority */ }
}

export interface RecorderOptions {
  /** SQLite's busy timeout (ms): how long one write may wait for a database another process holds. */
  busyTimeoutMs: number;
  /** Called when a part of the recorder fails unexpectedly (a bug): recording stops, forwarding goes on. */
  onFatal(e: unknown): void;
  /** See IntakeHooks.indexing. */
  indexing?(active: boolean): void;
  /** A backlog was indexed by the helper (this thread only wrote it): see burstTuning in recorder-client.ts. */
  helped?(): void;
}

export interface Recorder {
  /** Resolves once the log is indexed to its end (the finish record, or a dead tap's last record), or stopped. */
  readonly done: Promise<void>;
  /** Look at the log now (the finish was written). */
  poke(): void;
  /** Bytes of the log not indexed yet. */
  readonly behind: number;
  /**
   * The tap exits before the log is all indexed: write what waits, with the agent's exit, let go of
   * the log (the next indexer goes on from there), and take nothing more.
   */
  handOff(code: number | null, signal: string | null): void;
}

export function startRecorder(config: RecorderConfig, send: (m: FromRecorder) => void, opts: RecorderOptions): Recorder {
  let closeUi: (() => Promise<void>) | null = null;
  /** Set once the tap handed the log on (handOff): nothing more is taken. */
  let stopped = false;
  let resolveDone!: () => void;
  const done = new Promise<void>((r) => (resolveDone = r));

  const guard = new Guard(config.guard);
  const shared = config.shared ? new BigInt64Array(config.shared, 0, 1) : null;
  /**
   * A live tap's second thread for a backlog (helper.ts), once one was large. Not with --otlp: the
   * live trace's spans are made here, from every item, and are not part of the state handed over.
   */
  let helper: Helper | null = null;
  let helpAllowed = shared !== null && !config.otlp && process.env.ACP_INSPECT_NO_HELPER !== '1';
  /** True while the helper indexes a backlog: the state here is not the log's (see help()). */
  let helping = false;
  const writer = new StoreWriter(config, guard, {
    send,
    inBurst: () => indexer.opened && (indexer.bursting || indexer.behind > 0),
    arriving: () => indexer.bursting,
    backlog: () => indexer.behind,
    lastTraffic: () => indexer.lastTraffic,
    indexedTo: () => (helping ? helper!.indexedTo : indexer.offset),
    state: () => (helping ? null : indexer.state()),
    onFatal: opts.onFatal,
    gone: () => {
      stopped = true;
      indexer.stop();
      helper?.stop();
    },
    written: (batches) => helper?.written(batches),
  }, opts.busyTimeoutMs);

  const indexer: LogIndexer = new LogIndexer(config, {
    onItem: (item, bytes, findings) => writer.add(item, bytes, findings),
    onPeer: (info) => writer.setPeer(info),
    onIncomplete: (reason) => writer.noteIncomplete(reason),
    send,
    warnOnce: (msg) => writer.warnOnce(msg),
    recordDone: () => writer.recordDone(),
    writerBlocked: () => writer.blocked,
    indexing: opts.indexing,
    delegate: (from, end) => delegate(from, end),
    flowing: () => guard.flowing(),
    ended: (code, signal, t, interrupted, last, trace) => finish(code, signal, t, interrupted, last, trace),
    fail: opts.onFatal,
    recordingId: () => writer.recordingId,
  }, config.resume);

  /** Ends the recording: its exit (or, for a tap that died, its last frame's time) and its status. */
  async function finish(code: number | null, signal: string | null, t: number, interrupted: boolean, last: StoredFinding[], trace: () => Promise<unknown> | null): Promise<void> {
    const deadline = Date.now() + 2500;
    const traceDone = trace();
    await writer.finish(code, signal, t, deadline, interrupted, last);
    if (traceDone) await traceDone;
    helper?.stop();
    if (closeUi) await closeUi().catch(() => undefined);
    send({ done: true });
    resolveDone();
  }

  const debug = !!process.env.ACP_INSPECT_DEBUG;
  const mib = (n: number) => (n / 1048576).toFixed(1);
  let largeBacklogSeen = false;

  /**
   * A backlog waits from `from` to `end` (see IntakeHooks.delegate). Once one is large the helper is
   * started (after a slice of it was indexed here: see below), and once it is ready, it indexes the
   * backlog while this thread writes its batches. The helper lives while a backlog waits: once this
   * thread is nearly caught up, or the helper handed back, it is stopped (its isolate's memory
   * given back), and the next large backlog starts another.
   */
  function delegate(from: number, end: number): Promise<number | null> | null {
    const behind = end - from;
    // Not with a line of megabytes in progress (see LineIndexer.small): its copies would cost more
    // than the helper saves. A flood of one unending line has no use for it.
    if (!helpAllowed || stopped || !indexer.small || behind < HELP_BYTES) {
      largeBacklogSeen = false;
      stopHelper();
      return null;
    }
    if (behind >= HELP_START_BYTES && largeBacklogSeen && !helper) {
      helper = new Helper(config, writer, send, () => opts.indexing?.(true));
      helper.start();
    }
    largeBacklogSeen = behind >= HELP_START_BYTES;
    if (!helper?.available) return null;
    return help(from, end);
  }

  function stopHelper(): void {
    if (!helper) return;
    // A worker that failed by itself: this session goes on on one thread.
    if (helper.broken !== null) {
      helpAllowed = false;
      if (debug) send({ info: `acp-inspect: debug: recorder: the second thread failed (${helper.broken}); this thread goes on alone` });
    }
    helper.stop();
    helper = null;
  }

  /**
   * Hands the log from `from` to the helper with the state here (the items made here are all with the
   * writer), and takes back the helper's state where it stopped: the indexer goes on from it, as an
   * indexer resuming a log does. Resolves with where the log is indexed up to.
   */
  async function help(from: number, end: number): Promise<number | null> {
    const state = indexer.state(true)!;
    const t0 = performance.now();
    if (debug) send({ info: `acp-inspect: debug: recorder: a backlog of ${mib(end - from)} MiB handed to a second thread` });
    helping = true;
    try {
      const back = await helper!.run({ indexed: from, state, storedSeq: indexer.lastSeq });
      if (stopped) return null;
      if (debug) send({ info: `acp-inspect: debug: recorder: the second thread indexed ${mib(back.offset - from)} MiB in ${Math.round(performance.now() - t0)} ms; back on this thread` });
      await indexer.adopt(back.state, back.lastSeq);
      opts.helped?.();
      return back.offset;
    } finally {
      helping = false;
      stopHelper();
    }
  }

  writer.openStore();
  if (!writer.failed && !indexer.open(config.resume?.indexed ?? 0, shared ? () => Number(Atomics.load(shared, 0)) : null)) {
    // The log went since this indexer took it: its recording was deleted (Store.deleteRecording).
    writer.close();
  }
  if (!indexer.opened) {
    send({ done: true });
    resolveDone();
  } else {
    indexer.run().then(() => {
      // The log ended without a finish record (its tap died): the recording is interrupted.
      if (stopped) resolveDone();
      else return indexer.endUnfinished();
    }).catch(opts.onFatal);
  }
  if (config.ui !== null && writer.open) {
    import(SERVER_MODULE)
      .then(async (mod: { startServer?: (o: { dbPath: string; port: number }) => Promise<{ url: string; close(): Promise<void> }> }) => {
        if (!mod.startServer) return;
        const srv = await mod.startServer({ dbPath: config.dbPath, port: config.ui! });
        closeUi = () => srv.close();
        send({ info: `acp-inspect: UI at ${srv.url}` });
      })
      .catch((e: Error) => send({ info: `acp-inspect: UI not started: ${e.message}` }));
  }

  return {
    done,
    poke: () => indexer.sessionOver(),
    get behind() { return indexer.behind; },
    handOff(code, signal) {
      if (stopped || indexer.finishing) return;
      stopped = true;
      indexer.stop();
      helper?.stop();
      writer.handOff(code, signal);
    },
  };
}
