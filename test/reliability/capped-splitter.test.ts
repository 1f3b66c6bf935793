/** The recorder's capped line splitter: lines past the cap come out cut with their full size. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CappedLineSplitter } from '../../src/tap/capped-splitter.js';

describe('CappedLineSplitter', () => {
  it('keeps at most cap bytes of each line and reports the full size, for any chunking, long lines and resumption (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(0x0a, 0x61, 0x62, 0xc3, 0xa9), { maxLength: 300 }).map((a) => Buffer.from(a)),
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        // Lines past this are kept in one buffer rather than in pieces (4 MiB by default).
        fc.integer({ min: 1, max: 30 }),
        fc.nat(),
        (buf, cap, points, bigLine, at) => {
          let s = new CappedLineSplitter(cap, bigLine);
          const cuts = [...new Set(points.map((p) => p % (buf.length + 1)))].sort((a, b) => a - b);
          const got: { bytes: Buffer; size: number }[] = [];
          let last = 0;
          cuts.forEach((p, k) => {
            got.push(...s.push(buf.subarray(last, p)));
            last = p;
            // Resumed from a snapshot at one of the cuts, as an indexer that takes over.
            if (k === at % cuts.length) {
              const snap = s.snapshot();
              s = new CappedLineSplitter(cap, bigLine);
              s.restore({ kept: Buffer.from(snap.kept), over: snap.over });
            }
          });
          got.push(...s.push(buf.subarray(last)));
          const rest = s.end();
          if (rest) got.push(rest);
          const want = buf.toString('latin1').split('\n');
          if (want[want.length - 1] === '') want.pop();
          expect(got.map((g) => g.size)).toEqual(want.map((w) => w.length));
          got.forEach((g, i) => expect(g.bytes.toString('latin1')).toBe(want[i]!.slice(0, cap)));
        },
      ),
      { seed: 20261122, numRuns: 1000 },
    );
  });

  it('discard counts the bytes past the cap too', () => {
    const s = new CappedLineSplitter(4);
    s.push(Buffer.from('abcdefghij'));
    expect(s.pending).toBe(10);
    expect(s.discard()).toBe(10);
    expect(s.push(Buffer.from('xy\n'))).toEqual([{ bytes: Buffer.from('xy'), size: 2 }]);
  });
});
