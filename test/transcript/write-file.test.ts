/**
 * chunkLines: lines given as text or as a BytesLine (a frame's raw text as UTF-8 bytes between an
 * ASCII head and tail) come out as the same bytes, however the pieces fall: a line that does not fit
 * goes in the next piece, a line longer than a piece is a piece of its own.
 */
import { describe, expect, it } from 'vitest';
import { chunkLines } from '../../src/transcript/write-file.js';
import { lineText, type LineOut } from '../../src/transcript/format.js';
import { seededRandom } from '../helpers.js';

describe('chunkLines', () => {
  it('writes a BytesLine as the bytes of its text, in pieces of any size', () => {
    const rnd = seededRandom(45);
    const texts = ['é ✓ — 日本語 🚀', 'ascii', '"quoted" \\ \\n', ''];
    const lines: LineOut[] = [];
    for (let i = 0; i < 300; i++) {
      const body = JSON.stringify(texts[i % texts.length]!.repeat(Math.floor(rnd() * 40)));
      const head = `{"t":${i},"dir":"a2c","raw":`;
      const tail = i % 7 ? '}' : ',"truncated":true,"size":9999}';
      lines.push(i % 3 ? { head, bytes: Buffer.from(body, 'utf8'), tail } : head + body + tail);
    }
    const want = Buffer.from(lines.map(lineText).join('\n') + '\n', 'utf8');
    for (const size of [16, 100, 1000, 4096, 1 << 20]) {
      const pieces = [...chunkLines(lines, size)];
      expect(Buffer.concat(pieces).equals(want), `pieces of ${size}`).toBe(true);
      // Only a piece holding a single line longer than the size is over it.
      for (const p of pieces) if (p.length > size) expect(p.indexOf(0x0a)).toBe(p.length - 1);
    }
  });
});
