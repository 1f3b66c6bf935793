/**
 * Reads a transcript file of any size (larger than a JavaScript string) line by line with big reads:
 * the bytes are cut at the last newline of each read, decoded in pieces of whole lines (as Latin-1
 * when they are all ASCII, which is the same text and cheaper) and split into lines there. Every line goes through
 * the one line reader (TranscriptLineReader), so seq numbers, headers and errors are as parseTranscript's.
 * The file is opened through openCapture, so a capture of another tool's format reads as its transcript.
 */
import { closeSync, openSync, read, readSync } from 'node:fs';
import { isAscii, isUtf8 } from 'node:buffer';
import { TranscriptError, TranscriptLineReader, itemFromLine, type TranscriptLine } from './format.js';
import { Correlator } from '../wire/correlate.js';
import { type Frame, isFrame, type Item } from '../wire/frame.js';
import { openCapture, type OpenedCapture } from './open-capture.js';
import { CHUNK_UPDATES, type ChunkMessage, chunkHead, chunkLineFrame, chunkMessageOf, chunkTail, matchChunkLine, newChunkMatch, type ChunkMatch } from '../wire/chunk-line.js';
import { lazyChunkFrame } from '../wire/lazy-chunk.js';
import { decodeLatin1Utf8 } from '../wire/line-splitter.js';

const READ_BYTES = 1024 * 1024;
const PIECE_BYTES = 64 * 1024;

/**
 * The lines of a transcript file, read and checked, in order, in arrays (one per read). Throws
 * TranscriptError naming the file and the line for a bad line or a file that cannot be read.
 */
export function* readTranscriptFile(file: string, reader = new TranscriptLineReader(), readBytes = READ_BYTES, prefetch = false): Generator<TranscriptLine[]> {
  let out: TranscriptLine[] = [];
  const sink: TranscriptSink = { line: (l) => void out.push(l) };
  for (const _ of scanTranscriptFile(file, sink, reader, readBytes, prefetch)) {
    if (out.length) {
      yield out;
      out = [];
    }
  }
}

/**
 * The items of a transcript file in order, responses correlated, read as they are asked for (nothing
 * is held but one read's items). The header and the notes are on `reader` (the header once the first
 * item came, the notes at the end). The common text chunk lines are recognised without parsing them
 * (wire/chunk-line.ts: the same frames, in a fraction of two JSON.parse calls); `last.chunk` says,
 * while an item is yielded, whether it is such a frame: the index of its update kind (what
 * Checker.step takes as `chunk`), else -1. `textless(seq, dir)`, when it says so, makes such a frame
 * without its text (`raw` "", size 0, no `json`: its session only), which costs nothing to decode:
 * for a reader that needs no more of it (a slice's plan, the items a slice leaves out). Errors as
 * readTranscriptItems's. `last.raw`, when the caller sets it (null) at first, says likewise whether
 * the item's raw text is there as its UTF-8 bytes (a Buffer, else null): for a writer that stores
 * them as they are (import), so that text read from non-ASCII bytes is not encoded back again.
 */
