/**
 * The making half of an indexer on two threads, on a worker thread: the indexer (recorder/log-indexer.ts,
 * the tap's recorder's own) reads the log's records and makes the items, and this packs their rows
 * (store/item-rows.ts) into batches, which the thread that opened the database writes while this
 * one makes the next. Batches end between two records, as the recorder's own do,
 * with the indexer's state every STATE_EVERY_BYTES of the log.
 *
 * Two uses. An indexer that finishes a capture log its tap left (split-recorder.ts): one job, from
 * where the database says indexing got to the log's end, and the recording finished. And a live
 * tap's helper (recorder/helper.ts): the tap's recorder hands it a backlog (a flood's) with its
 * state, and the helper indexes the log as it grows, as the recorder would, until it caught up (or
 * reached the tap's finish record, which it leaves), then hands back where it got and its state
 * there; it waits for the next job meanwhile.
 *
 * At most MAX_IN_FLIGHT batches are made ahead of the writer, and more than one only under
 * MAX_IN_FLIGHT_BYTES (batch-bounds.ts): the shared counters say how many wait and what they hold,
 * and the writer says "go" when one more may be made.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { RecorderConfig } from './messages.js';
import type { StoredFinding } from '../store/store.js';
import type { PackedBatch } from './recorder/store-writer.js';
import { RowPacker, keepArena, transferList } from '../store/item-rows.js';
import { LogIndexer } from './recorder/log-indexer.js';
import { LiveCheck } from './recorder/live-checker.js';
import { FLUSH_BYTES, HELPER_FLUSH_ITEMS, INDEX_FLUSH_ITEMS, STATE_EVERY_BYTES, batchKiB, inFlightFull } from './recorder/batch-bounds.js';

/** What the worker tells the thread that writes. */
export type FromIndexWorker =
  | { batch: PackedBatch }
  | { warn: string }
  | { info: string }
  | { finish: { code: number | null; signal: string | null; t: number; interrupted: boolean; last: StoredFinding[] } }
  /** The log went before this could open it: its recording was deleted (Store.deleteRecording). */
  | { gone: true }
  | { failed: string }
  /** A helper is ready for jobs: the checker's modules are loaded. */
  | { ready: true }
  /**
   * A helper's job is over: the log is indexed up to `offset` (the items up to `lastSeq` made), and
   * `state` is the indexer's state there, whole (a SavedState), for the recorder to go on from.
   */
  | { back: { offset: number; state: string; lastSeq: number } };

/** Where a job starts: as RecorderConfig.resume, without the recording. */
export interface JobStart {
  indexed: number;
  state: string | null;
  storedSeq: number;
}

/**
 * What the thread that writes tells the worker: there is room for more, a written batch's arena to
 * pack into again, or (a helper) a job. It terminates the worker to stop it.
 */
export type ToIndexWorker = 'go' | { arena: ArrayBuffer } | { job: JobStart };

// Tests make the worker fail at its start, to see the indexer go on without it (see recover.ts).
if (process.env.ACP_INSPECT_TEST_INDEX_WORKER_FAILS === '1') throw new Error('the index worker failed (ACP_INSPECT_TEST_INDEX_WORKER_FAILS)');

const { config, link, committed } = workerData as { config: RecorderConfig; link: SharedArrayBuffer; committed?: SharedArrayBuffer };
const port = parentPort!;
/** [0]: batches in flight, [1]: the KiB they hold (this adds, the writer subtracts). */
const inFlight = new Int32Array(link, 0, 2);
/** A helper's: how far its tap's log holds whole records. */
const tail = committed ? new BigInt64Array(committed, 0, 1) : null;

const send = (m: FromIndexWorker, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);
const fail = (e: unknown) => send({ failed: (e as Error)?.message ?? String(e) });

let warned = false;
function warnOnce(msg: string): void {
  if (warned) return;
  warned = true;
  send({ warn: msg });
}

/** Arenas of written batches, to pack the next ones into (see BatchLink). */
const spare: ArrayBuffer[] = [];

/** The indexer of the job at work, if any (the writer's "go" wakes it). */
let current: LogIndexer | null = null;

/**
 * One job: indexes the log from `from`. A helper's job ends when it caught up with the log, or at
 * the tap's finish record; any other ends at the log's end, finishing the recording.
 */
