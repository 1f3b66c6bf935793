/**
 * The recorder: indexes a recording's capture log (capture-log.ts) into the database. Four parts,
 * wired here: the intake reads the log's records in order (intake.ts), the line indexer turns them
 * into items (lines.ts), the live checker folds each item in (live-checker.ts), and the store writer
 * writes them in batches, each with how far the log is indexed (store-writer.ts).
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
import type { FromRecorder, RecorderConfig, ToRecorder } from '../messages.js';
import { Guard } from './guard.js';
import { StoreWriter } from './store-writer.js';
import { LineIndexer } from './lines.js';
import { LiveCheck, indexerState, type SavedState } from './live-checker.js';
import { Intake } from './intake.js';
import { HELP_BYTES, HELP_START_BYTES, Helper } from './helper.js';
import type { Item } from '../../wire/frame.js';

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
  /** Set once the live checker is loaded: until then records wait in the log. */
  let ready = false;
  /** Set once the finish is received: nothing more is taken. */
  let finishing = false;
  let closeUi: (() => Promise<void>) | null = null;
  /** Set once the tap handed the log on (handOff): nothing more is taken. */
  let stopped = false;
  let resolveDone!: () => void;
  const done = new Promise<void>((r) => (resolveDone = r));

  const guard = new Guard(config.guard);
  const shared = config.shared ? new BigInt64Array(config.shared, 0, 1) : null;
  let intake: Intake | null = null;
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
    inBurst: () => intake !== null && (intake.bursting || intake.behind > 0),
    arriving: () => intake !== null && intake.bursting,
    backlog: () => intake?.behind ?? 0,
    lastTraffic: () => intake?.lastTraffic ?? 0,
    indexedTo: () => (helping ? helper!.indexedTo : intake?.offset ?? 0),
    state: () => {
      return helping ? null : indexerState(lines, live);
    },
    onFatal: opts.onFatal,
    gone: () => {
      stopped = true;
      intake?.stop();
      helper?.stop();
    },
    written: (batches) => helper?.written(batches),
  }, opts.busyTimeoutMs);
  let live = new LiveCheck(config, send);
  const lineHooks = {
    onItem: (item: Item, bytes: number, chunk?: number) => writer.add(item, bytes, live.step(item, chunk)),
    // Its findings were stored with it.
    onStored: (item: Item, chunk?: number) => live.step(item, chunk),
    onPeer: (info: Record<string, unknown>) => writer.setPeer(info),
    onIncomplete: (reason: string) => writer.noteIncomplete(reason),
  };
  let lines = new LineIndexer(config, lineHooks);
  const resume = config.resume;
  const saved = resume?.state ? JSON.parse(resume.state) as SavedState : null;
  if (resume) lines.restore(saved, resume.storedSeq);

  function receive(m: ToRecorder): void {
    if (finishing) return;
    if (!Array.isArray(m) && 'finish' in m) {
      finishing = true;
      const { code, signal, t } = m.finish;
      finish(code, signal, t, false).catch(opts.onFatal);
      return;
    }
    try {
      lines.handle(m);
    } catch (e) {
      writer.warnOnce(`recorder error: ${(e as Error).message}; forwarding continues`);
    }
  }

  /** Ends the recording: its exit (or, for a tap that died, its last frame's time) and its status. */
  async function finish(code: number | null, signal: string | null, exitT: number, interrupted: boolean): Promise<void> {
    const deadline = Date.now() + 2500;
    const t = !interrupted ? lines.end(code, signal, exitT) : config.handedOn ? lines.endCut() : lines.endInterrupted();
    const last = live.end();
    const traceDone = live.finish(t, writer.recordingId);
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
    if (!helpAllowed || stopped || !lines.small || behind < HELP_BYTES) {
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
   * writer), and takes back the helper's state where it stopped: the line indexer and the checker
   * go on from it, as an indexer resuming a log does. Resolves with where the log is indexed up to.
   */
  async function help(from: number, end: number): Promise<number | null> {
    const state = indexerState(lines, live, true)!;
    const t0 = performance.now();
    if (debug) send({ info: `acp-inspect: debug: recorder: a backlog of ${mib(end - from)} MiB handed to a second thread` });
    helping = true;
    try {
      const back = await helper!.run({ indexed: from, state, storedSeq: lines.lastSeq });
      if (stopped) return null;
      if (debug) send({ info: `acp-inspect: debug: recorder: the second thread indexed ${mib(back.offset - from)} MiB in ${Math.round(performance.now() - t0)} ms; back on this thread` });
      const saved = JSON.parse(back.state) as SavedState;
      lines = new LineIndexer(config, lineHooks);
      lines.restore(saved, back.lastSeq);
      const checker = new LiveCheck(config, send);
      await checker.load(saved.checker);
      live = checker;
      opts.helped?.();
      return back.offset;
    } finally {
      helping = false;
      stopHelper();
    }
  }

  /**
   * Loads the live checker (its modules and schemas cost a few hundred ms of CPU) once the log is
   * quiet or the session is over, so it does not compete with the agent's start-up; records wait in
   * the log meanwhile, so its findings see every item in order. A resumed indexer's checker goes on
   * from the state saved with the line indexer's (from the start when none was saved).
   */
  let checkerLoading = false;
  function startChecker(): void {
    if (checkerLoading) return;
    checkerLoading = true;
    live.load(saved?.checker).then(() => {
      ready = true;
      // Not sessionOver(): a burst arriving later would then be indexed as it arrives, competing
      // with the agent and the client for the CPU.
      intake?.lookNow();
    }).catch(opts.onFatal);
  }

  writer.openStore();
  if (!writer.failed) {
    try {
      intake = new Intake(config.capture.path, resume?.indexed ?? 0, shared ? () => Number(Atomics.load(shared, 0)) : null, {
        receive,
        recordDone: () => writer.recordDone(),
        finishing: () => finishing,
        ready: () => ready,
        startChecker,
        writerBlocked: () => writer.blocked,
        warnOnce: (msg) => writer.warnOnce(msg),
        indexing: opts.indexing,
        delegate,
      });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      // The log went since this indexer took it: its recording was deleted (Store.deleteRecording).
      writer.close();
    }
  }
  if (!intake) {
    send({ done: true });
    resolveDone();
  } else {
    intake.run().then(() => {
      // The log ended without a finish record (its tap died): the recording is interrupted.
      if (!finishing && !stopped) {
        finishing = true;
        return finish(null, null, lines.lastT, true);
      }
      if (stopped) resolveDone();
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
    poke: () => intake?.sessionOver(),
    get behind() { return intake?.behind ?? 0; },
    handOff(code, signal) {
      if (stopped || finishing) return;
      stopped = true;
      intake?.stop();
      helper?.stop();
      writer.handOff(code, signal);
    },
  };
}
