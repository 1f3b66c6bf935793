/**
 * The forwarding thread's side of the recorder: hands copies of chunks to the recorder worker and
 * never waits for it. The queue is bounded by bytes in flight (posted but not yet acknowledged): past
 * the bound, chunks are not recorded and the recording gets a marked gap instead; forwarding goes on.
 */
import { Worker } from 'node:worker_threads';
import type { FromRecorder, RecorderConfig, StreamCode, ToRecorder } from './messages.js';

/** Bytes that may be in flight to the recorder before chunks are dropped (recorded as a gap). */
export const MAX_INFLIGHT_BYTES = 64 * 1024 * 1024;

export class RecorderClient {
  private worker: Worker | null;
  private posted = 0;
  private acked = 0;
  private dropped: number[] = [0, 0, 0];
  private doneResolve: (() => void) | null = null;
  private readonly done: Promise<void>;
  private warned = false;
  recordingId: number | null = null;

  constructor(config: RecorderConfig, private readonly warn: (msg: string) => void) {
    this.done = new Promise((r) => (this.doneResolve = r));
    let w: Worker | null = null;
    try {
      w = new Worker(new URL('./recorder-worker.js', import.meta.url), { workerData: config, stdout: false, stderr: false });
    } catch (e) {
      this.warnOnce(`recording disabled: cannot start the recorder (${(e as Error).message}); forwarding continues`);
    }
    this.worker = w;
    if (!w) {
      this.doneResolve?.();
      return;
    }
    w.unref();
    w.on('message', (m: FromRecorder) => {
      if ('ack' in m) this.acked = m.ack;
      else if ('warn' in m) this.warnOnce(m.warn);
      else if ('info' in m) this.warn(m.info);
      else if ('recordingId' in m) this.recordingId = m.recordingId;
      else if ('done' in m) this.doneResolve?.();
    });
    w.on('error', (e) => {
      this.warnOnce(`recording stopped: recorder failed (${e.message}); forwarding continues`);
      this.worker = null;
      this.doneResolve?.();
    });
    w.on('exit', () => {
      this.worker = null;
      this.doneResolve?.();
    });
  }

  private warnOnce(msg: string): void {
    if (this.warned) return;
    this.warned = true;
    this.warn(msg);
  }

  /** Hands a copy of a forwarded chunk to the recorder. Call after the chunk was written on. */
  chunk(code: StreamCode, t: number, bytes: Buffer): void {
    const w = this.worker;
    if (!w) return;
    if (this.posted - this.acked > MAX_INFLIGHT_BYTES) {
      this.dropped[code]! += bytes.length;
      return;
    }
    if (this.dropped[code]! > 0) {
      w.postMessage({ gap: code, t, bytes: this.dropped[code]! } satisfies ToRecorder);
      this.dropped[code] = 0;
    }
    this.posted += bytes.length;
    w.postMessage([code, t, bytes] satisfies ToRecorder);
  }

  event(ev: string, t: number, data: Record<string, unknown>): void {
    this.worker?.postMessage({ ev, t, data } satisfies ToRecorder);
  }

  eof(code: StreamCode, t: number): void {
    this.worker?.postMessage({ eof: code, t } satisfies ToRecorder);
  }

  /** Finishes the recording; resolves when it is stored or after `timeoutMs`, whichever is first. */
  async finish(code: number | null, signal: string | null, t: number, timeoutMs: number): Promise<void> {
    const w = this.worker;
    if (!w) return;
    for (const c of [0, 1, 2] as StreamCode[]) {
      if (this.dropped[c]! > 0) w.postMessage({ gap: c, t, bytes: this.dropped[c]! } satisfies ToRecorder);
    }
    w.postMessage({ finish: { code, signal, t } } satisfies ToRecorder);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.done, new Promise<void>((r) => { timer = setTimeout(r, timeoutMs); })]);
    if (timer) clearTimeout(timer);
  }
}
