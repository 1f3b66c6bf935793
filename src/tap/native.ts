/**
 * The native forwarder (native/forward.c), built on install where a C compiler is at hand. Loaded
 * by the tap, and by an indexer to free the indexed part of a capture log (recorder/log-freer.ts); null when it is not built, cannot load, the machine is big-endian (the capture log's
 * records' headers are written in the machine's byte order), or ACP_INSPECT_NATIVE=0 asks for the JavaScript
 * forwarder.
 */
import { endianness } from 'node:os';
import { fileURLToPath } from 'node:url';

export interface NativeForwarder {
  /** The monotonic clock in ms (what performance.now() counts from its own origin). */
  nowMs(): number;
  /** Two pipes for the agent: [stdinRead, stdinWrite, stdoutRead, stdoutWrite], close-on-exec. */
  pipes(): [number, number, number, number];
  closeFd(fd: number): void;
  /**
   * Takes the capture log (fd; its next record goes at `logPos`) and the shared memory whose first
   * Int64 it publishes the committed position in; returns the read end of the event pipe.
   */
  init(shared: Uint8Array, baseMs: number, logFd: number, logPos: number): number;
  /** Starts the two forwarding threads. */
  start(clientIn: number, agentIn: number, agentOut: number, clientOut: number): void;
  /** Appends a record to the capture log, in order with the threads' chunks (or counts it for a gap). */
  push(type: number, t: number, bytes: Uint8Array): void;
  /** The tap is exiting: records are no longer kept anywhere (forwarding goes on). */
  stopRecording(): void;
  /** Bits: see NATIVE_* below. */
  state(): number;
  /** The name a failed write's errno is recorded with ("EPIPE"; "E" and the number when it has none). */
  errnoCode(errno: number): string;
  /**
   * Starts the agent (posix_spawnp, in a session of its own) on these descriptors and a new stderr
   * pipe: [pid, the pipe's read end]. Throws (code ENOENT, EACCES, ENOEXEC...) when it cannot.
   */
  spawn(file: string, args: string[], stdinFd: number, stdoutFd: number): [pid: number, stderrFd: number];
  /** Null while the agent started by spawn() runs; then [exit code, signal number], one of them null. */
  exitStatus(): [code: number | null, signal: number | null] | null;
  /** Ends this process by signal `signo` (default disposition, unblocked, raised); returns only if it does not end it. */
  raiseDefault?(signo: number): void;
  /** Frees the blocks of a range of a file, its size kept (fallocate's PUNCH_HOLE); 0, or the errno. */
  punchHole?(fd: number, offset: number, length: number): number;
}

/**
 * state() bits: what the tap's exit waits on. (The end of the client's input and a broken agent
 * stdin reach the recording as events; the exit does not wait on them.)
 */
export const NATIVE_A2C_ENDED = 1;
export const NATIVE_WRITING_TO_CLIENT = 4;
export const NATIVE_CLIENT_BROKEN = 8;

/** Event bytes on the event pipe. */
export const NATIVE_EV_A2C_END = 0x45; // 'E'
export const NATIVE_EV_EXIT = 0x58; // 'X'

let loaded: NativeForwarder | null | undefined;

export function loadNativeForwarder(): NativeForwarder | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  if (process.env.ACP_INSPECT_NATIVE === '0' || endianness() !== 'LE' || process.platform !== 'linux') return null;
  try {
    // dist/src/tap/native.js → native/build/Release. Opened with process.dlopen(), not require():
    // a require() costs the tap's start-up 1 ms or more of module resolution for this one file.
    const m = { exports: {} as NativeForwarder };
    process.dlopen(m, fileURLToPath(new URL('../../../native/build/Release/acp_forward.node', import.meta.url)));
    loaded = m.exports;
  } catch {
    loaded = null;
  }
  return loaded;
}
