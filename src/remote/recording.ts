/**
 * One recording of a remote ACP connection, for the bridge (one per tap) and the proxy (one per
 * connection it forwards): a capture log and recorder as the stdio tap has them (see
 * tap/recording-setup.ts), fed the connection's messages as lines (c2a: the client's, a2c: the
 * agent's) and its transport metadata as `transport` events. Each of those is one record, so the
 * log's records are batched: written a turn of the event loop at a time, or at flush().
 */
import type { TapOptions } from '../tap/args.js';
import { RecorderClient } from '../tap/recorder-client.js';
import { notRecording, openCaptureLog, recorderConfig, type RecordingOptions } from '../tap/recording-setup.js';
import { startDetachedIndexer } from '../tap/detached-indexer.js';
import { A2C, C2A } from '../tap/messages.js';
import { onOrphanedCaptures } from '../store/orphans.js';
import { defaultDbPath } from '../store/paths.js';
import { TRANSPORT_EVENT, type TransportData } from '../wire/transport-event.js';

export type { RecordingOptions };

/**
 * How long finishing waits for the recorder (ACP_INSPECT_FINISH_WAIT_MS sets it); the rest goes to
 * a detached indexer, as for the stdio tap. Longer than the stdio tap's: a remote session's end is
 * not on an editor's start-up path.
 */
const FINISH_WAIT_MS = 1000;

export class RemoteRecording {
  private readonly rec: RecorderClient;
  private readonly base: number;
  private readonly dbPath: string;
  private finished: Promise<boolean> | null = null;

  /**
   * Starts a recording named after `target` (the remote agent's URL, credentials out of it), whose
   * clock starts at `startedMs`. `say` prints the tap's one-line messages.
   */
  constructor(opts: RecordingOptions & Pick<TapOptions, 'db'>, target: string, startedMs: number, say: (msg: string) => void) {
    onOrphanedCaptures(startDetachedIndexer);
    this.base = performance.now() - (Date.now() - startedMs);
    this.dbPath = opts.db ?? defaultDbPath();
    const command = [target];
    const why = { message: '' };
    const log = openCaptureLog(opts, command, this.dbPath, startedMs, why);
    this.rec = new RecorderClient((msg) => say(msg.startsWith('acp-inspect') ? msg : `acp-inspect: ${msg}`), null, log, new SharedArrayBuffer(8), true);
    if (!log) say(notRecording(why));
    this.rec.start(recorderConfig(opts, command, this.dbPath, startedMs));
  }

  /** Milliseconds since the recording started (monotonic). */
  now(): number {
    return performance.now() - this.base;
  }

  /** Records transport metadata. */
  transport(data: TransportData): void {
    this.rec.event(TRANSPORT_EVENT, this.now(), data as unknown as Record<string, unknown>);
  }

  /** Records a lifecycle event. */
  event(type: string, data: Record<string, unknown>): void {
    this.rec.event(type, this.now(), data);
  }

  /** Records bytes the client sent (`c2a`) or was given (`a2c`): whole lines, each one message. */
  lines(dir: 'c2a' | 'a2c', bytes: Buffer, t = this.now()): void {
    this.rec.chunk(dir === 'c2a' ? C2A : A2C, t, bytes);
  }

  /** Records a message as one line: `bytes` (no line break in them) and a newline. */
  line(dir: 'c2a' | 'a2c', bytes: Buffer, t = this.now()): void {
    this.rec.line(dir === 'c2a' ? C2A : A2C, t, bytes);
  }

  /**
   * Writes what was recorded so far to the capture log now. Records are written a turn of the event
   * loop at a time (see RecorderClient.flush); the bridge flushes before it forwards, so that a
   * message is in the log before its peer has it.
   */
  flush(): void {
    this.rec.flush();
  }

  /**
   * Whether what was recorded still waits to be handed on to the editor (its stdout not drained):
   * the recorder counts it as traffic still arriving, and indexes once the editor has it all.
   */
  flowing(on: boolean): void {
    this.rec.flowing(on);
  }

  /** The client's input ended. */
  clientEnded(): void {
    const t = this.now();
    this.rec.eof(C2A, t);
    this.rec.event('stdin-closed', t, {});
  }

  /**
   * Finishes the recording with `code` (as a stdio tap does with its agent's exit): the recorder
   * gets a moment, and what it does not finish a detached indexer does. True when it finished here.
   */
  finish(code: number, signal: string | null = null): Promise<boolean> {
    return (this.finished ??= (async () => {
      const waitMs = Number(process.env.ACP_INSPECT_FINISH_WAIT_MS) || FINISH_WAIT_MS;
      const stored = await this.rec.finish(code, signal, this.now(), waitMs);
      if (!stored) await this.rec.handOn(this.dbPath, code, signal);
      return stored;
    })());
  }

  /** Right before the process exits (see RecorderClient.quiesce). */
  quiesce(stored: boolean): void {
    this.rec.quiesce(stored ? 5000 : 100);
  }
}
