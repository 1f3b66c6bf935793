/**
 * A single-producer, single-consumer byte ring in a SharedArrayBuffer: how the forwarding thread
 * hands chunks to the recorder worker without a message per chunk, without a structured-clone copy,
 * and with memory fixed up front. The writer never waits: a record that does not fit is refused and
 * the caller accounts for it (a gap). Records keep their order: chunks and control messages share
 * one ring.
 *
 * Record: 16-byte header (payload length u32, type u32, t f64, little endian) then the payload,
 * wrapping around the end of the buffer as needed. Positions are 32-bit counters that wrap; the
 * capacity is a power of two, so `pos & (cap - 1)` is the offset and `(w - r) | 0` the bytes in use.
 */

/** Control slots (Int32): write position, read position, a wake-up counter, reader-is-waiting flag. */
const W = 0;
const R = 1;
const SIG = 2;
const WAITING = 3;
/** Bumped by the native forwarder for each chunk it spills straight into its overflow file (a burst). */
const SPILLED = 4;
/** Int64 at this byte: overflow-file bytes the recorder has taken (the native forwarder then writes the file over). */
const OVERFLOW_TAKEN_AT = 40;
const CTL_BYTES = 64;
const HEADER = 16;
/**
 * Records start on 8-byte boundaries: V8 copies into shared memory word by word only when source and
 * destination are mutually aligned, and byte by byte (about 4× slower) otherwise.
 */
export const pad8 = (n: number) => (n + 7) & ~7;
/** Bytes of a record's header (see above). */
export const RING_HEADER = HEADER;

/** A record's header, decoded; `size` is the whole record's (header, payload and padding). */
export interface RecordHeader { len: number; type: number; t: number; size: number }

/** Writes the header of a record of `len` payload bytes into `head` (RING_HEADER bytes). */
export function encodeHeader(head: Buffer, len: number, type: number, t: number): Buffer {
  head.writeUInt32LE(len, 0);
  head.writeUInt32LE(type, 4);
  head.writeDoubleLE(t, 8);
  return head;
}

/** Reads the header at `off` of a buffer holding records (the ring's, or a copy of them in a file). */
export function decodeHeader(buf: Buffer, off = 0): RecordHeader {
  const len = buf.readUInt32LE(off);
  return { len, type: buf.readUInt32LE(off + 4), t: buf.readDoubleLE(off + 8), size: HEADER + pad8(len) };
}

/** Record type for a control message (JSON payload); 0..2 are the stream codes. */
export const RING_CONTROL = 3;

export interface RingRecord {
  type: number;
  t: number;
  payload: Buffer;
}

function view(sab: SharedArrayBuffer): { ctl: Int32Array; data: Buffer; cap: number } {
  const cap = sab.byteLength - CTL_BYTES;
  if (cap <= 0 || (cap & (cap - 1)) !== 0) throw new Error('ring capacity must be a power of two');
  return { ctl: new Int32Array(sab, 0, CTL_BYTES / 4), data: Buffer.from(sab, CTL_BYTES, cap), cap };
}

/** Allocates a ring able to hold `capacity` bytes (rounded up to a power of two). */
export function createRing(capacity: number): SharedArrayBuffer {
  let cap = 1024;
  while (cap < capacity) cap *= 2;
  return new SharedArrayBuffer(CTL_BYTES + cap);
}

export class RingWriter {
  private readonly ctl: Int32Array;
  private readonly data: Buffer;
  private readonly cap: number;
  private readonly head = Buffer.alloc(HEADER);
  private w: number;

  constructor(sab: SharedArrayBuffer) {
    ({ ctl: this.ctl, data: this.data, cap: this.cap } = view(sab));
    this.w = Atomics.load(this.ctl, W);
  }

  /** Bytes the reader has consumed so far (wrapping counter): a change means progress. */
  get readPosition(): number {
    return Atomics.load(this.ctl, R);
  }

  /** Bytes that can be written now. */
  get free(): number {
    return this.cap - ((this.w - Atomics.load(this.ctl, R)) | 0);
  }

  /** Appends one record; false (and nothing written) when it does not fit right now. */
  write(type: number, t: number, payload: Buffer): boolean {
    const need = HEADER + pad8(payload.length);
    const used = (this.w - Atomics.load(this.ctl, R)) | 0;
    if (need > this.cap - used) return false;
    this.copyIn(encodeHeader(this.head, payload.length, type, t), this.w);
    this.copyIn(payload, (this.w + HEADER) | 0);
    this.w = (this.w + need) | 0;
    Atomics.store(this.ctl, W, this.w);
    // Wake the reader only if it sleeps, and only once per sleep: no syscall per chunk.
    if (Atomics.load(this.ctl, WAITING) === 1 && Atomics.compareExchange(this.ctl, WAITING, 1, 0) === 1) {
      Atomics.add(this.ctl, SIG, 1);
      Atomics.notify(this.ctl, SIG);
    }
    return true;
  }

  private copyIn(src: Buffer, pos: number): void {
    const off = pos & (this.cap - 1);
    const first = Math.min(src.length, this.cap - off);
    src.copy(this.data, off, 0, first);
    if (first < src.length) src.copy(this.data, 0, first);
  }
}

