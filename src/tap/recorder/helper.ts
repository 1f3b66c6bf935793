/**
 * A second thread for the tap's own recorder, for a backlog: the recorder runs on one thread (beside
 * the native forwarder, the tap's main thread), and after a flood it had the whole backlog to make
 * and write there, about 5.8 µs a 1 KiB frame. With a backlog, the recorder hands the making
 * (reading the log, splitting, parsing, checking, packing rows: index-worker.ts, as the detached
 * indexer does) to a worker with its state, and only writes the batches the worker makes, while the
 * worker makes the next. Once the worker caught up with the log (or reached the tap's finish record),
 * it hands back where it got and its state there, and the recorder goes on from there on its own
 * thread: ordinary traffic, the live checker's findings and the session's end stay the recorder's.
 *
 * The worker is started once a backlog is large (HELP_START_BYTES), while the recorder goes on
 * indexing it, and stopped once the backlog is indexed (see delegate in recorder/index.ts): its
 * isolate and the checker's modules are paid by a tap while it has a flood to index, never by a quiet
 * one. Should the worker fail, the recorder goes on from the last state the worker's batches saved,
 * alone, and for the rest of the session.
 */
import type { Worker as WorkerType } from 'node:worker_threads';
import type { FromRecorder, RecorderConfig } from '../messages.js';
import type { FromIndexWorker, JobStart, ToIndexWorker } from '../index-worker.js';
import type { PackedBatch, StoreWriter } from './store-writer.js';
import { BatchLink } from './batch-link.js';
import { lazyRequire } from '../agent.js';

/** The worker's entry, relative to this module (dist/src/tap/recorder/helper.js). */
const INDEX_WORKER = '../index-worker.js';

/**
 * A backlog this large starts the helper's worker (the recorder goes on meanwhile)... The worker is
 * ready 150-300 ms later, when the recorder alone would have indexed 25-50 MiB of a 1 KiB flood: on
 * smaller backlogs it costs a core's CPU and saves little. With 32 here it started for each of the
 * bench's 32 MiB floods, and 9 of 10 of those sessions ended handed on rather than finished by the
 * tap (see burstTuning's pin in recorder-client.ts for why a helper's session can end so).
 */
export const HELP_START_BYTES = 64 * 1024 * 1024;
/** ...and, once it is ready, one this large is handed to it. */
export const HELP_BYTES = 8 * 1024 * 1024;

/**
 * The worker's young generation (MB): what it makes lives until its row is packed, a few
 * microseconds, and V8's default (16 MB semi-spaces) was about 10 MiB of the tap's footprint more.
 */
const HELPER_YOUNG_MB = 4;

/** Where a job left the log: indexed up to `offset`, with the indexer's state there, the items up to `lastSeq` made. */
export interface Back {
  offset: number;
  state: string;
  lastSeq: number;
}

export class Helper {
  private worker: WorkerType | null = null;
  private ready = false;
  /** Set once the worker is stopped, or failed (then `broken` too). */
  private failed = false;
  /** Why the worker failed by itself (it could not start, or threw), if it did. */
  broken: string | null = null;
  private readonly link = new BatchLink();
  /** The job at work: how to end it, and the last state its batches saved (where to go on from should it fail). */
  private job: { resolve(b: Back): void; last: Back } | null = null;
  /** Where the log is indexed up to, as the job's batches say. */
  indexedTo = 0;

  /** `batch`: a job's batch arrived (the backlog is being indexed). */
  constructor(private readonly config: RecorderConfig, private readonly writer: StoreWriter, private readonly send: (m: FromRecorder) => void, private readonly batch: () => void) {}

  /** Starts the worker, once; it says when it is ready for a job. */
  start(): void {
    if (this.worker || this.failed) return;
    try {
      const { Worker } = lazyRequire('node:worker_threads') as { Worker: typeof WorkerType };
      const w = new Worker(new URL(INDEX_WORKER, import.meta.url), {
        workerData: { config: this.config, link: this.link.shared, committed: this.config.shared }, stdout: false, stderr: false,
        resourceLimits: { maxYoungGenerationSizeMb: HELPER_YOUNG_MB },
      });
      w.unref();
      w.on('message', (m: FromIndexWorker) => this.onMessage(m));
      w.on('error', (e) => this.end(e.message));
      w.on('exit', () => this.end('the worker stopped'));
      this.worker = this.link.worker = w;
    } catch (e) {
      this.failed = true;
      this.broken = (e as Error).message ?? String(e);
    }
  }

  /** Ready for a job, and none at work. */
  get available(): boolean {
    return this.ready && !this.failed && this.job === null;
  }

  /** Hands the log from `from` to the worker; resolves with where the recorder goes on from. */
  run(from: JobStart): Promise<Back> {
    return new Promise((resolve) => {
      this.job = { resolve, last: { offset: from.indexed, state: from.state!, lastSeq: from.storedSeq } };
      this.indexedTo = from.indexed;
      this.worker!.postMessage({ job: from } satisfies ToIndexWorker);
    });
  }

  /** The worker's batches were written (StoreWriter's `written` hook). */
  written(batches: PackedBatch[]): void {
    this.link.written(batches);
  }

  /** Stops the worker; a job at work ends where its batches got. */
  stop(): void {
    this.end(null);
  }

  private back(b: Back): void {
    const { job } = this;
    this.job = null;
    job?.resolve(b);
  }

  /** The worker failed (`failed`: a message why), or is stopped (null): a job at work ends where its batches got. */
  private end(failed: string | null): void {
    if (this.failed) return;
    this.failed = true;
    if (failed !== null) this.broken = failed;
    this.link.worker = null;
    void this.worker?.terminate();
    if (this.job) this.back(this.job.last);
  }

  private onMessage(m: FromIndexWorker): void {
    if (this.failed) return;
    if ('batch' in m) {
      const b = m.batch;
      this.indexedTo = b.offset;
      const last = this.job?.last;
      if (last) {
        if (b.state !== null) {
          last.offset = b.offset;
          last.state = b.state;
        }
        if (b.rows) last.lastSeq = Math.max(last.lastSeq, b.rows.lastSeq);
      }
      this.writer.addPacked(b);
      this.batch();
    } else if ('back' in m) this.back(m.back);
    else if ('ready' in m) this.ready = true;
    else if ('warn' in m) this.writer.warnOnce(m.warn);
    else if ('info' in m) this.send({ info: m.info });
    // A failure, or the log gone (the recording deleted: the writer finds out): the recorder goes on alone.
    else if ('failed' in m) this.end(m.failed);
    else if ('gone' in m) this.end('the capture log is gone');
  }
}
