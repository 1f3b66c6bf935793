/**
 * Writes lines of text (a transcript from `transcriptLines`) to a file or to stdout as they come, in
 * writes of about CHUNK_CHARS, so that what is written need never be one string: a transcript of a
 * 1 GiB recording is larger than the longest string V8 makes. Stdout is written with its back
 * pressure respected (a slow reader, `| head`).
 */
import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

const CHUNK_CHARS = 1 << 20;

/** Joins lines (each ending with a newline) into pieces of about CHUNK_CHARS characters. */
export function* chunkLines(lines: Iterable<string>, chunkChars = CHUNK_CHARS): Generator<string> {
  let parts: string[] = [];
  let n = 0;
  for (const l of lines) {
    parts.push(l);
    n += l.length + 1;
    if (n >= chunkChars) {
      parts.push('');
      yield parts.join('\n');
      parts = [];
      n = 0;
    }
  }
  if (parts.length) {
    parts.push('');
    yield parts.join('\n');
  }
}

/**
 * Writes the lines to `file` (its folder made if missing) through a temporary file beside it, renamed
 * into place at the end: a write that fails half way (a bad line further on, a full disk) leaves
 * whatever `file` held before.
 */
export function writeLinesToFile(file: string, lines: Iterable<string>): void {
  mkdirSync(dirname(file), { recursive: true }); // -o test/fixtures/x.jsonl in a new project
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  const fd = openSync(tmp, 'w');
  try {
    for (const piece of chunkLines(lines)) writeSync(fd, piece);
    closeSync(fd);
    renameSync(tmp, file);
  } catch (e) {
    try { closeSync(fd); } catch { /* closed already */ }
    rmSync(tmp, { force: true });
    throw e;
  }
}

/** Writes the lines to stdout, waiting for it to drain whenever its buffer is full. */
export async function writeLinesToStdout(lines: Iterable<string>): Promise<void> {
  const out = process.stdout;
  for (const piece of chunkLines(lines)) {
    if (!out.write(piece)) await new Promise<void>((r) => out.once('drain', r));
  }
}