export function* readTranscriptItems(file: string, reader = new TranscriptLineReader(), last: { chunk: number; raw?: Buffer | null } = { chunk: -1 }, textless?: (seq: number, dir: 'a2c' | 'c2a') => boolean): Generator<Item> {
  const correlator = new Correlator();
  let out: Item[] = [];
  /** Each item's chunk kind, beside `out`. */
  let kinds: number[] = [];
  /** Each item's raw text as UTF-8 bytes or null, beside `out` (when `last.raw` asks for them). */
  const wantRaw = last.raw !== undefined;
  let raws: (Buffer | null)[] = [];
  const m = newChunkMatch();
  const kind = { update: -1 };
  const sink: TranscriptSink = {
    take(text, start, _lineNo, bytes) {
      const end = matchChunkLine(text, m, start);
      if (end >= 0 && textless?.(reader.seq + 1, m.dir)) {
        const f: Frame = { seq: reader.countRecognised(m.t), t: m.t, dir: m.dir, raw: '', size: 0, kind: 'notification', method: 'session/update', sessionId: text.slice(m.sidStart, m.sidEnd) };
        out.push(f);
        kinds.push(m.update);
        if (wantRaw) raws.push(null);
      } else if (end >= 0 && wantRaw && bytes !== undefined) {
        const sessionId = text.slice(m.sidStart, m.sidEnd);
        const mid = chunkMessageOf(text, m);
        const raw = chunkRawBytes(bytes, m, sessionId, mid, rawAt);
        if (raw === undefined) {
          const span = bytes.toString('utf8', m.spanStart, m.spanEnd);
          out.push(chunkLineFrame(reader.countRecognised(m.t), m.t, m.dir, sessionId, m.update, span, m.escaped, kind, -1, mid));
          raws.push(null);
        } else {
          // Its raw text and chunk text decoded only if read (the store takes the bytes; the check reads neither).
          out.push(lazyChunkFrame(reader.countRecognised(m.t), m.t, m.dir, sessionId, m.update, text.slice(m.spanStart, m.spanEnd), m.escaped, decodeLatin1Utf8, kind, raw.length, mid));
          raws.push(raw);
        }
        kinds.push(kind.update);
      } else if (end >= 0) {
        const span = bytes === undefined ? text.slice(m.spanStart, m.spanEnd) : bytes.toString('utf8', m.spanStart, m.spanEnd);
        out.push(chunkLineFrame(reader.countRecognised(m.t), m.t, m.dir, text.slice(m.sidStart, m.sidEnd), m.update, span, m.escaped, kind, bytes === undefined ? span.length : -1, chunkMessageOf(text, m)));
        kinds.push(kind.update);
        if (wantRaw) raws.push(null);
      }
      return end;
    },
    line: (l) => {
      out.push(itemFromLine(l));
      kinds.push(-1);
      if (wantRaw) raws.push(null);
    },
  };
  const rawAt = { start: 0, end: 0 };
  for (const _ of scanTranscriptFile(file, sink, reader)) {
    const items = out;
    const chunks = kinds;
    const rawBytes = raws;
    out = [];
    kinds = [];
    if (wantRaw) raws = [];
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      last.chunk = chunks[i]!;
      if (wantRaw) last.raw = rawBytes[i]!;
      if (last.chunk < 0 && isFrame(item)) correlator.observe(item); // a chunk frame is a notification: nothing to correlate
      yield item;
    }
  }
}

/**
 * The raw text of the chunk frame `m` matched in `bytes` (a piece of a transcript's UTF-8 bytes, the
 * session id `sessionId`, its messageId `mid`) as UTF-8 bytes: the frame's head, its text body (the span with the line's
 * escapes undone), its tail; `at` says where the body is in them. Exactly the bytes SQLite stores of
 * the string the generic path makes (better-sqlite3 encodes a string's UTF-16 as UTF-8), so undefined
 * where that string is not what they decode to: a span that is not valid UTF-8 (decoding puts U+FFFD
 * in), or a `\u` escape of a lone surrogate (which that encoding writes as three bytes no decoder
 * takes back).
 */