async function runJob(from: JobStart | undefined): Promise<void> {
  const helper = tail !== null;
  /** A helper's job: where it stops (the start of the tap's finish record, left to the tap's recorder). */
  let stopAt: number | null = null;
  const packer = new RowPacker(spare);
  let findings: StoredFinding[] = [];
  let peer: Record<string, unknown> | null = null;
  let incomplete: string | null = null;
  let stateSavedAt = from?.indexed ?? 0;

  /**
   * Hands what was made since the last batch to the writer; `offset`: where the log is indexed up to
   * then. The state goes with it every STATE_EVERY_BYTES, or always (`'always'`) when it can.
   */
  const post = (offset: number, withState: boolean | 'always'): void => {
    const rows = packer.take();
    let state: string | null = null;
    if (withState === 'always' || (withState && offset - stateSavedAt >= STATE_EVERY_BYTES)) {
      state = indexer.state();
      if (state !== null) stateSavedAt = offset;
    }
    if (!rows && findings.length === 0 && state === null && !peer && !incomplete) return;
    Atomics.add(inFlight, 1, batchKiB(rows));
    Atomics.add(inFlight, 0, 1);
    send({ batch: { rows, findings, offset, state, peer, incomplete } }, rows ? transferList(rows) : []);
    findings = [];
    peer = null;
    incomplete = null;
  };

  const indexer: LogIndexer = new LogIndexer(config, {
    onItem: (item, _bytes, found) => {
      packer.add(item);
      for (const f of found) findings.push(f);
    },
    onPeer: (info) => { peer = { ...peer, ...info }; },
    onIncomplete: (reason) => { incomplete ??= reason; },
    send: (m) => { if ('info' in m) send({ info: m.info }); },
    warnOnce,
    recordDone: (offset) => {
      if (stopAt === null && (packer.count >= (helper ? HELPER_FLUSH_ITEMS : INDEX_FLUSH_ITEMS) || packer.bytes >= FLUSH_BYTES)) post(offset, true);
    },
    writerBlocked: () => inFlightFull(Atomics.load(inFlight, 0), Atomics.load(inFlight, 1)),
    // A helper's job is over once a slice caught up with the log, between two lines (a line in
    // progress of megabytes, a flood's unending one, stays here rather than be copied to the tap's recorder).
    indexing: helper ? (active) => { if (!active && indexer.small) indexer.stop(); } : undefined,
    // The tap's recorder takes its finish: the record is not indexed here.
    leaveFinish: () => {
      if (!helper) return false;
      stopAt = indexer.offset;
      return true;
    },
    /**
     * The end of the log: the streams' last lines and the exit item (or, for a tap that died, its last
     * frame's time), then the checker's last findings; the writer finishes the recording with them. The
     * last batch saves no state: the recording is finished in the next transaction.
     */
    ended: async (code, signal, t, interrupted, last, trace) => {
      post(indexer.offset, false);
      const traceDone = trace();
      if (traceDone) await traceDone;
      send({ finish: { code, signal, t, interrupted, last } });
    },
    fail,
    recordingId: () => config.resume?.recordingId ?? null,
  }, from);

  if (!indexer.open(from?.indexed ?? 0, tail ? () => Number(Atomics.load(tail, 0)) : null)) {
    send({ gone: true });
    return;
  }
  current = indexer;
  await indexer.run();
  current = null;
  if (helper) {
    const offset = stopAt ?? indexer.offset;
    post(offset, 'always');
    send({ back: { offset, state: indexer.state(true)!, lastSeq: indexer.lastSeq } });
  } else {
    // The log ended without a finish record (its tap died): the recording is interrupted.
    await indexer.endUnfinished();
  }
}

port.on('message', (m: ToIndexWorker) => {
  if (m === 'go') current?.lookNow();
  else if ('arena' in m) keepArena(spare, m.arena);
  else if (tail && !current) runJob(m.job).catch(fail);
});

if (tail) {
  // A helper loads the checker's modules now, while the tap's recorder goes on: a job then starts at once.
  new LiveCheck(config, () => undefined).load().then(() => send({ ready: true }), fail);
} else {
  runJob(config.resume).catch(fail);
}
