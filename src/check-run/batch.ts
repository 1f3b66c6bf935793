/**
 * How read transcript lines travel from the reading thread to the checking worker: one message per
 * batch, its lines packed into bytes rather than objects (structured cloning a thousand objects
 * costs as much as parsing them): a file's batches in the slots of a LineRing of shared memory,
 * stored rows in transferred buffers. Plain lines (a frame or stderr line with no size, rawBase64 or
 * truncated mark) become their text in one buffer (ASCII, or UTF-8 marked as such) plus their seq, t
 * and direction in typed arrays; the rest (events, marked frames, a text with a lone surrogate, which
 * UTF-8 cannot carry) travel as the TranscriptLine itself, which is rare, and count toward the
 * batch's size as their text does, so a batch is bounded whatever the lines are; recognised chunk
 * lines (wire/chunk-line.ts) travel as their session id and text body only. The worker turns each
 * line into the same Item as itemFromLine would, in the same order.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import type { Item, StderrItem } from '../wire/frame.js';
import { frameFromText, utf8Length } from '../wire/make-frame.js';
import { itemFromLine, type TranscriptLine } from '../transcript/format.js';
import { CHUNK_UPDATES, type ChunkMessage, chunkLineFrame, type ChunkMatch } from '../wire/chunk-line.js';
import { lazyChunkFrame } from '../wire/lazy-chunk.js';
import { decodeLatin1Utf8 } from '../wire/line-splitter.js';

/**
 * Shared counters between the reader and the checking worker: [DONE] batches checked so far; [WANT]
 * the count the reader is waiting for (it sleeps only when it is far enough ahead, and is woken once
 * when the worker reaches WANT, not after every batch).
 */
export const DONE = 0;
export const WANT = 1;

export interface CheckWorkerData {
  counters: SharedArrayBuffer;
  /** The LineRing's memory and slot size (for a file's lines). */
  ring?: { memory: SharedArrayBuffer; slots: number; slotBytes: number };
  /** Rows of the items table will come (the worker then loads the store's row reader), not file lines. */
  rows: boolean;
  /** The file the worker spools findings into (its parent's: see FindingSpool). */
  spool: { fd: number; path: string };
}

export interface LineBatch {
  /**
   * One transferable buffer (one transfer per message costs half as much as five): the texts of the
   * plain lines back to back, ASCII only, then per line (`count`) its seq and t (float64), the end
   * offset of its text and its AUX (int32) and its DIR_* code (uint8); it may be longer than that.
   * Absent when the batch is in a slot of the shared ring instead (`slot`).
   */
  buffer?: ArrayBuffer;
  /** The batch's slot in the LineRing both threads share (laid out as `buffer` would be), when it has no buffer. */
  slot?: number;
  textLength: number;
  count: number;
  /** The lines whose code is OTHER, in order. */
  others: TranscriptLine[];
}

const OTHER = 255;
/**
 * Codes of the lines recognised as chunk frames (wire/chunk-line.ts): CHUNK + (c2a ? 1 : 0) + 2 *
 * update + CHUNK_ESCAPED when the text has escapes. Their text is the session id, the messageId if
 * any (see chunkAux), then the text's body as the frame writes it; no raw text travels (the worker
 * rebuilds it).
 */
const CHUNK = 3;
/** A chunk line's AUX: its session id's length (below SID_LIMIT), its messageId's length + 1 (0: none) above it, and MID_AFTER. */
const SID_BITS = 20;
const SID_LIMIT = 1 << SID_BITS;
const MID_LIMIT = (1 << 10) - 1;
const MID_AFTER = 1 << 30;