function chunkRawBytes(bytes: Buffer, m: ChunkMatch, sessionId: string, mid: ChunkMessage | undefined, at: { start: number; end: number }): Buffer | undefined {
  const from = m.spanStart;
  const to = m.spanEnd;
  if (!isUtf8(bytes.subarray(from, to))) return undefined;
  const head = chunkHead(sessionId, CHUNK_UPDATES[m.update]!, mid);
  const tail = chunkTail(mid);
  // A line's escape is never shorter than what it stands for in UTF-8.
  const out = Buffer.allocUnsafe(head.length + (to - from) + tail.length);
  let o = out.write(head, 0, 'latin1');
  at.start = o;
  if (!m.escaped) {
    o += bytes.copy(out, o, from, to);
  } else {
    for (let i = from; i < to; i++) {
      const c = bytes[i]!;
      if (c !== 0x5c) {
        out[o++] = c;
        continue;
      }
      const e = bytes[++i]!;
      if (e !== 0x75) {
        out[o++] = e === 0x6e ? 0x0a : e === 0x74 ? 0x09 : e === 0x72 ? 0x0d : e === 0x62 ? 0x08 : e === 0x66 ? 0x0c : e; // \n \t \r \b \f; \" \\ \/ as they are
        continue;
      }
      let u = hex4(bytes, i + 1);
      i += 4;
      if (u >= 0xd800 && u <= 0xdfff) {
        // A pair of escapes (high, low) is one character; either alone is not one.
        const low = u <= 0xdbff && bytes[i + 1] === 0x5c && bytes[i + 2] === 0x75 ? hex4(bytes, i + 3) : -1;
        if (low < 0xdc00 || low > 0xdfff) return undefined;
        u = 0x10000 + ((u - 0xd800) << 10) + (low - 0xdc00);
        i += 6;
        out[o++] = 0xf0 | (u >> 18);
        out[o++] = 0x80 | ((u >> 12) & 0x3f);
        out[o++] = 0x80 | ((u >> 6) & 0x3f);
        out[o++] = 0x80 | (u & 0x3f);
      } else if (u < 0x80) out[o++] = u;
      else if (u < 0x800) {
        out[o++] = 0xc0 | (u >> 6);
        out[o++] = 0x80 | (u & 0x3f);
      } else {
        out[o++] = 0xe0 | (u >> 12);
        out[o++] = 0x80 | ((u >> 6) & 0x3f);
        out[o++] = 0x80 | (u & 0x3f);
      }
    }
  }
  at.end = o;
  o += out.write(tail, o, 'latin1');
  return out.subarray(0, o);
}

/** The four hex digits at `i` of `b` as a number (the match proved them hex digits). */
function hex4(b: Buffer, i: number): number {
  let v = 0;
  for (let k = i; k < i + 4; k++) {
    const c = b[k]!;
    v = (v << 4) | (c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57);
  }
  return v;
}

/** Where scanTranscriptFile puts each line, in order. */
export interface TranscriptSink {
  /**
   * Offered each line before the reader parses it, as the `text` it is in and the index where it
   * `start`s (it runs to the next `\n` or the end of `text`; `lineNo` 1-based): the index where the
   * line ends when it took the line, else -1. The reader then never sees it (the sink must count it:
   * TranscriptLineReader's countRecognised). For sinks that recognise lines without parsing them
   * (wire/chunk-line.ts), which need not look for the line's end first. `text` is the decoded text
   * when `bytes` is undefined (the piece was ASCII); else it is `bytes` read as Latin-1 (a character
   * per byte, so offsets into it are offsets into `bytes`): a part of it is decoded from UTF-8 with
   * `bytes.toString('utf8', start, end)`. (UTF-8 decoding runs at a tenth of the speed of reading
   * bytes as Latin-1, so only what is needed as text is decoded, where it is needed.)
   */
  take?(text: string, start: number, lineNo: number, bytes?: Buffer): number;
  /** A line the reader read (blank lines, the header and notes never come here). */
  line(l: TranscriptLine): void;
}

/**
 * readTranscriptFile's loop, line by line into a sink: yields after each read's lines (a place for
 * the caller to hand on what it gathered), in order. Errors as readTranscriptFile's.
 */
