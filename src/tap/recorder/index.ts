/**
 * The recorder: takes what the forwarder hands on (the shared ring and its overflow file) and
 * records it. Four parts, wired here: the intake takes records off the ring and the overflow file
 * in order (intake.ts), the line indexer turns them into items (lines.ts), the live checker folds
 * each item in (live-checker.ts), and the store writer writes them in batches (store-writer.ts).
 *
 * It runs where the forwarding does not: on a worker thread beside the JavaScript forwarder
 * (recorder-worker.ts), or on the tap's main thread when the native forwarder's threads move the
 * bytes (the main thread then has nothing else to do but the agent's stderr, and a second V8
 * isolate would only cost memory).
 *
 * Failure policy: the session matters more than the recording. A database that cannot be opened or
 * written produces one warning; the recording is marked incomplete and the data that could not be
 * written is counted as a gap. Nothing here may throw into the forwarder.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import type { FromRecorder, RecorderConfig, ToRecorder } from '../messages.js';
import { RingReader } from '../ring.js';
import { Guard } from './guard.js';
import { StoreWriter } from './store-writer.js';
import { LineIndexer } from './lines.js';
import { LiveCheck } from './live-checker.js';
import { Intake, pipeWaker } from './intake.js';

/** Loaded only for --ui; a variable keeps the tap independent of the server at build time. */
const SERVER_MODULE = '../../server/index.js';

/**
 * The recorder's thread runs one step below normal CPU priority (nice 1): under contention the
 * agent, the client and the forwarding go slightly first. It is not lower because during a burst the
 * recorder must still capture as fast as bytes arrive (capture is cheap: see intake.ts) or the ring
 * overflows into a gap; the expensive per-frame work is what waits for the burst to end. Linux
 * priorities are per thread (threads made later by this one inherit it); elsewhere this is a no-op.
 * The bench finds the recorder worker by this value.
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
}

export interface Recorder {
  /** A message from the forwarder that did not come through the ring. */
  post(m: ToRecorder): void;
}

export function startRecorder(config: RecorderConfig, send: (m: FromRecorder) => void, opts: RecorderOptions): Recorder {
  /** Set once the live checker is loaded: until then, messages wait in `early` (or captured, in order). */
  let ready = false;
  /** Set once the finish is received: nothing more is taken. */
  let finishing = false;
  const early: ToRecorder[] = [];
  let closeUi: (() => Promise<void>) | null = null;

  const guard = new Guard(config.guard);
  const reader = config.ring ? new RingReader(config.ring, config.wakeFd !== undefined ? pipeWaker(config.wakeFd) : null) : null;
  let intake: Intake | null = null;
  const writer = new StoreWriter(config, guard, {
    send,
    inBurst: () => intake !== null && (intake.captured || intake.bursting),
    arriving: () => intake !== null && intake.bursting,
    ringUsed: () => reader?.used ?? 0,
    lastTraffic: () => intake?.lastTraffic ?? 0,
    onFatal: opts.onFatal,
  }, opts.busyTimeoutMs);
  const live = new LiveCheck(config, send);
  const lines = new LineIndexer(config, {
    onItem: (item, bytes, chunk) => writer.add(item, bytes, live.step(item, chunk)),
    onPeer: (info) => writer.setPeer(info),
    onIncomplete: (reason) => writer.noteIncomplete(reason),
  });

  function receive(m: ToRecorder): void {
    if (finishing) return;
    if (!Array.isArray(m) && 'finish' in m) {
      finishing = true;
      const { code, signal, t } = m.finish;
      finish(code, signal, t).catch(opts.onFatal);
      return;
    }
    try {
      lines.handle(m);
    } catch (e) {
      writer.warnOnce(`recorder error: ${(e as Error).message}; forwarding continues`);
    }
  }

  async function finish(code: number | null, signal: string | null, exitT: number): Promise<void> {
    // Bounded (each try may wait out the busy timeout), so a final warning still reaches the user
    // before the forwarding thread stops waiting for us (6 s without progress).
    const deadline = Date.now() + 2500;
    const t = lines.end(code, signal, exitT);
    writer.addFindings(live.end());
    guard.progressed();
    // The last spans go out while the database is finished (bounded: see startLiveTrace).
    const traceDone = live.finish(t, writer.recordingId);
    await writer.finish(code, signal, exitT, deadline);
    if (traceDone) await traceDone;
    if (closeUi) await closeUi().catch(() => undefined);
    send({ done: true });
  }

  /**
   * Loads the live checker (its modules and schemas cost a few hundred ms of CPU) once the ring is
   * quiet or the session is over, so it does not compete with the agent's start-up. Until it is
   * loaded, everything is captured, so its findings see every item in order. A burst that arrives
   * while it loads waits in the ring, and past the ring in the forwarder's overflow file.
   */
  let checkerLoading = false;
  function startChecker(): void {
    if (checkerLoading) return;
    checkerLoading = true;
    live.load().then(() => {
      ready = true;
      for (const m of early.splice(0)) receive(m);
    }).catch(opts.onFatal);
  }

  // Drain first (a burst at start-up is captured), then open the database.
  if (reader) {
    intake = new Intake(reader, guard, {
      receive,
      finishing: () => finishing,
      ready: () => ready,
      startChecker,
      storeFailed: () => writer.failed,
      writerBlocked: () => writer.blocked,
      giveUp: () => writer.giveUp(),
      warnOnce: (msg) => writer.warnOnce(msg),
      indexing: opts.indexing,
    }, config.finishWaitMs);
    intake.start().catch(opts.onFatal);
  } else startChecker();
  writer.openStore();
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
    post(m: ToRecorder): void {
      if (!ready) early.push(m);
      else receive(m);
    },
  };
}