/** A chunk line's AUX (see SID_LIMIT), or -1 when its session id or messageId is too long to say so (the line then travels as a plain one). */
export function chunkAux(m: ChunkMatch): number {
  const sid = m.sidEnd - m.sidStart;
  if (sid >= SID_LIMIT) return -1;
  if (m.midStart < 0) return sid;
  const mid = m.midEnd - m.midStart;
  return mid >= MID_LIMIT ? -1 : sid + (mid + 1) * SID_LIMIT + (m.midAfter ? MID_AFTER : 0);
}
const CHUNK_ESCAPED = 2 * CHUNK_UPDATES.length;
/** Added to a line's code (a plain line's or a chunk line's, never OTHER's) when its text is UTF-8 rather than ASCII. */
const UTF8 = 0x40;
/** String#isWellFormed (Node 20; ES2024): false when the string holds a lone surrogate, which UTF-8 cannot carry (it would arrive as U+FFFD). */
interface WellFormed { isWellFormed(): boolean }
/** Buffer#utf8Write and #latin1Write: Buffer#write without its argument juggling (a third of the packing time). */
interface FastWrite { utf8Write(s: string, offset: number): number; latin1Write(s: string, offset: number): number }
const PIECE_BYTES = 64 * 1024;
/** Room in a batch's buffer beyond its text: the last line's overshoot and the per-line arrays (29 bytes a line). */
const ROOM = 64 * 1024;

/** Byte offsets of a batch's per-line arrays in its buffer, after `textLength` bytes of text. */
function layout(textLength: number, n: number): { seq: number; t: number; ends: number; aux: number; dir: number; size: number } {
  const seq = Math.ceil(textLength / 8) * 8;
  const t = seq + 8 * n;
  const ends = t + 8 * n;
  const aux = ends + 4 * n;
  const dir = aux + 4 * n;
  return { seq, t, ends, aux, dir, size: dir + n };
}

/**
 * Slots of memory both threads share, one batch in each, reused in turn: a batch then costs neither
 * a fresh buffer (whose pages the kernel zeroes and faults in on first write) nor its transfer and
 * the collection of its detached buffer, only a small message naming its slot. The reader must not
 * write into a slot before the worker is done with the batch that was in it (it stays fewer than
 * `slots` batches ahead). A batch too big for a slot travels in a buffer of its own.
 */
export class LineRing {
  readonly memory: SharedArrayBuffer;
  /** `memory`: the other thread's ring's (else a new one). */
  constructor(readonly slots: number, readonly slotBytes: number, memory?: SharedArrayBuffer) {
    this.memory = memory ?? new SharedArrayBuffer(slots * slotBytes);
  }

  /** The size of a slot for batches of `bytes` of text: the text, the last line's overshoot and the per-line arrays. */
  static slotBytesFor(bytes: number): number {
    return Math.ceil((bytes + ROOM) / 8) * 8;
  }
}

/**
 * Packs lines into batches as they are read: each line as it comes (`line`, or `chunk` for a line
 * recognised without parsing), `take` a batch once `full`. With a ring, batches are packed into its
 * slots in turn (see LineRing for what the caller must wait for).
 */
export class LinePacker {
  private text: Buffer & FastWrite;
  /** The ring slot `text` is (-1 when `text` is a buffer of its own), and the next slot to use. */
  private slot = -1;
  private nextSlot = 0;
  private pos = 0;
  /** The text of the lines that travel as themselves (OTHER), counted toward `full`. */
  private otherChars = 0;
  /** Lines so far and their seq, t, text end, AUX and DIR_* code (typed arrays: nothing of them is left for V8's collector to copy). */
  private n = 0;
  private seq = new Float64Array(1024);
  private t = new Float64Array(1024);
  private ends = new Int32Array(1024);
  private aux = new Int32Array(1024);
  private dir = new Uint8Array(1024);
  private others: TranscriptLine[] = [];

  /** `bytes`: the text a batch holds before it is full. */
  constructor(private readonly bytes: number, private readonly ring?: LineRing) {
    this.text = this.fresh();
  }

  /** The buffer the next batch is packed into: the ring's next slot, or a new one. */
  private fresh(): Buffer & FastWrite {
    const ring = this.ring;
    if (ring === undefined) return Buffer.allocUnsafeSlow(this.bytes + ROOM) as Buffer & FastWrite;
    this.slot = this.nextSlot;
    this.nextSlot = (this.nextSlot + 1) % ring.slots;
    return Buffer.from(ring.memory, this.slot * ring.slotBytes, ring.slotBytes) as Buffer & FastWrite;
  }

