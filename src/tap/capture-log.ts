/**
 * The capture log: every byte the tap forwards (both directions), the agent's stderr and the tap's
 * lifecycle records, appended in order, with their timestamps, to a file beside the database (on
 * its disk: see capturesDir) as traffic flows. It is what makes a recording durable: a tap killed
 * at any moment leaves its bytes in the page cache, which survives the process, and whoever opens
 * the database next indexes the rest (recover.ts). The SQLite rows are built from it, and the
 * database records how far (recordings.capture_indexed, index_state); a log fully indexed is removed.
 *
 * Records: a 16-byte header (payload length u32, type u32, t f64, little endian), the payload, and
 * padding to 8 bytes. Types 0..2 are the stream codes (messages.ts), 3 a control message (JSON).
 * The first record is a control record `{"capture": CaptureHeader}`. A record cut short at the end
 * of the file (the tap died while writing it) is not a record yet.
 */
import { closeSync, openSync, readSync, writevSync } from 'node:fs';
import { isFullError } from '../store/disk.js';
import { join } from 'node:path';
import { CAPTURE_EXT, capturesDir, makeDirs } from '../store/paths.js';

export { RECORD_CONTROL, RECORD_HEADER, readCaptureHeader, type CaptureHeader } from '../store/capture-header.js';
import { RECORD_CONTROL, RECORD_HEADER, type CaptureHeader } from '../store/capture-header.js';

/** Records start on 8-byte boundaries. */
export const pad8 = (n: number) => (n + 7) & ~7;

/** A record's header, decoded; `size` is the whole record's (header, payload and padding). */
export interface RecordHeader { len: number; type: number; t: number; size: number }

/** Writes the header of a record of `len` payload bytes into `head` (RECORD_HEADER bytes). */
export function encodeHeader(head: Buffer, len: number, type: number, t: number): Buffer {
  head.writeUInt32LE(len, 0);
  head.writeUInt32LE(type, 4);
  head.writeDoubleLE(t, 8);
  return head;
}

export function decodeHeader(buf: Buffer, off = 0): RecordHeader {
  const len = buf.readUInt32LE(off);
  return { len, type: buf.readUInt32LE(off + 4), t: buf.readDoubleLE(off + 8), size: RECORD_HEADER + pad8(len) };
}

const ZEROS = Buffer.alloc(8);

/** Writes all of `parts` at `pos` (writev may write less than asked: goes on from there). */
export function writeAllAt(fd: number, parts: Uint8Array[], pos: number): number {
  const len = parts.reduce((a, p) => a + p.length, 0);
  let done = 0;
  while (done < len) {
    let skip = done;
    let i = 0;
    while (skip >= parts[i]!.length) skip -= parts[i++]!.length;
    const rest = [parts[i]!.subarray(skip), ...parts.slice(i + 1)];
    const n = writevSync(fd, rest, pos + done);
    if (n <= 0) throw new Error('capture log write made no progress');
    done += n;
  }
  return len;
}

/** Appends one record at `pos`; returns its size. Throws when it cannot be written (a full disk). */
export function writeRecord(fd: number, pos: number, type: number, t: number, payload: Uint8Array, head = Buffer.allocUnsafe(RECORD_HEADER)): number {
  encodeHeader(head, payload.length, type, t);
  return writeAllAt(fd, [head, payload, ZEROS.subarray(0, pad8(payload.length) - payload.length)], pos);
}

/** A unique file name for a new capture log (the start time first, so a listing sorts by age). */
function newName(): string {
  const stamp = new Date().toISOString().replace(/[-:.]/g, '');
  return `${stamp}-${process.pid}-${Math.random().toString(36).slice(2, 10)}${CAPTURE_EXT}`;
}

/**
 * Creates the capture log of a new recording beside `dbPath` and writes its header record. On a disk
 * too full for even that, the log is made without it: `pendingHeader` is its payload, to be written at
 * the start (writeHeader) once space returns, and `pos` is past the room it keeps for it, so that
 * records appended meanwhile (those a full disk lets through) land after it.
 */
export function createCaptureLog(dbPath: string, header: CaptureHeader): { fd: number; name: string; pos: number; pendingHeader?: Buffer } {
  const dir = capturesDir(dbPath);
  // The database's folder as the store makes it, and ours in it.
  makeDirs(dir, 0o700);
  const name = newName();
  const fd = openSync(join(dir, name), 'wx+', 0o600);
  const payload = Buffer.from(JSON.stringify({ capture: header }));
  try {
    return { fd, name, pos: writeHeader(fd, payload) };
  } catch (e) {
    if (!isFullError(e)) {
      closeSync(fd);
      throw e;
    }
    return { fd, name, pos: RECORD_HEADER + pad8(payload.length), pendingHeader: payload };
  }
}

/** Writes a log's header record (its payload: see createCaptureLog) at its start; returns its size. Throws as writeRecord. */
export function writeHeader(fd: number, payload: Buffer): number {
  return writeRecord(fd, 0, RECORD_CONTROL, 0, payload);
}

function readAt(fd: number, pos: number, len: number, into?: Buffer): Buffer {
  const buf = into ? into.subarray(0, len) : Buffer.allocUnsafe(len);
  let off = 0;
  while (off < len) {
    const n = readSync(fd, buf, off, len - off, pos + off);
    if (n === 0) return buf.subarray(0, off);
    off += n;
  }
  return buf;
}

/**
 * Reads the whole records of log `fd` from `pos` on, not past `end`, with one read into `block` (a
 * record larger than the block is read on its own), and hands each to `take` until it returns false.
 * Returns the position after the last record taken: `pos` itself when the next record is not whole
 * yet (or not there). The payloads are views of `block`: valid until its next read.
 */
export function readRecords(fd: number, pos: number, end: number, block: Buffer, take: (type: number, t: number, payload: Buffer) => boolean): number {
  const data = readAt(fd, pos, Math.max(0, Math.min(block.length, end - pos)), block);
  let off = 0;
  while (off + RECORD_HEADER <= data.length) {
    const h = decodeHeader(data, off);
    if (pos + off + h.size > end) break; // cut short: not a record yet
    let payload: Buffer;
    if (off + RECORD_HEADER + h.len <= data.length) payload = data.subarray(off + RECORD_HEADER, off + RECORD_HEADER + h.len);
    else if (off === 0) {
      payload = readAt(fd, pos + RECORD_HEADER, h.len);
      if (payload.length < h.len) break;
    } else break;
    off += h.size;
    if (!take(h.type, h.t, payload)) break;
  }
  return pos + off;
}
