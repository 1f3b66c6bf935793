/** Messages between the tap's forwarding thread and its recorder, and the recorder's configuration. */
import type { OtlpTarget } from '../otel/endpoint.js';
import type { StopReason } from '../store/disk.js';

/** Stream codes: which pipe a chunk came from. */
export const C2A = 0;
export const A2C = 1;
export const STDERR = 2;
export type StreamCode = typeof C2A | typeof A2C | typeof STDERR;

/** What the recorder reads from the capture log, decoded. A chunk is a bare tuple: it is by far the most frequent. */
export type ToRecorder =
  | [code: StreamCode, t: number, bytes: Uint8Array]
  | { ev: string; t: number; data: Record<string, unknown> }
  | { gap: StreamCode; t: number; bytes: number }
  | { eof: StreamCode; t: number }
  | { finish: { code: number | null; signal: string | null; t: number } };

/** Recorder → forwarder. */
export type FromRecorder =
  | { warn: string }
  | { info: string }
  | { recordingId: number }
  | { done: true }
  /** The worker's recorder handed the log on (see Recorder.handOff). */
  | { handedOff: true }
  /**
   * An indexer whose tap is gone (config.resume) stopped before the log's end, the rest kept in the
   * log for the next indexer: why, and the way out (said by `acp-inspect index`, which exits 2).
   */
  | { stopped: StopReason };

/**
 * The exit a tap that exited cleanly hands on with its capture log, on the command line of the
 * detached indexer it starts: where its disk is full, neither the log (its finish record) nor the
 * database (Recorder.handOff) nor a file's contents in the capture folder may take it. An empty
 * file's name may (indexer-pids.ts): an indexer started later, once the disk has room, reads it there.
 */
export interface HandedOnExit { endedAt: string; exitCode: number | null; exitSignal: string | null }

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
  /** Live OpenTelemetry export (--otlp): where to, and whether message content goes too. */
  otlp?: { target: OtlpTarget; content: boolean } | null;
  /** The capture log the recorder indexes: its path, and its file name (how the database names it). */
  capture: { path: string; name: string };
  /**
   * With a live tap: its first Int64 is how many bytes of the log are whole records (the forwarder
   * moves it on). Without (another process finishing a log its tap left): the log's size.
   */
  shared?: SharedArrayBuffer;
  /** Another process finishing a log: the recording it belongs to and where its indexing stopped. */
  resume?: { recordingId: number; indexed: number; state: string | null; storedSeq: number };
  /**
   * The exit its tap said as it handed the log on (see HandedOnExit): an indexer that meets the end of
   * the log without its finish record ends the recording with it, not interrupted.
   */
  handedOn?: HandedOnExit | null;
  /** [in SQLite, stop] flags shared with the forwarding thread; see `sql()` in recorder-worker.ts. */
  guard?: SharedArrayBuffer;
}

/**
 * SQLite's busy timeout for the recorder on a worker thread (beside the JavaScript forwarder): how
 * long one write may wait for a database another process holds. The tap's exit waits for a write in
 * flight, that long and a margin for a loaded machine at most (see RecorderClient.quiesce).
 */
export const WORKER_BUSY_MS = 2000;
