/**
 * `acp-inspect check` on a large transcript file, over two threads: this thread reads the file,
 * splits and parses its lines (the transcript JSON) and hands them on in batches, packed into the
 * slots of a ring of shared memory (batch.ts's LineRing; a message names the slot); a worker (check-worker.ts) parses each frame's own JSON and runs the checker's fold, in
 * the same order and with the same seq numbers as the one-thread path. The common text chunk lines
 * (wire/chunk-line.ts) are parsed by neither: this thread recognises them and hands on their session
 * id and text only, and the worker builds their frames from those and checks them with the schema's
 * verdict worked out once per update kind. The reader stays at most
 * AHEAD batches in front, so memory stays bounded whatever the file size.
 *
 * The worker is started as soon as the command knows its file (before the checker's modules load on
 * this thread), since its own start-up (modules, schema compilation) is on the critical path.
 */
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { scanTranscriptFile, type TranscriptSink } from '../transcript/read-file.js';
import { TranscriptLineReader } from '../transcript/format.js';
import { matchChunkLine, newChunkMatch } from '../wire/chunk-line.js';
import { type CheckWorkerData, chunkAux, DONE, LinePacker, LineRing, packRows, WANT } from './batch.js';
import { closeSpoolFile, FindingSpool, openSpoolFile, type SpooledCheck } from './finding-spool.js';
import type { FromWorker, ToWorker } from './check-worker.js';

/** Files at least this big are checked over two threads (below, starting a thread costs more than it saves). */
export const PARALLEL_MIN_BYTES = 8 * 1024 * 1024;
/**
 * Bytes per read of the file. Small reads keep what this thread holds at once small: the lines of one
 * read are alive together, and the more V8's collections find alive, the sooner they grow the young
 * generation, up to 32 MiB (with 1 MiB reads it did on every large file; with 32 KiB it stays at 8
 * MiB through a million frames). Each read's lines go into the batch being packed at once.
 */
const READ_BYTES = 32 * 1024;
/** Text per batch: a message costs about 20 µs of CPU between the two threads, whatever its size. */
const BATCH_BYTES = 256 * 1024;
/**
 * Batches the reader may be ahead of the checker (1 MiB in flight: enough to keep both threads busy;
 * 2 MiB measured no faster), and so the slots of the ring the batches travel in: the reader waits,
 * after handing on a batch, while AHEAD or more are unchecked, so the slot it packs into next (the
 * one of the batch AHEAD before) is free.
 */
const AHEAD = 4;
const NOBODY_WAITS = 0x7fffffff;
/** Raw text per batch of stored rows (about one batch of lines). */
const ROWS_BYTES = BATCH_BYTES;
/**
 * The checking thread's young generation. What it keeps alive at once is one frame and a 64 KiB piece
 * of text, so a small one costs little time; V8's default grows to 32 MiB over a long run. 2 MB
 * rather than 4 keeps 1-2 MiB off the peak RSS, which the reading thread's young generation took back
 * once chunk lines stopped being parsed there (V8 grows it from 4 to 8 MB over a long run).
 */
const YOUNG_MB = 2;

/**
 * Starts a two-thread check when `ref` names a transcript file of PARALLEL_MIN_BYTES or more (an id
 * or `latest` never does). `ACP_INSPECT_CHECK_THREADS=1` checks on one thread always, `=2` on two
 * always, whatever the size (for tests). Undefined when the one-thread path should run.
 */
export function startParallelCheck(ref: string): ParallelCheck | undefined {
  const threads = process.env.ACP_INSPECT_CHECK_THREADS;
  if (threads === '1' || /^\d+$/.test(ref) || ref === 'latest') return undefined;
  let size: number;
  try {
    const st = statSync(ref);
    if (!st.isFile()) return undefined;
    size = st.size;
  } catch {
    return undefined; // the one-thread path names the problem
  }
  return threads === '2' || size >= PARALLEL_MIN_BYTES ? new ParallelCheck(ref) : undefined;
}

/**
 * The checking thread's code: one bundled file where the build made it (scripts/bundle-check.js;
 * Node 20 loads each ES module separately, and the checker's hundred-odd modules cost the thread
 * about 10 MB and 60 ms), else the modules as compiled.
 */
function workerFile(): URL {
  const bundle = new URL('./check-worker.bundle.js', import.meta.url);
  return existsSync(fileURLToPath(bundle)) ? bundle : new URL('./check-worker.js', import.meta.url);
}

/**
 * Where the reading thread puts a file's lines: the common chunk lines recognised without parsing
 * (wire/chunk-line.ts) and packed as their session id and text span (as the file's bytes, when the
 * piece had non-ASCII: the worker decodes them), the rest read by `reader` and packed as lines.
 */
