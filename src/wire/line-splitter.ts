/**
 * Splits a byte stream into lines at `\n`, on bytes rather than strings, so a multi-byte UTF-8
 * character split across two reads is never corrupted. Lines are returned without their `\n`; a `\r`
 * before it is kept (it is part of the raw frame; parsers tolerate it). No cap on line length: a
 * partial line is kept as a list of copied pieces and joined once. Lines returned are views of the
 * chunk pushed (valid until the caller reuses it); nothing of a chunk is kept past `push`.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private partLen = 0;

  /** Feed a chunk; returns the lines it completed, in order. */
  push(chunk: Buffer): Buffer[] {
    const lines: Buffer[] = [];
    let start = 0;
    let nl = chunk.indexOf(10, start);
    while (nl !== -1) {
      const piece = chunk.subarray(start, nl);
      if (this.partLen > 0) {
        this.parts.push(piece);
        lines.push(Buffer.concat(this.parts, this.partLen + piece.length));
        this.parts = [];
        this.partLen = 0;
      } else {
        lines.push(piece);
      }
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    if (start < chunk.length) {
      // A copy, not a view: the caller may reuse `chunk`'s memory for its next read.
      this.parts.push(Buffer.from(chunk.subarray(start)));
      this.partLen += chunk.length - start;
    }
    return lines;
  }

  /** Bytes of the line in progress. */
  get pending(): number {
    return this.partLen;
  }

  /** A copy of the line in progress (to resume from: see restore). */
  peek(): Buffer {
    return Buffer.concat(this.parts, this.partLen);
  }

  /** Starts again with `bytes` as the line in progress (what peek() gave). */
  restore(bytes: Buffer): void {
    this.parts = bytes.length > 0 ? [Buffer.from(bytes)] : [];
    this.partLen = bytes.length;
  }

  /** Drop the line in progress (after a gap in the stream); returns how many bytes were dropped. */
  discard(): number {
    const n = this.partLen;
    this.parts = [];
    this.partLen = 0;
    return n;
  }

  /** End of stream: a final line without `\n` is a line too. */
  end(): Buffer | null {
    if (this.partLen === 0) return null;
    const line = Buffer.concat(this.parts, this.partLen);
    this.parts = [];
    this.partLen = 0;
    return line;
  }
}

/** UTF-8 bytes held as Latin-1 (a character per byte), decoded: a lazy chunk frame's decoder (wire/lazy-chunk.ts). */
export const decodeLatin1Utf8 = (s: string): string => Buffer.from(s, 'latin1').toString('utf8');

/** Decodes bytes as UTF-8, reporting whether they were valid (invalid bytes become U+FFFD). */
export function decodeUtf8(bytes: Buffer): { text: string; valid: boolean } {
  const text = bytes.toString('utf8');
  // Fast path: no replacement character means the bytes were valid.
  if (text.indexOf('\uFFFD') === -1) return { text, valid: true };
  return { text, valid: Buffer.from(text, 'utf8').equals(bytes) };
}
