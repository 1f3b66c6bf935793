/**
 * Property tests for framing: random bytes cut into random chunks split into the same lines as the
 * whole buffer; nothing throws; UTF-8 validity is reported exactly. Seeded and bounded for CI.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LineSplitter, decodeUtf8 } from '../../src/wire/line-splitter.js';

const RUNS = { seed: 20261122, numRuns: 400 };

/** Bytes biased towards what matters: newlines, CR, NUL, UTF-8 lead and continuation bytes. */
const byte = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 255 }) },
  { weight: 2, arbitrary: fc.constantFrom(0x0a, 0x0d, 0x00, 0x20, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0xff) },
);
const bytes = fc.array(byte, { maxLength: 600 }).map((a) => Buffer.from(a));

/** Cuts `buf` at the given (sorted, deduplicated) positions. */
function cut(buf: Buffer, points: number[]): Buffer[] {
  const ps = [...new Set(points.map((p) => p % (buf.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let last = 0;
  for (const p of ps) {
    out.push(buf.subarray(last, p));
    last = p;
  }
  out.push(buf.subarray(last));
  return out;
}

function expectedLines(buf: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < buf.length; i++) {
    if (buf[i] === 0x0a) {
      lines.push(buf.subarray(start, i));
      start = i + 1;
    }
  }
  if (start < buf.length) lines.push(buf.subarray(start));
  return lines;
}

describe('LineSplitter (property)', () => {
  it('any chunking gives the same lines as splitting the whole buffer, final partial line included', () => {
    fc.assert(
      fc.property(bytes, fc.array(fc.nat(), { maxLength: 40 }), (buf, points) => {
        const s = new LineSplitter();
        const got: Buffer[] = [];
        for (const c of cut(buf, points)) got.push(...s.push(c));
        const rest = s.end();
        if (rest) got.push(rest);
        const want = expectedLines(buf);
        expect(got.length).toBe(want.length);
        got.forEach((g, i) => expect(g.equals(want[i]!)).toBe(true));
        expect(s.pending).toBe(0);
      }),
      RUNS,
    );
  });

  it('one-byte chunks give the same lines as one chunk', () => {
    fc.assert(
      fc.property(bytes, (buf) => {
        const one = new LineSplitter();
        const a = [...one.push(buf)];
        const ra = one.end();
        if (ra) a.push(ra);
        const each = new LineSplitter();
        const b: Buffer[] = [];
        for (let i = 0; i < buf.length; i++) b.push(...each.push(buf.subarray(i, i + 1)));
        const rb = each.end();
        if (rb) b.push(rb);
        expect(Buffer.concat(b.map((x) => Buffer.concat([x, Buffer.from('\n')])))).toEqual(Buffer.concat(a.map((x) => Buffer.concat([x, Buffer.from('\n')]))));
      }),
      { ...RUNS, numRuns: 150 },
    );
  });

  it('discard drops exactly the line in progress', () => {
    fc.assert(
      fc.property(bytes, bytes, (a, b) => {
        const s = new LineSplitter();
        s.push(a);
        const lastNl = a.lastIndexOf(0x0a);
        expect(s.discard()).toBe(a.length - (lastNl + 1));
        const got = [...s.push(b)];
        const r = s.end();
        if (r) got.push(r);
        expect(Buffer.concat(got.map((x) => Buffer.concat([x, Buffer.from('\n')])))).toEqual(
          Buffer.concat(expectedLines(b).map((x) => Buffer.concat([x, Buffer.from('\n')]))));
      }),
      RUNS,
    );
  });

  it('decodeUtf8 says valid exactly when the bytes round-trip', () => {
    fc.assert(
      fc.property(fc.oneof(bytes, fc.string({ unit: 'grapheme' }).map((s) => Buffer.from(s, 'utf8'))), (buf) => {
        const { text, valid } = decodeUtf8(buf);
        expect(valid).toBe(Buffer.from(text, 'utf8').equals(buf));
      }),
      RUNS,
    );
  });
});