  get full(): boolean {
    return this.pos + this.otherChars >= this.bytes;
  }

  get empty(): boolean {
    return this.n === 0;
  }

  /** Room for one more line of up to `chars` characters of text (+ 4: see `line`). */
  private room(chars: number): void {
    const need = this.pos + chars + 4;
    if (need > this.text.length) {
      const bigger = Buffer.allocUnsafeSlow(Math.max(need, 2 * this.text.length)) as Buffer & FastWrite;
      this.text.copy(bigger, 0, 0, this.pos);
      this.text = bigger;
      this.slot = -1; // this batch travels in its own buffer (its slot stays unused this turn)
    }
    if (this.n === this.seq.length) {
      const cap = 2 * this.seq.length;
      const grow = <A extends Float64Array | Int32Array | Uint8Array>(a: A, b: A): A => (b.set(a), b);
      this.seq = grow(this.seq, new Float64Array(cap));
      this.t = grow(this.t, new Float64Array(cap));
      this.ends = grow(this.ends, new Int32Array(cap));
      this.aux = grow(this.aux, new Int32Array(cap));
      this.dir = grow(this.dir, new Uint8Array(cap));
    }
  }

  /**
   * Writes `s` at `pos` (room for its length + 4 made): the bytes it took, and whether they are
   * UTF-8 rather than ASCII; -1 when UTF-8 cannot carry it (a lone surrogate).
   */
  private write(s: string): number {
    // A text is ASCII exactly when its UTF-8 takes one byte per UTF-16 unit; the room left is always
    // at least its length + 4, so a non-ASCII text (cut or not) writes more bytes than its length.
    const n = this.text.utf8Write(s, this.pos);
    if (n === s.length) return n;
    if (!(s as unknown as WellFormed).isWellFormed()) return -1;
    const bytes = utf8Length(s);
    this.room(bytes);
    return this.text.utf8Write(s, this.pos);
  }

  /** Adds a line the transcript reader read. */
  line(l: TranscriptLine): void {
    const r = l.raw;
    this.room(r === undefined ? 0 : r.length);
    const k = this.n++;
    this.seq[k] = l.seq;
    this.t[k] = l.t;
    const d = l.dir === 'c2a' ? 0 : l.dir === 'a2c' ? 1 : l.dir === 'stderr' ? 2 : OTHER;
    const n = d !== OTHER && r !== undefined && l.size === undefined && l.rawBase64 === undefined && l.truncated === undefined ? this.write(r) : -1;
    if (n >= 0) {
      this.dir[k] = n === r!.length ? d : d + UTF8;
      this.pos += n;
    } else {
      this.dir[k] = OTHER;
      this.others.push(l);
      this.otherChars += (r?.length ?? 0) + 64;
    }
    this.ends[k] = this.pos;
  }

  /**
   * Adds a line recognised as a chunk line (`m` from matchChunkLine on `line`), whose seq is `seq`:
   * its session id and text span as they are in `line`, which is the line's UTF-8 bytes read as
   * Latin-1 when `utf8` (scanTranscriptFile's `bytes`): written back as Latin-1, they are the bytes
   * again, and the worker decodes them. `aux`: chunkAux(m), which the caller checked is not -1 (a line it is -1 for must go as a plain line).
   */
  chunk(line: string, m: ChunkMatch, seq: number, utf8: boolean, aux = chunkAux(m)): void {
    const sidLength = m.sidEnd - m.sidStart;
    const midLength = m.midStart < 0 ? 0 : m.midEnd - m.midStart;
    this.room(sidLength + midLength + m.spanEnd - m.spanStart);
    const k = this.n++;
    this.seq[k] = seq;
    this.t[k] = m.t;
    this.aux[k] = aux;
    this.dir[k] = CHUNK + (m.dir === 'c2a' ? 1 : 0) + 2 * m.update + (m.escaped ? CHUNK_ESCAPED : 0) + (utf8 ? UTF8 : 0);
    let pos = this.pos + this.text.latin1Write(line.slice(m.sidStart, m.sidEnd), this.pos);
    if (midLength > 0) pos += this.text.latin1Write(line.slice(m.midStart, m.midEnd), pos);
    pos += this.text.latin1Write(line.slice(m.spanStart, m.spanEnd), pos);
    this.pos = pos;
    this.ends[k] = pos;
  }