export function* scanTranscriptFile(file: string, sink: TranscriptSink, reader = new TranscriptLineReader(), readBytes = READ_BYTES, prefetch = false): Generator<void> {
  const bytes = byteSource(openCapture(file));
  const ahead = prefetch && bytes.file !== undefined ? new Prefetcher(bytes.file, readBytes) : undefined;
  let offset = 0;
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
      ahead?.at(offset);
      const n = bytes.read(buf, have, readBytes);
      offset += n;
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
      const take = sink.take?.bind(sink);
      try {
        // Decoded a piece of lines at a time: a piece stays in V8's young generation (a string over
        // ~128 KB takes fresh pages of its own; over ~1 MB Node makes it external memory, which makes
        // V8 run full collections).
        for (let p = 0; p < upto;) {
          let q = Math.min(p + PIECE_BYTES, upto);
          if (q < upto) {
            const cut = buf.lastIndexOf(10, q - 1);
            if (cut >= p) q = cut + 1;
            else {
              const nl = buf.indexOf(10, q); // one line longer than a piece
              q = nl >= 0 && nl < upto ? nl + 1 : upto;
            }
          }
          const piece = buf.subarray(p, q);
          const ascii = isAscii(piece);
          // For a sink that takes lines, a piece with non-ASCII is read as Latin-1 (see TranscriptSink.take).
          const bytes = ascii || take === undefined ? undefined : piece;
          const text = ascii || bytes !== undefined ? piece.toString('latin1') : piece.toString('utf8');
          p = q;
          let start = 0;
          while (start < text.length) {
            lineNo++;
            if (take !== undefined) {
              const end = take(text, start, lineNo, bytes);
              if (end >= 0) {
                start = end + 1;
                continue;
              }
            }
            let nl = text.indexOf('\n', start);
            if (nl < 0) nl = text.length;
            const line = bytes !== undefined ? bytes.toString('utf8', start, nl) : start === 0 && nl === text.length ? text : text.slice(start, nl);
            const l = reader.read(line, lineNo);
            if (l !== undefined) sink.line(l);
            start = nl + 1;
          }
        }
      } catch (e) {
        throw e instanceof TranscriptError ? e.inFile(file) : e;
      }
      buf.copy(buf, 0, upto, end);
      have = end - upto;
      yield;
      if (n === 0) break;
    }
  } finally {
    bytes.close();
    ahead?.close();
  }
}

/** Where scanTranscriptFile's reads come from: the file, or the transcript text a capture of another format stands for. */
interface ByteSource {
  /** Set when the bytes are the file's own. */
  file?: string;
  /** Reads up to `length` next bytes into `buf` at `offset`: how many (0 at the end). */
  read(buf: Buffer, offset: number, length: number): number;
  close(): void;
}

function byteSource(opened: OpenedCapture): ByteSource {
  if (opened.kind === 'transcript') {
    const fd = openSync(opened.file, 'r');
    return { file: opened.file, read: (buf, offset, length) => readSync(fd, buf, offset, length, null), close: () => closeSync(fd) };
  }
  const text = Buffer.from(opened.text, 'utf8');
  let at = 0;
  return {
    read: (buf, offset, length) => {
      const n = text.copy(buf, offset, at, Math.min(at + length, text.length));
      at += n;
      return n;
    },
    close: () => undefined,
  };
}

const PREFETCH_AHEAD = 8;

/**
 * Keeps the file's next few reads on their way into the page cache while this thread parses: reads
 * PREFETCH_AHEAD reads ahead on libuv's threads into a scratch buffer (whose contents nobody reads),
 * so a file that is not (or no longer) cached costs disk time beside the parsing, not on top of it.
 */
class Prefetcher {
  private readonly fd: number;
  private readonly scratch: Buffer;
  private next = 0;
  private pending = 0;
  private closed = false;

  constructor(file: string, private readonly readBytes: number) {
    this.fd = openSync(file, 'r');
    this.scratch = Buffer.allocUnsafe(readBytes);
  }

  /** The reader is at `offset`: asks for what lies up to PREFETCH_AHEAD reads beyond it. */
  at(offset: number): void {
    if (this.next < offset) this.next = offset;
    const until = offset + PREFETCH_AHEAD * this.readBytes;
    while (this.next < until) {
      this.pending++;
      read(this.fd, this.scratch, 0, this.readBytes, this.next, () => {
        if (--this.pending === 0 && this.closed) closeSync(this.fd);
      });
      this.next += this.readBytes;
    }
  }

  close(): void {
    this.closed = true;
    if (this.pending === 0) closeSync(this.fd);
  }
}
