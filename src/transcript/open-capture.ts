/**
 * Where every command opens a capture file: tells its format from its first bytes (foreign.ts) and
 * hands the readers either the file itself (a transcript, read in big reads whatever its size) or
 * the transcript text that a capture of another tool stands for. Those are one JSON document each,
 * which cannot be read in pieces: they are read whole, up to WHOLE_CAPTURE_LIMIT bytes. A reference
 * `STDIN.log+STDOUT.log` names the two raw logs taken with `tee` around an agent (tee-pair.ts).
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { TranscriptError } from './format.js';
import { captureToTranscript, formatName, sniffCapture, SNIFF_BYTES, type CaptureFormat } from './foreign.js';
import { teePairToLines } from './tee-pair.js';

/** The largest capture of another tool's format read (whole, being one JSON document). */
export const WHOLE_CAPTURE_LIMIT = 256 * 1024 * 1024;

export type OpenedCapture =
  | { kind: 'transcript'; file: string }
  | { kind: 'converted'; format: Exclude<CaptureFormat, 'transcript'> | 'tee-pair'; text: string };

/** The two files of a `STDIN+STDOUT` reference, when `ref` is one (both exist; `ref` itself does not). */
export function pairFiles(ref: string): [string, string] | undefined {
  if (!ref.includes('+') || existsSync(ref)) return undefined;
  for (let i = ref.indexOf('+'); i > 0; i = ref.indexOf('+', i + 1)) {
    const a = ref.slice(0, i), b = ref.slice(i + 1);
    if (b !== '' && isFile(a) && isFile(b)) return [a, b];
  }
  return undefined;
}

function isFile(f: string): boolean {
  try {
    return statSync(f).isFile();
  } catch {
    return false;
  }
}

function mib(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(bytes < 2 ** 20 ? 3 : 0);
}

function readHead(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(SNIFF_BYTES);
    const n = readSync(fd, buf, 0, SNIFF_BYTES, 0);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function readWhole(file: string, what: string, limit: number): string {
  const size = statSync(file).size;
  if (size > limit) {
    throw new TranscriptError(`${what} is read whole, and this one is ${mib(size)} MiB, over the ${mib(limit)} MiB limit for such files; docs/formats.md shows how to convert a larger one`, undefined, file);
  }
  return readFileSync(file, 'utf8');
}

/**
 * Opens `ref` (a file, or `STDIN+STDOUT`) as a capture. Throws TranscriptError naming the file when
 * it is missing, a folder, too large to read whole, or not of the format it starts as.
 */
export function openCapture(ref: string, limit = WHOLE_CAPTURE_LIMIT): OpenedCapture {
  const pair = pairFiles(ref);
  if (pair) {
    const [c2a, a2c] = pair;
    try {
      const lines = teePairToLines(readWhole(c2a, 'a raw JSON-RPC log of a pair', limit), readWhole(a2c, 'a raw JSON-RPC log of a pair', limit), { c2a, a2c });
      return { kind: 'converted', format: 'tee-pair', text: lines.join('\n') + '\n' };
    } catch (e) {
      throw e instanceof TranscriptError ? e.inFile(ref) : e;
    }
  }
  if (!existsSync(ref)) throw TranscriptError.ofFile(ref, `file ${ref} does not exist; check the path`);
  if (statSync(ref).isDirectory()) throw TranscriptError.ofFile(ref, `${ref} is a folder, not a transcript (.jsonl) file`);
  const head = readHead(ref);
  if (head.startsWith('SQLite format 3\0')) {
    throw TranscriptError.ofFile(ref, `${ref} is a SQLite database, not a transcript: give acp-inspect's own as --db ${ref} with a recording id; acp-devtools' captures database is read by acp-inspect import ${ref}`);
  }
  const format = sniffCapture(head);
  if (format === 'transcript') return { kind: 'transcript', file: ref };
  try {
    if (format === 'raw-jsonrpc' || format === 'json-document') return { kind: 'converted', format, text: captureToTranscript('', format) }; // throws
    return { kind: 'converted', format, text: captureToTranscript(readWhole(ref, formatName(format), limit), format) };
  } catch (e) {
    throw e instanceof TranscriptError ? e.inFile(ref) : e;
  }
}
