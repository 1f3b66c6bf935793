/**
 * The first record of a capture log (see src/tap/capture-log.ts for the whole format): what it says
 * about its recording, so that the recording can be made without the tap that wrote it. Here, not in
 * the tap, because any process that opens the database adopts the logs of taps that died before they
 * made their recording's row (Store.adoptOrphanedCaptures).
 */
import { closeSync, openSync, readSync } from 'node:fs';

/** Bytes of a record's header: payload length u32, type u32, t f64 (little endian). */
export const RECORD_HEADER = 16;
/** Record type of a control message (JSON payload); 0..2 are the stream codes. */
export const RECORD_CONTROL = 3;

/** What a capture log says about its recording, in its first record. */
export interface CaptureHeader {
  name: string | null;
  command: string[];
  cwd: string;
  startedAt: string;
  hostPid: number;
  hostStart: string | null;
  redact: boolean;
  maxFrameBytes: number | null;
  check: boolean;
}

/** The header of the capture log at `path`, or null when it has none (yet) or cannot be read. */
export function readCaptureHeader(path: string): CaptureHeader | null {
  let fd: number;
  try { fd = openSync(path, 'r'); } catch { return null; }
  try {
    const buf = Buffer.alloc(64 * 1024);
    const n = readSync(fd, buf, 0, buf.length, 0);
    if (n < RECORD_HEADER) return null;
    const len = buf.readUInt32LE(0);
    if (buf.readUInt32LE(4) !== RECORD_CONTROL || RECORD_HEADER + len > n) return null;
    return (JSON.parse(buf.subarray(RECORD_HEADER, RECORD_HEADER + len).toString('utf8')) as { capture?: CaptureHeader }).capture ?? null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