export function packingSink(packer: LinePacker, reader: TranscriptLineReader): TranscriptSink {
  const m = newChunkMatch();
  return {
    take(text, start, _lineNo, bytes) {
      const end = matchChunkLine(text, m, start);
      if (end < 0) return end;
      const aux = chunkAux(m);
      if (aux < 0) return -1; // (an id too long to pack: read as any line)
      packer.chunk(text, m, reader.countRecognised(m.t), bytes !== undefined, aux);
      return end;
    },
    line: (l) => packer.line(l),
  };
}

export class ParallelCheck {
  private readonly counters = new Int32Array(new SharedArrayBuffer(8));
  /** Where a file's batches travel (stored rows travel as transferred buffers). */
  private readonly ring: LineRing | undefined;
  private readonly worker: Worker;
  /** Where the worker spools the findings (the result's spool owns it once there is a result). */
  private spoolFile: { fd: number; path: string } | undefined = openSpoolFile();
  private result: SpooledCheck | undefined;
  private failure: Error | undefined;
  private exited = false;
  private wake: (() => void) | undefined;

  constructor(readonly file = '') {
    this.counters[WANT] = NOBODY_WAITS;
    const ring = (this.ring = file ? new LineRing(AHEAD, LineRing.slotBytesFor(BATCH_BYTES)) : undefined);
    this.worker = new Worker(workerFile(), {
      workerData: {
        counters: this.counters.buffer as SharedArrayBuffer,
        rows: !file,
        spool: this.spoolFile!,
        ring: ring && { memory: ring.memory, slots: ring.slots, slotBytes: ring.slotBytes },
      } satisfies CheckWorkerData,
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_MB },
    });
    this.worker.on('message', (m: FromWorker) => {
      this.result = { items: m.run.items, frames: m.run.frames, notStarted: m.run.notStarted, spool: new FindingSpool(m.run.spool) };
      this.wake?.();
    });
    this.worker.on('error', (e) => {
      this.failure = e;
      this.wake?.();
    });
    this.worker.on('exit', () => {
      this.exited = true;
      this.wake?.();
    });
  }

  /** Reads the file into the worker and returns its findings (spooled; read in seq order, as checkStream sorts them). */
  run(ignore: string[]): Promise<SpooledCheck> {
    return this.feed(ignore, (function* (file, ring) {
      // No prefetching: on a file in the page cache (the usual case right after a recording or an
      // export) its copies cost CPU on the two cores this check already keeps busy.
      const packer = new LinePacker(BATCH_BYTES, ring);
      const reader = new TranscriptLineReader();
      for (const _ of scanTranscriptFile(file, packingSink(packer, reader), reader, READ_BYTES)) {
        if (packer.full) {
          const { batch, transfer } = packer.take();
          yield { msg: { batch }, transfer };
        }
      }
      if (!packer.empty) {
        const { batch, transfer } = packer.take();
        yield { msg: { batch }, transfer };
      }
    })(this.file, this.ring));
  }

  /** Feeds rows of the items table (columns ROW_COLUMNS, in seq order) to the worker; returns its findings. */
  runRows(ignore: string[], rows: Iterable<unknown[]>): Promise<SpooledCheck> {
    return this.feed(ignore, (function* () {
      let chunk: unknown[][] = [];
      let bytes = 0;
      for (const row of rows) {
        chunk.push(row);
        const raw = row[10];
        bytes += typeof raw === 'string' || raw instanceof Uint8Array ? raw.length : 64;
        if (bytes >= ROWS_BYTES) {
          const { batch, transfer } = packRows(chunk);
          yield { msg: { rows: batch }, transfer };
          chunk = [];
          bytes = 0;
        }
      }
      if (chunk.length) {
        const { batch, transfer } = packRows(chunk);
        yield { msg: { rows: batch }, transfer };
      }
    })());
  }

  private async feed(ignore: string[], batches: Iterable<{ msg: ToWorker; transfer: ArrayBuffer[] }>): Promise<SpooledCheck> {
    const { worker, counters } = this;
    try {
      worker.postMessage({ ignore } satisfies ToWorker);
      let sent = 0;
      for (const { msg, transfer } of batches) {
        worker.postMessage(msg, transfer);
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
              this.healthy();
            }
          }
          Atomics.store(counters, WANT, NOBODY_WAITS);
        }
      }
      worker.postMessage({ end: true } satisfies ToWorker);
      while (this.result === undefined) {
        this.healthy();
        await new Promise<void>((r) => (this.wake = r));
        this.wake = undefined;
      }
      return this.result;
    } finally {
      this.cancel();
    }
  }

  /** Stops the worker (after the run, or when the command fails before it). */
  cancel(): void {
    void this.worker.terminate();
    if (this.result === undefined && this.spoolFile) closeSpoolFile(this.spoolFile);
    this.spoolFile = undefined;
  }

  private healthy(): void {
    if (this.failure) throw new Error(`the checking thread failed: ${this.failure.message}`);
    if (this.exited && this.result === undefined) throw new Error('the checking thread stopped before the end of the recording');
  }
}