  /** The lines added since the last take, as a batch; `transfer` lists the buffer to hand over with it. */
  take(): { batch: LineBatch; transfer: ArrayBuffer[] } {
    const n = this.n;
    const at = layout(this.pos, n);
    // The text's own buffer (or slot) is handed over (no copy of the text), with the per-line arrays
    // after it; the next batch gets a fresh one (or the next slot).
    let text = this.text;
    let slot = this.slot;
    if (at.size > text.length) {
      text = Buffer.allocUnsafeSlow(at.size) as Buffer & FastWrite;
      this.text.copy(text, 0, 0, this.pos);
      slot = -1;
    }
    const base = slot < 0 ? 0 : text.byteOffset;
    const buffer = text.buffer as ArrayBuffer;
    new Float64Array(buffer, base + at.seq, n).set(this.seq.subarray(0, n));
    new Float64Array(buffer, base + at.t, n).set(this.t.subarray(0, n));
    new Int32Array(buffer, base + at.ends, n).set(this.ends.subarray(0, n));
    new Int32Array(buffer, base + at.aux, n).set(this.aux.subarray(0, n));
    new Uint8Array(buffer, base + at.dir, n).set(this.dir.subarray(0, n));
    const batch: LineBatch = slot < 0 ? { buffer, textLength: this.pos, count: n, others: this.others } : { slot, textLength: this.pos, count: n, others: this.others };
    this.text = this.fresh();
    this.pos = 0;
    this.otherChars = 0;
    this.n = 0;
    this.others = [];
    return { batch, transfer: slot < 0 ? [buffer] : [] };
  }
}

/**
 * Unpacks a batch into Items (as itemFromLine makes them), calling `each` in order; for a chunk
 * frame also its update kind (the index into CHUNK_UPDATES: the checker's hint that its params have
 * the recognised shape), else -1.
 */
