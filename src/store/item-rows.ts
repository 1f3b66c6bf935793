/**
 * An item as the row it is stored as (the `items` table's columns), and rows packed to cross from
 * one thread to another. Nothing here opens SQLite: the indexer's worker (tap/index-worker.ts) packs
 * the rows it makes, and the thread that writes them (Store.insertPacked) unpacks them.
 *
 * Packed rows are three typed arrays and one byte arena, all transferred (moved, never copied): a
 * batch of 500 1 KiB frames cloned as objects cost the receiving thread about 1 µs a row, packed
 * 0.25 µs with its raw text decoded from the arena, and less with the raw text bound as the bytes it
 * is (see Store.insertPacked). The receiving thread is the one SQLite keeps busy.
 */
import type { EventItem, Frame, Item } from '../wire/frame.js';
import { chunkColumnOf } from '../wire/lazy-chunk.js';

/** The columns of a row, in INSERT order (see Store's INSERT_ITEMS). */
export const ITEM_COLUMNS = 16;

/**
 * Writes an item's columns into `out` from `at` (in INSERT order); returns 1 for a frame, else 0.
 * `raw`: a frame's raw text as the UTF-8 bytes the caller has of it, written instead of its text
 * (which is then not read: a lazy frame's is decoded only when read).
 */
export function itemColumns(recordingId: number, it: Item, out: unknown[], at: number, raw?: Buffer | null): number {
  out[at] = recordingId;
  out[at + 1] = it.seq;
  out[at + 2] = it.t;
  out[at + 3] = it.dir;
  if (it.dir === 'c2a' || it.dir === 'a2c') {
    const f = it as Frame;
    out[at + 4] = f.kind;
    out[at + 5] = f.method ?? null;
    out[at + 6] = f.id === undefined ? null : JSON.stringify(f.id);
    out[at + 7] = f.replyTo ?? null;
    out[at + 8] = f.latency ?? null;
    out[at + 9] = f.sessionId ?? null;
    out[at + 10] = f.size;
    out[at + 11] = raw ?? f.raw;
    out[at + 12] = f.rawBase64 !== undefined ? Buffer.from(f.rawBase64, 'base64') : null;
    out[at + 13] = f.parseError ?? null;
    out[at + 14] = f.truncated ? 1 : null;
    out[at + 15] = chunkColumnOf(f);
    return 1;
  }
  const stderr = it.dir === 'stderr';
  out[at + 4] = stderr ? null : (it as EventItem).type;
  for (let k = 5; k < 10; k++) out[at + k] = null;
  out[at + 10] = stderr ? Buffer.byteLength(it.raw) : null;
  out[at + 11] = stderr ? it.raw : JSON.stringify((it as EventItem).data);
  out[at + 12] = null;
  out[at + 13] = null;
  out[at + 14] = null;
  out[at + 15] = null;
  return 0;
}

/** Columns held as numbers (null as NaN), as short strings (an index into `strings`, null as -1), and as bytes. */
const NUM_COLS = [1, 2, 7, 8, 10, 14, 15] as const;
const STR_COLS = [3, 4, 5, 6, 9, 13] as const;
const RAW = 11;
/** The column of the raw text. */
export const ITEM_RAW = RAW;
const RAW_BYTES = 12;
/** Per row: the numbers, then the raw text's and the raw bytes' start and length in the arena (-1: none). */
const NUMS = NUM_COLS.length + 4;

/** Rows packed for another thread: transfer `nums.buffer`, `strs.buffer` and `arena` (see transferList). */
export interface PackedRows {
  count: number;
  /** Rows that are frames (the recording's frame count). */
  frames: number;
  /** The last row's time. */
  lastT: number;
  /** The last row's seq. */
  lastSeq: number;
  nums: Float64Array;
  strs: Int32Array;
  strings: string[];
  arena: ArrayBuffer;
}

const EMPTY = Buffer.alloc(0);
const MIN_ARENA = 64 * 1024;

/** What to move, not copy, when posting `p`. */
export function transferList(p: PackedRows): ArrayBuffer[] {
  return [p.nums.buffer as ArrayBuffer, p.strs.buffer as ArrayBuffer, p.arena];
}

/** Packs rows one item at a time; take() hands the batch over and starts a new one. */
export class RowPacker {
  private readonly cols = new Array<unknown>(ITEM_COLUMNS);
  private nums = new Float64Array(0);
  private strs = new Int32Array(0);
  private strings: string[] = [];
  private index = new Map<string, number>();
  private arena = EMPTY;
  private used = 0;
  /** The size of the next arena. */
  private next = MIN_ARENA;
  count = 0;
  private frames = 0;
  private lastT = 0;
  private lastSeq = 0;

  /** `spare`: arenas handed back once their batch was written, used again before new ones are made. */
  constructor(private readonly spare: ArrayBuffer[] = []) {}

  /** Bytes the batch holds (its arena's text and bytes). */
  get bytes(): number {
    return this.used;
  }

