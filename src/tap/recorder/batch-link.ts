/**
 * The writing thread's end of its link with the worker that makes its batches (index-worker.ts): how
 * many batches are in flight and the KiB they hold (shared counters the worker reads before it makes
 * one more: see inFlightFull), and each written batch's byte arena sent back to the worker, which
 * packs the next batches into it. A new arena for every batch left the dead ones to V8's rare full
 * collections: the tap's helper held about 100 MiB more than it needed while it indexed a flood.
 */
import type { Worker } from 'node:worker_threads';
import type { PackedBatch } from './store-writer.js';
import type { ToIndexWorker } from '../index-worker.js';
import { batchKiB, inFlightFull } from './batch-bounds.js';

export class BatchLink {
  /** [batches in flight, the KiB they hold]: the worker adds, this subtracts. */
  readonly shared = new SharedArrayBuffer(8);
  private readonly inFlight = new Int32Array(this.shared);
  worker: Worker | null = null;

  /** The writer wrote (or gave up) these batches: room for more, and their arenas go back. */
  written(batches: PackedBatch[]): void {
    const { inFlight, worker } = this;
    const full = inFlightFull(Atomics.load(inFlight, 0), Atomics.load(inFlight, 1));
    Atomics.sub(inFlight, 1, batches.reduce((a, b) => a + batchKiB(b.rows), 0));
    Atomics.sub(inFlight, 0, batches.length);
    for (const b of batches) {
      if (b.rows) worker?.postMessage({ arena: b.rows.arena } satisfies ToIndexWorker, [b.rows.arena]);
    }
    // The worker waited for room: it looks again.
    if (full) worker?.postMessage('go' satisfies ToIndexWorker);
  }
}
