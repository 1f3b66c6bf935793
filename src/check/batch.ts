/**
 * How read transcript lines travel from the reading thread to the checking worker: one message per
 * read, made of transferable buffers rather than objects (structured cloning a thousand objects
 * costs as much as parsing them). Plain lines (a frame or stderr line whose text is ASCII, with no
 * size, rawBase64 or truncated mark) become their text in one ASCII buffer plus their seq, t and
 * direction in typed arrays; the rest (non-ASCII text, events, marked frames) travel as the
 * TranscriptLine itself, which is rare. The worker turns each line into the same Item as
 * itemFromLine would, in the same order.
 */
import type { Item, StderrItem } from '../wire/frame.js';
import { frameFromText } from '../wire/make-frame.js';
import { itemFromLine, type TranscriptLine } from '../transcript/format.js';

/**
 * Shared counters between the reader and the checking worker: [DONE] batches checked so far; [WANT]
 * the count the reader is waiting for (it sleeps only when it is far enough ahead, and is woken once
 * when the worker reaches WANT, not after every batch).
 */
export const DONE = 0;
export const WANT = 1;

export interface CheckWorkerData {
  counters: SharedArrayBuffer;
}

export interface LineBatch {
  /** Texts of the plain lines, back to back, ASCII only. */
  text: ArrayBuffer;
  textLength: number;
  /** Per line: end offset of its text (plain lines), seq, t, and DIR_* code. */
  ends: Int32Array;
  seq: Float64Array;
  t: Float64Array;
  dir: Uint8Array;
  /** The lines whose code is OTHER, in order. */
  others: TranscriptLine[];
}

const OTHER = 255;
/** Buffer#utf8Write: Buffer#write without its argument juggling (a third of the packing time). */
interface Utf8Write { utf8Write(s: string, offset: number): number }
const PIECE_BYTES = 64 * 1024;

/** Packs lines into a batch; `transfer` lists the buffers to hand over with it. */
export function packLines(lines: TranscriptLine[]): { batch: LineBatch; transfer: ArrayBuffer[] } {
  const n = lines.length;
  let cap = 4; // room for the longest UTF-8 character: a non-ASCII text never looks ASCII (see below)
  for (let i = 0; i < n; i++) {
    const r = lines[i]!.raw;
    if (r !== undefined) cap += r.length;
  }
  const buf = Buffer.allocUnsafeSlow(cap);
  const ends = new Int32Array(n);
  const seq = new Float64Array(n);
  const t = new Float64Array(n);
  const dir = new Uint8Array(n);
  const others: TranscriptLine[] = [];
  let pos = 0;
  for (let i = 0; i < n; i++) {
    const l = lines[i]!;
    seq[i] = l.seq;
    t[i] = l.t;
    const d = l.dir === 'c2a' ? 0 : l.dir === 'a2c' ? 1 : l.dir === 'stderr' ? 2 : OTHER;
    const r = l.raw;
    // A text is ASCII exactly when its UTF-8 takes one byte per UTF-16 unit; the room left is always
    // at least its length + 4, so a non-ASCII text (cut or not) writes more bytes than its length.
    if (d !== OTHER && r !== undefined && l.size === undefined && l.rawBase64 === undefined && l.truncated === undefined
      && (buf as unknown as Utf8Write).utf8Write(r, pos) === r.length) {
      pos += r.length;
      dir[i] = d;
    } else {
      dir[i] = OTHER;
      others.push(l);
    }
    ends[i] = pos;
  }
  const batch: LineBatch = { text: buf.buffer as ArrayBuffer, textLength: pos, ends, seq, t, dir, others };
  return { batch, transfer: [batch.text, ends.buffer as ArrayBuffer, seq.buffer as ArrayBuffer, t.buffer as ArrayBuffer, dir.buffer as ArrayBuffer] };
}

/** Unpacks a batch into Items (as itemFromLine makes them), calling `each` in order. */
export function unpackLines(b: LineBatch, each: (item: Item) => void): void {
  const bytes = Buffer.from(b.text, 0, b.textLength);
  // Texts are decoded a piece of lines at a time and sliced: a piece stays in V8's young generation
  // (a string over ~128 KB would take fresh pages of its own, over ~1 MB it would be external memory).
  let piece = '';
  let pieceStart = 0;
  let pieceEnd = 0;
  const n = b.dir.length;
  let start = 0;
  let k = 0;
  for (let i = 0; i < n; i++) {
    const d = b.dir[i]!;
    const end = b.ends[i]!;
    if (d === OTHER) {
      each(itemFromLine(b.others[k++]!));
    } else {
      if (end > pieceEnd) {
        let j = i;
        while (j + 1 < n && b.ends[j + 1]! - start <= PIECE_BYTES) j++;
        pieceStart = start;
        pieceEnd = b.ends[j]!;
        piece = bytes.toString('latin1', pieceStart, pieceEnd);
      }
      const raw = piece.slice(start - pieceStart, end - pieceStart);
      if (d === 2) {
        const s: StderrItem = { seq: b.seq[i]!, t: b.t[i]!, dir: 'stderr', raw };
        each(s);
      } else {
        // ASCII: the byte size is the length.
        each(frameFromText(b.seq[i]!, b.t[i]!, d === 0 ? 'c2a' : 'a2c', raw, raw.length));
      }
    }
    start = end;
  }
}
