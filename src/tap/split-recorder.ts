/**
 * An indexer on two threads, for a capture log whose tap is gone (recover.ts): a worker makes the
 * batches (reading the log, splitting lines, parsing, checking, packing rows: index-worker.ts) while
 * this thread writes them into SQLite (store-writer.ts), each batch in its own transaction with the
 * state the worker saved with it, exactly as the tap's recorder writes its own. On a 1 KiB flood
 * SQLite's inserts are about three quarters of an indexer's time and the making the rest: the two
 * overlap (a 1 GiB flood's last row stored 5.7-6.5 s after its end instead of 7.6-9.2 s).
 *
 * A live tap's recorder runs the same worker as its helper for a backlog (recorder/helper.ts), and
 * writes its batches itself.
 */
import { statSync } from 'node:fs';
import type { Worker as WorkerType } from 'node:worker_threads';
import type { FromRecorder, RecorderConfig } from './messages.js';
import type { FromIndexWorker } from './index-worker.js';
import { StoreWriter } from './recorder/store-writer.js';
import { Guard } from './recorder/guard.js';
import { BatchLink } from './recorder/batch-link.js';
import { lazyRequire } from './agent.js';

/**
 * The worker's entry, relative to this module and to the CLI's bundle (one folder below dist/src as
 * this module is), hence through the folder's name.
 */
const INDEX_WORKER = '../tap/index-worker.js';

export interface SplitRecorderOptions {
  /** SQLite's busy timeout (ms): how long one write may wait for a database another process holds. */
  busyTimeoutMs: number;
  /** Called when a part of the indexer fails unexpectedly (a bug); indexing stops, to resume at the next open. */
  onFatal(e: unknown): void;
}

/** Indexes a finished capture log (config.resume says where to start) to its end; `done` resolves then, or once stopped. */
export function startSplitRecorder(config: RecorderConfig, send: (m: FromRecorder) => void, opts: SplitRecorderOptions): { done: Promise<void> } {
  let resolveDone!: () => void;
  const done = new Promise<void>((r) => (resolveDone = r));
  const link = new BatchLink();
  let size = 0;
  try { size = statSync(config.capture.path).size; } catch { /* gone: the worker says so */ }
  /** Where the log is indexed up to, as the batches received say. */
  let indexedTo = config.resume?.indexed ?? 0;
  let worker: WorkerType | null = null;
  let finishing = false;
  let over = false;
  const end = () => {
    if (over) return;
    over = true;
    void worker?.terminate();
    resolveDone();
  };
  const fatal = (e: unknown) => {
    if (over) return;
    opts.onFatal(e);
    writer.close();
    end();
  };
  const writer = new StoreWriter(config, new Guard(undefined), {
    send,
    inBurst: () => indexedTo < size,
    arriving: () => false,
    backlog: () => Math.max(0, size - indexedTo),
    lastTraffic: () => 0,
    indexedTo: () => indexedTo,
    state: () => null,
    onFatal: fatal,
    gone: end,
    written: (batches) => link.written(batches),
  }, opts.busyTimeoutMs);

  // The worker starts first: its start (a V8 isolate, the checker's modules: about 0.3 s) overlaps
  // the database's opening, and its first batch is ready sooner.
  try {
    const { Worker } = lazyRequire('node:worker_threads') as { Worker: typeof WorkerType };
    worker = new Worker(new URL(INDEX_WORKER, import.meta.url), { workerData: { config, link: link.shared }, stdout: false, stderr: false });
    link.worker = worker;
  } catch (e) {
    fatal(e);
    return { done };
  }
  writer.openStore();
  if (writer.failed) {
    send({ done: true });
    end();
    return { done };
  }
  worker.on('message', (m: FromIndexWorker) => {
    if (over) return;
    if ('batch' in m) {
      indexedTo = m.batch.offset;
      writer.addPacked(m.batch);
    } else if ('warn' in m) writer.warnOnce(m.warn);
    else if ('info' in m) send({ info: m.info });
    else if ('finish' in m) {
      finishing = true;
      const { code, signal, t, interrupted, last } = m.finish;
      writer.finish(code, signal, t, Date.now() + 2500, interrupted, last).then(() => {
        send({ done: true });
        end();
      }, fatal);
    } else if ('gone' in m) {
      // The log went since this indexer took it: its recording was deleted (Store.deleteRecording).
      writer.close();
      send({ done: true });
      end();
    } else if ('failed' in m) fatal(new Error(m.failed));
  });
  worker.on('error', fatal);
  worker.on('exit', () => { if (!finishing) fatal(new Error('the indexer\'s worker stopped')); });
  return { done };
}
