/**
 * `acp-inspect check` on a large transcript file, over two threads: this thread reads the file,
 * splits and parses its lines (the transcript JSON) and hands them on in batches of transferable
 * buffers; a worker (check-worker.ts) parses each frame's own JSON and runs the checker's fold, in
 * the same order and with the same seq numbers as the one-thread path. The reader stays at most
 * AHEAD batches in front, so memory stays bounded whatever the file size.
 */
import { Worker } from 'node:worker_threads';
import { readTranscriptFile } from '../transcript/read-file.js';
import { type CheckWorkerData, DONE, packLines, WANT } from './batch.js';
import type { CheckRun } from './fold.js';
import type { FromWorker, ToWorker } from './check-worker.js';

/** Batches (one per 1 MiB read) the reader may be ahead of the checker. */
const AHEAD = 8;
const NOBODY_WAITS = 0x7fffffff;

export async function checkFileParallel(file: string, ignore: string[]): Promise<CheckRun> {
  const counters = new Int32Array(new SharedArrayBuffer(8));
  counters[WANT] = NOBODY_WAITS;
  const worker = new Worker(new URL('./check-worker.js', import.meta.url), { workerData: { ignore, counters: counters.buffer as SharedArrayBuffer } satisfies CheckWorkerData});
  let run: CheckRun | undefined;
  let failure: Error | undefined;
  let exited = false;
  let wake: (() => void) | undefined;
  worker.on('message', (m: FromWorker) => {
    run = m.run;
    wake?.();
  });
  worker.on('error', (e) => {
    failure = e;
    wake?.();
  });
  worker.on('exit', () => {
    exited = true;
    wake?.();
  });
  const healthy = (): void => {
    if (failure) throw new Error(`the checking thread failed: ${failure.message}`);
    if (exited && run === undefined) throw new Error('the checking thread stopped before the end of the recording');
  };
  try {
    let sent = 0;
    for (const lines of readTranscriptFile(file)) {
      const { batch, transfer } = packLines(lines);
      worker.postMessage({ batch } satisfies ToWorker, transfer);
      sent++;
      if (sent - Atomics.load(counters, DONE) >= AHEAD) {
        // Far enough ahead: sleep until the worker has caught up half way (one wake-up, no messages).
        const want = sent - AHEAD / 2;
        Atomics.store(counters, WANT, want);
        for (;;) {
          const done = Atomics.load(counters, DONE);
          if (done >= want) break;
          if (Atomics.wait(counters, DONE, done, 100) === 'timed-out') {
            await new Promise((r) => setImmediate(r)); // lets a failed worker's events in
            healthy();
          }
        }
        Atomics.store(counters, WANT, NOBODY_WAITS);
      }
    }
    worker.postMessage({ end: true } satisfies ToWorker);
    while (run === undefined) {
      healthy();
      await new Promise<void>((r) => (wake = r));
      wake = undefined;
    }
    return run;
  } finally {
    if (run === undefined) void worker.terminate();
  }
}
