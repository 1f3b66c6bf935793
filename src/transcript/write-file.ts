/**
 * Writes lines of text (a transcript from `transcriptLines`) to a file or to stdout as they come, in
 * writes of about CHUNK_BYTES, so that what is written need never be one string: a transcript of a
 * 1 GiB recording is larger than the longest string V8 makes. Stdout is written with its back
 * pressure respected (a slow reader, `| head`).
 */
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { LineOut } from './format.js';
import { makeDirs } from '../store/paths.js';

const CHUNK_BYTES = 1 << 20;

/**
 * The lines (each given without its newline, as text or as a BytesLine) as UTF-8 bytes, each
 * ending with a newline, in pieces of about `chunkBytes` (a longer line is a piece of its own). Each
 * line is encoded (or copied) straight into the piece: joining them into a string first, which the
 * write then encodes, copied every byte twice.
 */
export function* chunkLines(lines: Iterable<LineOut>, chunkBytes = CHUNK_BYTES): Generator<Buffer> {
  let buf = Buffer.allocUnsafe(chunkBytes);
  let at = 0;
  for (const l of lines) {
    if (typeof l !== 'string') { // a frame's raw text as bytes, copied as they are between ASCII head and tail
      const n = l.head.length + l.bytes.length + l.tail.length + 1;
      if (at + n > chunkBytes) {
        if (at > 0) {
          yield buf.subarray(0, at);
          buf = Buffer.allocUnsafe(Math.max(chunkBytes, n));
          at = 0;
        } else if (n > buf.length) buf = Buffer.allocUnsafe(n);
      }
      at += buf.write(l.head, at, 'latin1');
      buf.set(l.bytes, at);
      at += l.bytes.length;
      at += buf.write(l.tail, at, 'latin1');
      buf[at++] = 0x0a;
      continue;
    }
    // At most 3 bytes a UTF-16 unit: a line that might not fit goes in the next piece.
    if (at + l.length * 3 + 1 > chunkBytes) {
      if (at > 0) {
        yield buf.subarray(0, at);
        buf = Buffer.allocUnsafe(chunkBytes);
        at = 0;
      }
      if (l.length * 3 + 1 > chunkBytes) {
        yield Buffer.from(`${l}\n`, 'utf8');
        continue;
      }
    }
    at += buf.write(l, at, 'utf8');
    buf[at++] = 0x0a;
  }
  if (at > 0) yield buf.subarray(0, at);
}

/**
 * Writes the lines to `file` (its folder made if missing) through a temporary file beside it, renamed
 * into place at the end: a write that fails half way (a bad line further on, a full disk) leaves
 * whatever `file` held before.
 */
export function writeLinesToFile(file: string, lines: Iterable<LineOut>): void {
  makeDirs(dirname(file)); // -o test/fixtures/x.jsonl in a new project
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  const fd = openSync(tmp, 'w');
  try {
    for (const piece of chunkLines(lines)) {
      for (let at = 0; at < piece.length;) at += writeSync(fd, piece, at);
    }
    closeSync(fd);
    renameSync(tmp, file);
  } catch (e) {
    try { closeSync(fd); } catch { /* closed already */ }
    rmSync(tmp, { force: true });
    throw e;
  }
}

/** Writes the lines to stdout, waiting for it to drain whenever its buffer is full. */
export async function writeLinesToStdout(lines: Iterable<LineOut>): Promise<void> {
  const out = process.stdout;
  for (const piece of chunkLines(lines)) {
    if (!out.write(piece)) await new Promise<void>((r) => out.once('drain', r));
  }
}