export function unpackLines(b: LineBatch, each: (item: Item, chunk: number) => void, ring?: LineRing): void {
  const n = b.count;
  const at = layout(b.textLength, n);
  const memory = b.buffer ?? ring!.memory;
  const base = b.buffer ? 0 : b.slot! * ring!.slotBytes;
  const bytes = Buffer.from(memory, base, b.textLength);
  const seq = new Float64Array(memory, base + at.seq, n);
  const t = new Float64Array(memory, base + at.t, n);
  const ends = new Int32Array(memory, base + at.ends, n);
  const aux = new Int32Array(memory, base + at.aux, n);
  const dir = new Uint8Array(memory, base + at.dir, n);
  // Texts are decoded a piece of lines at a time and sliced: a piece stays in V8's young generation
  // (a string over ~128 KB would take fresh pages of its own, over ~1 MB it would be external memory).
  // A UTF-8 text is decoded on its own (a piece is Latin-1).
  let piece = '';
  let pieceStart = 0;
  let pieceEnd = 0;
  let start = 0;
  let k = 0;
  const kind = { update: -1 };
  for (let i = 0; i < n; i++) {
    const code = dir[i]!;
    const end = ends[i]!;
    if (code === OTHER) {
      each(itemFromLine(b.others[k++]!), -1);
      start = end;
      continue;
    }
    const utf8 = (code & UTF8) !== 0;
    const d = code & ~UTF8;
    if (end > pieceEnd && !(utf8 && d < CHUNK)) {
      let j = i;
      while (j + 1 < n && ends[j + 1]! - start <= PIECE_BYTES) j++;
      pieceStart = start;
      pieceEnd = ends[j]!;
      piece = bytes.toString('latin1', pieceStart, pieceEnd);
    }
    if (d >= CHUNK) {
      const c = d - CHUNK;
      const a = aux[i]!;
      let sidEnd = start + (a & (SID_LIMIT - 1));
      const sessionId = piece.slice(start - pieceStart, sidEnd - pieceStart);
      let mid: ChunkMessage | undefined;
      const midLength = ((a >>> SID_BITS) & MID_LIMIT) - 1;
      if (midLength >= 0) {
        mid = { id: piece.slice(sidEnd - pieceStart, sidEnd + midLength - pieceStart), after: (a & MID_AFTER) !== 0 };
        sidEnd += midLength; // (the text span starts after the messageId)
      }
      const side = c & 1 ? 'c2a' : 'a2c';
      const update = (c % CHUNK_ESCAPED) >> 1;
      const escaped = c >= CHUNK_ESCAPED;
      // A text that has something to decode (UTF-8, escapes) is decoded only if it is read (the
      // checker never does): its frame holds the span's bytes as they are in the piece.
      if (utf8 ? isUtf8(bytes.subarray(sidEnd, end)) : escaped) {
        each(lazyChunkFrame(seq[i]!, t[i]!, side, sessionId, update, piece.slice(sidEnd - pieceStart, end - pieceStart), escaped, utf8 ? decodeLatin1Utf8 : undefined, kind, undefined, mid), kind.update);
      } else {
        const span = utf8 ? bytes.toString('utf8', sidEnd, end) : piece.slice(sidEnd - pieceStart, end - pieceStart);
        each(chunkLineFrame(seq[i]!, t[i]!, side, sessionId, update, span, escaped, kind, utf8 ? -1 : span.length, mid), kind.update);
      }
    } else {
      const raw = utf8 ? bytes.toString('utf8', start, end) : piece.slice(start - pieceStart, end - pieceStart);
      if (d === 2) {
        const s: StderrItem = { seq: seq[i]!, t: t[i]!, dir: 'stderr', raw };
        each(s, -1);
      } else {
        // The byte size is what was written (the text is well-formed: see LinePacker#write).
        each(frameFromText(seq[i]!, t[i]!, d === 0 ? 'c2a' : 'a2c', raw, end - start), -1);
      }
    }
    start = end;
  }
}

/**
 * Stored items travel the same way: rows of the items table (columns ROW_COLUMNS, as arrays) become
 * their raw text in the buffer (ASCII, or UTF-8 marked as such: text read from SQLite holds no lone
 * surrogate) and their other columns in one JSON text per batch; a row with a blob or a non-finite
 * number travels as the row itself.
 */
export const ROW_COLUMNS = 'seq, t, dir, kind, method, rpc_id, reply_to, latency, session_id, size, raw, raw_bytes, parse_error, truncated';
/**
 * ROW_COLUMNS with the raw text as its bytes (a Buffer): what the reading thread hands on as they
 * are, never decoding UTF-8 into a string and encoding it back (the worker decodes them once).
 */
export const ROW_COLUMNS_RAW_BYTES = ROW_COLUMNS.replace(' raw,', ' CAST(raw AS BLOB) AS raw,');
const RAW = 10;
const RAW_BYTES = 11;
/**
 * Row codes: its raw in the text (ASCII, UTF-8 encoded from a string, or bytes SQLite holds that are
 * valid UTF-8, which the worker decodes only where they are read), or the whole row in `others`.
 */
const ROW_TEXT = 0;
const ROW_UTF8 = 1;
const ROW_WHOLE = 2;
const ROW_UTF8_BYTES = 3;

export interface RowBatch {
  text: ArrayBuffer;
  textLength: number;
  ends: Int32Array;
  code: Uint8Array;
  /** JSON array, one entry per ROW_TEXT/ROW_UTF8 row: its columns but raw and raw_bytes. */
  columns: string;
  others: unknown[][];
}

function finiteOrNull(v: unknown): boolean {
  return v === null || (typeof v === 'number' ? Number.isFinite(v) : typeof v === 'string');
}

