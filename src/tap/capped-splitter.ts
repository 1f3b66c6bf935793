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

const NL = Buffer.from('\n');

export class CappedLineSplitter {
  private readonly inner = new LineSplitter();
  /** Bytes of the line in progress beyond the cap (dropped). */
  private over = 0;

  constructor(private readonly cap: number = DEFAULT_LINE_CAP) {}

  push(chunk: Buffer): CappedLine[] {
    // Fast path: the whole chunk fits within the cap for the line in progress and every line in it.
    if (this.over === 0 && this.inner.pending + chunk.length <= this.cap) {
      return this.inner.push(chunk).map((bytes) => ({ bytes, size: bytes.length }));
    }
    const out: CappedLine[] = [];
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl;
      const room = Math.max(0, this.cap - this.inner.pending);
      const seg = end - start;
      const keep = Math.min(seg, room);
      if (keep > 0) this.inner.push(chunk.subarray(start, start + keep));
      this.over += seg - keep;
      if (nl === -1) break;
      const kept = this.inner.pending;
      const [bytes] = this.inner.push(NL);
      out.push({ bytes: bytes!, size: kept + this.over });
      this.over = 0;
      start = nl + 1;
    }
    return out;
  }

  /** Bytes of the line in progress, counting those past the cap. */
  get pending(): number {
    return this.inner.pending + this.over;
  }

  /** The line in progress: its kept bytes and how many past the cap were dropped (to resume from). */
  snapshot(): { kept: Buffer; over: number } {
    return { kept: this.inner.peek(), over: this.over };
  }

  /** Starts again from a snapshot. */
  restore(s: { kept: Buffer; over: number }): void {
    this.inner.restore(s.kept);
    this.over = s.over;
  }

  /** Drops the line in progress (after a gap); returns how many bytes it had. */
  discard(): number {
    const n = this.inner.discard() + this.over;
    this.over = 0;
    return n;
  }

  /** End of stream: a final line without `\n` is a line too. */
  end(): CappedLine | null {
    const size = this.inner.pending + this.over;
    const bytes = this.inner.end();
    this.over = 0;
    if (size === 0) return null;
    return { bytes: bytes ?? Buffer.alloc(0), size };
  }
}