  add(item: Item): void {
    const { cols } = this;
    this.frames += itemColumns(0, item, cols, 0);
    const i = this.count++;
    if (i * NUMS >= this.nums.length) this.grow();
    const n = i * NUMS;
    for (let k = 0; k < NUM_COLS.length; k++) {
      const v = cols[NUM_COLS[k]!] as number | null;
      this.nums[n + k] = v === null ? NaN : v;
    }
    const s = i * STR_COLS.length;
    for (let k = 0; k < STR_COLS.length; k++) this.strs[s + k] = this.stringIndex(cols[STR_COLS[k]!] as string | null);
    const raw = cols[RAW] as string;
    this.fit(raw.length * 3);
    const at = this.used;
    this.used += this.arena.write(raw, at);
    this.nums[n + NUM_COLS.length] = at;
    this.nums[n + NUM_COLS.length + 1] = this.used - at;
    const bytes = cols[RAW_BYTES] as Buffer | null;
    if (bytes) {
      this.fit(bytes.length);
      bytes.copy(this.arena, this.used);
      this.nums[n + NUM_COLS.length + 2] = this.used;
      this.nums[n + NUM_COLS.length + 3] = bytes.length;
      this.used += bytes.length;
    } else this.nums[n + NUM_COLS.length + 2] = -1;
    this.lastT = item.t;
    this.lastSeq = item.seq;
    cols.fill(null);
  }

  /** The batch so far (null when empty); the packer starts a new one. */
  take(): PackedRows | null {
    if (this.count === 0) return null;
    const p: PackedRows = {
      count: this.count, frames: this.frames, lastT: this.lastT, lastSeq: this.lastSeq,
      nums: this.nums.slice(0, this.count * NUMS), strs: this.strs.slice(0, this.count * STR_COLS.length), strings: this.strings,
      arena: this.arena.buffer as ArrayBuffer,
    };
    // The arena goes with the batch; the next one is sized for a batch like it.
    this.next = this.used + (this.used >> 2);
    this.arena = EMPTY;
    this.count = this.frames = this.used = 0;
    this.strings = [];
    this.index = new Map();
    return p;
  }

  private stringIndex(v: string | null): number {
    if (v === null) return -1;
    let k = this.index.get(v);
    if (k === undefined) {
      k = this.strings.length;
      this.strings.push(v);
      this.index.set(v, k);
    }
    return k;
  }

  private grow(): void {
    const rows = Math.max(64, this.count * 2);
    const nums = new Float64Array(rows * NUMS);
    nums.set(this.nums);
    this.nums = nums;
    const strs = new Int32Array(rows * STR_COLS.length);
    strs.set(this.strs);
    this.strs = strs;
  }

  /** Makes room for `n` more bytes in the arena. */
  private fit(n: number): void {
    if (this.used + n <= this.arena.length) return;
    const size = Math.max(this.used + n, this.arena.length * 2, this.next, MIN_ARENA);
    const i = this.spare.findIndex((a) => a.byteLength >= size);
    // Its own memory (never Node's shared pool): it is transferred whole.
    const next = i >= 0 ? Buffer.from(this.spare.splice(i, 1)[0]!) : Buffer.allocUnsafeSlow(size);
    this.arena.copy(next, 0, 0, this.used);
    if (this.arena.length > 0) keepArena(this.spare, this.arena.buffer as ArrayBuffer);
    this.arena = next;
  }
}

/**
 * Arenas kept for packing again: as many as the batches a worker makes ahead of its writer
 * (MAX_IN_FLIGHT in tap/recorder/batch-bounds.ts), which is what comes back.
 */
const SPARE_ARENAS = 4;

/**
 * Keeps `arena` in `spare` (a RowPacker's) to pack into again; when enough are kept, in place of the
 * smallest if it is larger. Keeping the first ones alone filled the list with the small arenas a
 * packer's first batch grows through (64 KiB to 512 KiB), which no later batch fits in: every batch
 * then took a new arena of megabytes, the pages of each touched for the first time as rows were
 * written into it (250 new arenas for 250 batches of 4000 1 KiB rows, now 10; packing them took
 * 1.27 s, now 0.56).
 */
export function keepArena(spare: ArrayBuffer[], arena: ArrayBuffer): void {
  if (spare.length < SPARE_ARENAS) {
    spare.push(arena);
    return;
  }
  let smallest = 0;
  for (let i = 1; i < spare.length; i++) if (spare[i]!.byteLength < spare[smallest]!.byteLength) smallest = i;
  if (arena.byteLength > spare[smallest]!.byteLength) spare[smallest] = arena;
}

/**
 * Unpacks row `i` of `p` into `out` from `at` (in INSERT order), for `recordingId`; `arena` is
 * Buffer.from(p.arena). The row's columns as itemColumns wrote them before packing, but for the raw
 * text, which comes as its UTF-8 bytes (a view of the arena: see Store.insertPacked).
 */
export function unpackRow(p: PackedRows, arena: Buffer, i: number, recordingId: number, out: unknown[], at: number): void {
  out[at] = recordingId;
  const n = i * NUMS;
  const { nums, strs, strings } = p;
  for (let k = 0; k < NUM_COLS.length; k++) {
    const v = nums[n + k]!;
    out[at + NUM_COLS[k]!] = Number.isNaN(v) ? null : v;
  }
  const s = i * STR_COLS.length;
  for (let k = 0; k < STR_COLS.length; k++) {
    const x = strs[s + k]!;
    out[at + STR_COLS[k]!] = x < 0 ? null : strings[x]!;
  }
  const r = nums[n + NUM_COLS.length]!;
  out[at + RAW] = arena.subarray(r, r + nums[n + NUM_COLS.length + 1]!);
  const b = nums[n + NUM_COLS.length + 2]!;
  out[at + RAW_BYTES] = b < 0 ? null : arena.subarray(b, b + nums[n + NUM_COLS.length + 3]!);
}