export class RingReader {
  private readonly ctl: Int32Array;
  private readonly data: Buffer;
  private readonly cap: number;
  private readonly head = Buffer.alloc(HEADER);
  private readonly overflowTaken: BigInt64Array;

  /**
   * `waker`, when given, is how a sleeping reader is woken (a promise that resolves on the writer's
   * signal) instead of Atomics.waitAsync: the native forwarder writes to a pipe.
   */
  constructor(sab: SharedArrayBuffer, private readonly waker: (() => Promise<void>) | null = null) {
    ({ ctl: this.ctl, data: this.data, cap: this.cap } = view(sab));
    this.overflowTaken = new BigInt64Array(sab, OVERFLOW_TAKEN_AT, 1);
  }

  /** Chunks the native forwarder spilled into its overflow file so far (a counter that wraps): moving means a burst. */
  get spilled(): number {
    return Atomics.load(this.ctl, SPILLED);
  }

  /** Tells the writer that `bytes` more of its overflow file were taken (read and handed on). */
  tookOverflow(bytes: number): void {
    Atomics.add(this.overflowTaken, 0, BigInt(bytes));
  }

  /** Bytes written and not yet read: how far the reader is behind. */
  get used(): number {
    return (Atomics.load(this.ctl, W) - Atomics.load(this.ctl, R)) | 0;
  }

  /** Takes the next record (its payload copied out, its space released), or null when empty. */
  read(): RingRecord | null {
    const r = Atomics.load(this.ctl, R);
    const w = Atomics.load(this.ctl, W);
    if (((w - r) | 0) < HEADER) return null;
    const { len, type, t, size } = this.headerAt(r);
    const payload = this.payloadAt(r, len);
    Atomics.store(this.ctl, R, (r + size) | 0);
    return { type, t, payload };
  }

  /**
   * The unread records as they lie in the ring, without copying: one slice, or two when they wrap
   * around the end. `start` is the read position; the slices hold whole records (the writer publishes
   * a record only once it is complete). Release them with `release(bytes)` once used.
   */
  region(): { start: number; bytes: number; slices: Buffer[] } {
    const r = Atomics.load(this.ctl, R);
    const bytes = (Atomics.load(this.ctl, W) - r) | 0;
    const off = r & (this.cap - 1);
    const first = Math.min(bytes, this.cap - off);
    const slices = bytes === 0 ? [] : [this.data.subarray(off, off + first)];
    if (first < bytes) slices.push(this.data.subarray(0, bytes - first));
    return { start: r, bytes, slices };
  }

  /** The header of the record at position `pos` (inside the unread region). */
  headerAt(pos: number): RecordHeader {
    this.copyOut(this.head, pos);
    return decodeHeader(this.head);
  }

  /** A copy of the payload of the record at `pos` whose payload is `len` bytes long. */
  payloadAt(pos: number, len: number): Buffer {
    const payload = Buffer.allocUnsafe(len);
    this.copyOut(payload, (pos + HEADER) | 0);
    return payload;
  }

  /** Bytes of the ring's data area. */
  get capacity(): number {
    return this.cap;
  }

  /** Marks `bytes` (whole records, from the read position on) as read, freeing their space. */
  release(bytes: number): void {
    Atomics.store(this.ctl, R, (Atomics.load(this.ctl, R) + bytes) | 0);
  }

  /**
   * Resolves when a record may be available (at once if one is), or after `timeoutMs` without one.
   * After a wake-up it lets `batchMs` pass before resolving, so a busy stream is taken in large
   * slices rather than chunk by chunk.
   */
  async wait(batchMs = 5, timeoutMs = Infinity): Promise<void> {
    const sig = Atomics.load(this.ctl, SIG);
    Atomics.store(this.ctl, WAITING, 1);
    if (((Atomics.load(this.ctl, W) - Atomics.load(this.ctl, R)) | 0) > 0) {
      Atomics.store(this.ctl, WAITING, 0);
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const timedOut = Number.isFinite(timeoutMs) ? new Promise<'timeout'>((r) => { timer = setTimeout(() => r('timeout'), Math.max(0, timeoutMs)); }) : null;
    let woken: Promise<unknown>;
    if (this.waker) {
      // The writer clears WAITING before it signals: a signal that raced the check above is seen
      // here at once, and a stale one costs one empty look at the ring.
      woken = this.waker();
    } else {
      const res = (Atomics as unknown as { waitAsync(a: Int32Array, i: number, v: number, t?: number): { async: boolean; value: unknown } }).waitAsync(this.ctl, SIG, sig, Number.isFinite(timeoutMs) ? Math.max(0, timeoutMs) : undefined);
      woken = res.async ? (res.value as Promise<unknown>) : Promise.resolve();
    }
    const how = await (timedOut ? Promise.race([woken, timedOut]) : woken);
    clearTimeout(timer);
    Atomics.store(this.ctl, WAITING, 0);
    if (how === 'timeout' || how === 'timed-out') return;
    if (batchMs > 0) await new Promise((r) => setTimeout(r, batchMs));
  }

  private copyOut(dst: Buffer, pos: number): void {
    const off = pos & (this.cap - 1);
    const first = Math.min(dst.length, this.cap - off);
    this.data.copy(dst, 0, off, off + first);
    if (first < dst.length) this.data.copy(dst, first, 0, dst.length - first);
  }
}
