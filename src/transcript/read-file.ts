/**
 * Reads a transcript file of any size (larger than a JavaScript string) line by line with big reads:
 * the bytes are cut at the last newline of each read, decoded once per read (as Latin-1 when they are
 * all ASCII, which is the same text and cheaper) and split into lines there. Every line goes through
 * the one line reader (TranscriptLineReader), so seq numbers, headers and errors are as parseTranscript's.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { isAscii } from 'node:buffer';
import { TranscriptError, TranscriptLineReader, type TranscriptLine } from './format.js';

const READ_BYTES = 1024 * 1024;

/**
 * The lines of a transcript file, read and checked, in order, in arrays (one per read). Throws
 * TranscriptError naming the file and the line for a bad line or a file that cannot be read.
 */
export function* readTranscriptFile(file: string, reader = new TranscriptLineReader(), readBytes = READ_BYTES): Generator<TranscriptLine[]> {
  if (!existsSync(file)) throw new TranscriptError(`file ${file} does not exist; check the path`);
  if (statSync(file).isDirectory()) throw new TranscriptError(`${file} is a folder, not a transcript (.jsonl) file`);
  const fd = openSync(file, 'r');
  // One buffer: the unfinished last line of a read stays at its start and the next read goes after it.
  let buf = Buffer.allocUnsafe(readBytes * 2);
  let have = 0;
  let lineNo = 0;
  try {
    for (;;) {
      if (buf.length - have < readBytes) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, have);
        buf = bigger;
      }
      const n = readSync(fd, buf, have, readBytes, null);
      const end = have + n;
      let upto = end;
      if (n > 0) {
        const cut = buf.lastIndexOf(10, end - 1); // the carried part never holds a newline
        if (cut < 0) {
          have = end; // no complete line yet
          continue;
        }
        upto = cut + 1;
      } else if (end === 0) break;
      const text = isAscii(buf.subarray(0, upto)) ? buf.toString('latin1', 0, upto) : buf.toString('utf8', 0, upto);
      buf.copy(buf, 0, upto, end);
      have = end - upto;
      const out: TranscriptLine[] = [];
      let start = 0;
      try {
        while (start < text.length) {
          let nl = text.indexOf('\n', start);
          if (nl < 0) nl = text.length;
          lineNo++;
          const l = reader.read(start === 0 && nl === text.length ? text : text.slice(start, nl), lineNo);
          if (l !== undefined) out.push(l);
          start = nl + 1;
        }
      } catch (e) {
        if (e instanceof TranscriptError) {
          const msg = e.message.replace(/^line \d+: /, '');
          throw new TranscriptError(`${file}: ${e.line !== undefined ? `line ${e.line}: ` : ''}${msg}; see the transcript format in the README`, e.line);
        }
        throw e;
      }
      if (out.length) yield out;
      if (n === 0) break;
    }
  } finally {
    closeSync(fd);
  }
}