export function packRows(rows: unknown[][]): { batch: RowBatch; transfer: ArrayBuffer[] } {
  const n = rows.length;
  let cap = 4; // as in packLines
  for (let i = 0; i < n; i++) {
    const r = rows[i]![RAW];
    if (typeof r === 'string') cap += 3 * r.length; // UTF-8 takes at most 3 bytes a UTF-16 unit
    else if (r instanceof Uint8Array) cap += r.length;
  }
  const buf = Buffer.allocUnsafeSlow(cap) as unknown as Buffer & FastWrite;
  const ends = new Int32Array(n);
  const code = new Uint8Array(n);
  const columns: unknown[][] = [];
  const others: unknown[][] = [];
  let pos = 0;
  for (let i = 0; i < n; i++) {
    const row = rows[i]!;
    const raw = row[RAW];
    const cols = [row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9], row[12], row[13]];
    const bytes = raw instanceof Uint8Array;
    let plain = (bytes || typeof raw === 'string') && row[RAW_BYTES] === null;
    for (let c = 0; plain && c < cols.length; c++) if (!finiteOrNull(cols[c])) plain = false;
    if (!plain) {
      code[i] = ROW_WHOLE;
      // (A raw read as bytes goes as the text it is, as rowToItem takes it.)
      others.push(bytes ? [...row.slice(0, RAW), Buffer.from(raw).toString('utf8'), ...row.slice(RAW + 1)] : row);
    } else if (bytes) {
      // The bytes SQLite holds of the text: decoded on the worker as they would have been here.
      (raw as Uint8Array as Buffer).copy(buf, pos);
      code[i] = isAscii(raw) ? ROW_TEXT : isUtf8(raw) ? ROW_UTF8_BYTES : ROW_UTF8;
      pos += raw.length;
      columns.push(cols);
    } else {
      const written = buf.utf8Write(raw as string, pos);
      code[i] = written === (raw as string).length ? ROW_TEXT : ROW_UTF8;
      pos += written;
      columns.push(cols);
    }
    ends[i] = pos;
  }
  const batch: RowBatch = { text: buf.buffer as ArrayBuffer, textLength: pos, ends, code, columns: JSON.stringify(columns), others };
  return { batch, transfer: [batch.text, ends.buffer as ArrayBuffer, code.buffer as ArrayBuffer] };
}

/**
 * Unpacks a batch of rows into objects shaped like the items table's rows (for rowToItem), in order;
 * `bytes` true when the row's raw is its UTF-8 bytes a character each (rowToItem's `decode` then
 * decodes it: decodeLatin1Utf8).
 */
export function unpackRows<R>(b: RowBatch, each: (row: R, bytes: boolean) => void): void {
  const bytes = Buffer.from(b.text, 0, b.textLength);
  const columns = JSON.parse(b.columns) as unknown[][];
  const n = b.code.length;
  let start = 0;
  let k = 0;
  let o = 0;
  for (let i = 0; i < n; i++) {
    const end = b.ends[i]!;
    const code = b.code[i]!;
    let row: Record<string, unknown>;
    if (code === ROW_WHOLE) {
      const r = b.others[o++]!;
      row = { seq: r[0], t: r[1], dir: r[2], kind: r[3], method: r[4], rpc_id: r[5], reply_to: r[6], latency: r[7], session_id: r[8], size: r[9], raw: r[10], raw_bytes: r[11], parse_error: r[12], truncated: r[13] };
    } else {
      const c = columns[k++]!;
      const raw = bytes.toString(code === ROW_UTF8 ? 'utf8' : 'latin1', start, end);
      row = { seq: c[0], t: c[1], dir: c[2], kind: c[3], method: c[4], rpc_id: c[5], reply_to: c[6], latency: c[7], session_id: c[8], size: c[9], raw, raw_bytes: null, parse_error: c[10], truncated: c[11] };
    }
    each(row as R, code === ROW_UTF8_BYTES);
    start = end;
  }
}
