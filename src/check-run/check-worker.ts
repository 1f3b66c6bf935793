/**
 * The checking thread of `acp-inspect check` on a large file (see parallel.ts): receives the rules to
 * ignore, then batches of
 * read lines in order, turns them into Items, correlates and folds them through the checker, and
 * counts the batches done in shared memory so the reader stays a bounded distance ahead. The findings
 * go into a spool (finding-spool.ts), whose state it sends at the end with the counts.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { isFrame } from '../wire/frame.js';
import { Correlator } from '../wire/correlate.js';
import { type CheckWorkerData, DONE, type LineBatch, LineRing, type RowBatch, unpackLines, unpackRows, WANT } from './batch.js';
import type { ItemRow } from '../store/store.js';
import { CheckFold } from '../check/fold.js';
import { FindingSpool, type SpoolState } from './finding-spool.js';
import { usePrebuiltValidators } from './validators.js';
import type { ChunkKind } from '../wire/chunk-frame.js';
import { decodeLatin1Utf8 } from '../wire/line-splitter.js';

export type ToWorker = { ignore: string[] } | { batch: LineBatch } | { rows: RowBatch } | { end: true };
export type FromWorker = { run: { items: number; frames: number; notStarted?: string; spool: SpoolState } };
const port = parentPort!;
const data = workerData as CheckWorkerData;
const counters = new Int32Array(data.counters);
const ring = data.ring && new LineRing(data.ring.slots, data.ring.slotBytes, data.ring.memory);
// The store (and its native SQLite module) only when rows come: a file's check never needs it. (By
// URL, so that the bundle of this worker, beside it, leaves the store out and loads it the same way.)
const STORE = new URL('../store/store.js', import.meta.url).href;
await usePrebuiltValidators();
const rowToItem = data.rows ? (await (import(STORE) as Promise<typeof import('../store/store.js')>)).rowToItem : undefined;
let fold: CheckFold;
const spool = new FindingSpool(undefined, { file: data.spool });
const correlator = new Correlator();
/** The chunk kind of the row read last (see itemOf). */
const chunk: ChunkKind = { update: -1 };
let done = 0;

port.on('message', (m: ToWorker) => {
  if ('ignore' in m) {
    fold = new CheckFold(m.ignore, (f) => spool.add(f));
  } else if ('batch' in m || 'rows' in m) {
    if ('batch' in m) {
      unpackLines(m.batch, (item, chunk) => {
        if (chunk >= 0) fold.step(item, chunk); // a notification: nothing to correlate
        else {
          if (isFrame(item)) correlator.observe(item);
          fold.step(item);
        }
      }, ring);
    } else unpackRows<ItemRow>(m.rows, (row, bytes) => fold.step(rowToItem!(row, chunk, bytes ? decodeLatin1Utf8 : undefined), chunk.update));
    Atomics.store(counters, DONE, ++done);
    if (done >= Atomics.load(counters, WANT)) Atomics.notify(counters, DONE);
  } else {
    port.postMessage({ run: { ...fold.finish(), spool: spool.state() } } satisfies FromWorker);
    port.close();
  }
});
