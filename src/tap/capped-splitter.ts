/**
 * A line splitter that keeps at most `cap` bytes of any line, so a peer that writes gigabytes
 * without a newline cannot make the recorder's memory grow without bound. Bytes past the cap are
 * counted, not kept; the line comes out cut, with its full size, and is stored marked truncated.
 * Forwarding never goes through here: it is never capped.
 */
import { LineSplitter } from '../wire/line-splitter.js';

/** A completed line: its kept bytes and its full size on the wire. */
export interface CappedLine {
  bytes: Buffer;
  size: number;
}

/** Largest line kept whole by default (a base64 image of tens of MB fits). */
export const DEFAULT_LINE_CAP = 64 * 1024 * 1024;

/**
 * A line in progress longer than this is kept in one buffer of the cap's size, filled as it comes
 * (its pages are only memory once written), rather than in pieces joined at its end: a line of
 * tens of MB is then held once, not twice.
 */
const BIG_LINE = 4 * 1024 * 1024;

const NL = Buffer.from('\n');

export class CappedLineSplitter {
  private readonly inner = new LineSplitter();
  /** Bytes of the line in progress beyond the cap (dropped). */
  private over = 0;
  /** A long line in progress (see BIG_LINE), and how much of it is kept. */
  private big: Buffer | null = null;
  private bigLen = 0;

  /** `bigLine`: see BIG_LINE (smaller in tests). */
  constructor(private readonly cap: number = DEFAULT_LINE_CAP, private readonly bigLine = BIG_LINE) {}

  push(chunk: Buffer): CappedLine[] {
    // Fast path: no long line in progress, and the whole chunk fits within the cap for the line in
    // progress and every line in it.
    if (this.over === 0 && this.big === null && this.inner.pending + chunk.length <= Math.min(this.cap, this.bigLine)) {
      return this.inner.push(chunk).map((bytes) => ({ bytes, size: bytes.length }));
    }
    const out: CappedLine[] = [];
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl;
      const seg = end - start;
      const keep = Math.min(seg, Math.max(0, this.cap - this.kept));
      if (keep > 0) this.keep(chunk.subarray(start, start + keep));
      this.over += seg - keep;
      if (nl === -1) break;
      const size = this.kept + this.over;
      out.push({ bytes: this.take(), size });
      this.over = 0;
      start = nl + 1;
    }
    return out;
  }

  /** Adds bytes to the line in progress (within the cap). */
  private keep(bytes: Buffer): void {
    if (this.big === null && this.inner.pending + bytes.length > this.bigLine) {
      this.big = Buffer.allocUnsafe(this.cap);
      this.bigLen = this.inner.peek().copy(this.big, 0);
      this.inner.discard();
    }
    if (this.big !== null) this.bigLen += bytes.copy(this.big, this.bigLen);
    else this.inner.push(bytes);
  }

  /** The line in progress's kept bytes, as a completed line; starts the next one. */
  private take(): Buffer {
    const big = this.big;
    if (big === null) return this.inner.push(NL)[0]!;
    this.big = null;
    return big.subarray(0, this.bigLen);
  }

  /** Bytes of the line in progress, counting those past the cap. */
  get pending(): number {
    return this.kept + this.over;
  }

  /** Bytes kept of the line in progress. */
  get kept(): number {
    return this.big !== null ? this.bigLen : this.inner.pending;
  }

  /** The line in progress: its kept bytes and how many past the cap were dropped (to resume from). */
  snapshot(): { kept: Buffer; over: number } {
    return { kept: this.big !== null ? Buffer.from(this.big.subarray(0, this.bigLen)) : this.inner.peek(), over: this.over };
  }

  /** Starts again from a snapshot. */
  restore(s: { kept: Buffer; over: number }): void {
    this.big = null;
    this.inner.discard();
    this.keep(s.kept);
    this.over = s.over;
  }

  /** Drops the line in progress (after a gap); returns how many bytes it had. */
  discard(): number {
    const n = this.pending;
    this.big = null;
    this.inner.discard();
    this.over = 0;
    return n;
  }

  /** End of stream: a final line without `\n` is a line too. */
  end(): CappedLine | null {
    const size = this.pending;
    const bytes = this.big !== null ? this.take() : this.inner.end();
    this.over = 0;
    if (size === 0) return null;
    return { bytes: bytes ?? Buffer.alloc(0), size };
  }
}
