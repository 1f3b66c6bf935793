/** Messages between the tap's forwarding thread and its recorder worker. */
import type { OtlpTarget } from '../otel/endpoint.js';

/** Stream codes: which pipe a chunk came from. */
export const C2A = 0;
export const A2C = 1;
export const STDERR = 2;
export type StreamCode = typeof C2A | typeof A2C | typeof STDERR;

/** Forwarder → recorder. A chunk is a bare tuple: it is by far the most frequent message. */
export type ToRecorder =
  | [code: StreamCode, t: number, bytes: Uint8Array]
  | { ev: string; t: number; data: Record<string, unknown> }
  | { gap: StreamCode; t: number; bytes: number }
  | { eof: StreamCode; t: number }
  | { finish: { code: number | null; signal: string | null; t: number } }
  /** Records that found the ring full are in the overflow file `fd`, bytes [from, to), ring format. */
  | { overflow: { fd: number; from: number; to: number } };

/** Recorder → forwarder. */
export type FromRecorder =
  | { warn: string }
  | { info: string }
  | { recordingId: number }
  | { done: true };

export interface RecorderConfig {
  dbPath: string;
  name: string | null;
  command: string[];
  cwd: string;
  hostPid: number;
  startedAt: string;
  redact: boolean;
  maxFrameBytes: number | null;
  check: boolean;
  ui: number | null;
  /**
   * How long the tap's exit waits for a recorder that makes no progress (ACP_INSPECT_FINISH_WAIT_MS,
   * 6 s by default); the recorder gives up a locked database's backlog shortly before (see intake.ts).
   */
  finishWaitMs: number;
  /** Live OpenTelemetry export (--otlp): where to, and whether message content goes too. */
  otlp?: { target: OtlpTarget; content: boolean } | null;
  /** The byte ring chunks and control messages arrive on (see ring.ts); set by the recorder client. */
  ring?: SharedArrayBuffer;
  /**
   * With the native forwarder: the read end of the pipe it writes a byte to when it wakes the
   * recorder (native code cannot wake an Atomics.wait); without it, writers wake through the ring.
   */
  wakeFd?: number;
  /** [in SQLite, stop] flags shared with the forwarding thread; see `sql()` in recorder-worker.ts. */
  guard?: SharedArrayBuffer;
}
