/**
 * The making half of an indexer that finishes a capture log its tap left (see split-recorder.ts), on
 * a worker thread: reads the log's records (intake.ts), turns them into items (lines.ts), folds each
 * into the checker (live-checker.ts) and packs their rows (store/item-rows.ts) into batches, which
 * the thread that opened the database writes while this one makes the next. Batches end between two
 * records, as the recorder's own do, with the indexer's state every STATE_EVERY_BYTES of the log.
 *
 * At most MAX_IN_FLIGHT batches are made ahead of the writer, and more than one only under
 * MAX_IN_FLIGHT_BYTES (batch-bounds.ts): the shared counters say how many wait and what they hold,
 * and the writer says "go" when one more may be made.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { RecorderConfig, ToRecorder } from './messages.js';
import type { StoredFinding } from '../store/store.js';
import type { PackedBatch } from './recorder/store-writer.js';
import { RowPacker, transferList } from '../store/item-rows.js';
import { LineIndexer, type IndexState } from './recorder/lines.js';
import { LiveCheck } from './recorder/live-checker.js';
import { Intake } from './recorder/intake.js';
import { FLUSH_BYTES, INDEX_FLUSH_ITEMS, STATE_EVERY_BYTES, batchKiB, inFlightFull } from './recorder/batch-bounds.js';
import type { CheckerSnapshot } from '../check/checker.js';

/** What the worker tells the thread that writes. */
export type FromIndexWorker =
  | { batch: PackedBatch }
  | { warn: string }
  | { info: string }
  | { finish: { code: number | null; signal: string | null; t: number; interrupted: boolean; last: StoredFinding[] } }
  /** The log went before this could open it: its recording was deleted (Store.deleteRecording). */
  | { gone: true }
  | { failed: string };

/** What the thread that writes tells the worker: there is room for more (it terminates the worker to stop it). */
export type ToIndexWorker = 'go';

interface SavedState extends IndexState {
  checker?: CheckerSnapshot | null;
}

// Tests make the worker fail at its start, to see the indexer go on without it (see recover.ts).
if (process.env.ACP_INSPECT_TEST_INDEX_WORKER_FAILS === '1') throw new Error('the index worker failed (ACP_INSPECT_TEST_INDEX_WORKER_FAILS)');

const { config, link } = workerData as { config: RecorderConfig; link: SharedArrayBuffer };
const port = parentPort!;
/** [0]: batches in flight, [1]: the KiB they hold (this adds, the writer subtracts). */
const inFlight = new Int32Array(link, 0, 2);

const send = (m: FromIndexWorker, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);
const fail = (e: unknown) => send({ failed: (e as Error)?.message ?? String(e) });

let finishing = false;
let ready = false;
let checkerLoading = false;
let warned = false;
const packer = new RowPacker();
let findings: StoredFinding[] = [];
let peer: Record<string, unknown> | null = null;
let incomplete: string | null = null;
let stateSavedAt = config.resume?.indexed ?? 0;

const live = new LiveCheck(config, (m) => { if ('info' in m) send({ info: m.info }); });
const lines = new LineIndexer(config, {
  onItem: (item, _bytes, chunk) => {
    const found = live.step(item, chunk);
    packer.add(item);
    for (const f of found) findings.push(f);
  },
  onStored: (item, chunk) => live.step(item, chunk),
  onPeer: (info) => { peer = { ...peer, ...info }; },
  onIncomplete: (reason) => { incomplete ??= reason; },
});
const resume = config.resume;
const saved = resume?.state ? JSON.parse(resume.state) as SavedState : null;
if (resume) lines.restore(saved, resume.storedSeq);

function warnOnce(msg: string): void {
  if (warned) return;
  warned = true;
  send({ warn: msg });
}

/** Hands what was made since the last batch to the writer; `offset`: where the log is indexed up to then. */
function post(offset: number, withState: boolean): void {
  const rows = packer.take();
  let state: string | null = null;
  if (withState && offset - stateSavedAt >= STATE_EVERY_BYTES) {
    const s = lines.snapshot();
    if (s) {
      state = JSON.stringify({ ...s, checker: live.snapshot() } satisfies SavedState);
      stateSavedAt = offset;
    }
  }
  if (!rows && findings.length === 0 && state === null && !peer && !incomplete) return;
  Atomics.add(inFlight, 1, batchKiB(rows));
  Atomics.add(inFlight, 0, 1);
  send({ batch: { rows, findings, offset, state, peer, incomplete } }, rows ? transferList(rows) : []);
  findings = [];
  peer = null;
  incomplete = null;
}

function receive(m: ToRecorder): void {
  if (finishing) return;
  if (!Array.isArray(m) && 'finish' in m) {
    finishing = true;
    const { code, signal, t } = m.finish;
    end(code, signal, t, false).catch(fail);
    return;
  }
  try {
    lines.handle(m);
  } catch (e) {
    warnOnce(`recorder error: ${(e as Error).message}; forwarding continues`);
  }
}

/**
 * The end of the log: the streams' last lines and the exit item (or, for a tap that died, its last
 * frame's time), then the checker's last findings; the writer finishes the recording with them. The
 * last batch saves no state: the recording is finished in the next transaction.
 */
async function end(code: number | null, signal: string | null, exitT: number, interrupted: boolean): Promise<void> {
  const t = interrupted ? lines.endInterrupted() : lines.end(code, signal, exitT);
  const last = live.end();
  post(intake?.offset ?? 0, false);
  const traceDone = live.finish(t, resume?.recordingId ?? null);
  if (traceDone) await traceDone;
  send({ finish: { code, signal, t, interrupted, last } });
}

function openIntake(): Intake | null {
  try {
    return new Intake(config.capture.path, resume?.indexed ?? 0, null, {
      receive,
      recordDone: (offset) => {
        if (packer.count >= INDEX_FLUSH_ITEMS || packer.bytes >= FLUSH_BYTES) post(offset, true);
      },
      finishing: () => finishing,
      ready: () => ready,
      startChecker: () => {
        if (checkerLoading) return;
        checkerLoading = true;
        live.load(saved?.checker).then(() => {
          ready = true;
          intake?.lookNow();
        }).catch(fail);
      },
      writerBlocked: () => inFlightFull(Atomics.load(inFlight, 0), Atomics.load(inFlight, 1)),
      warnOnce,
    });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    return null;
  }
}

const intake = openIntake();
if (!intake) {
  send({ gone: true });
} else {
  port.on('message', (m: ToIndexWorker) => {
    if (m === 'go') intake.lookNow();
  });
  intake.run().then(async () => {
    // The log ended without a finish record (its tap died): the recording is interrupted.
    if (!finishing) {
      finishing = true;
      await end(null, null, lines.lastT, true);
    }
  }).catch(fail);
}
