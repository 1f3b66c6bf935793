/**
 * Property tests for the parser and the correlator: any text, any JSON value, and mutated real
 * frames classify without throwing, and the classification is consistent. Seeded and bounded.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { classify, parseLine } from '../../src/wire/parse.js';
import { frameFromBytes, frameFromText } from '../../src/wire/make-frame.js';
import { Correlator } from '../../src/wire/correlate.js';
import type { Frame } from '../../src/wire/frame.js';

const RUNS = { seed: 20261122, numRuns: 400 };

const id = fc.oneof(fc.integer(), fc.string({ maxLength: 6 }), fc.constant(null), fc.double(), fc.boolean());
const method = fc.oneof(fc.constantFrom('initialize', 'session/new', 'session/prompt', 'session/update', 'fs/read_text_file', 'terminal/create'), fc.string({ maxLength: 10 }), fc.integer());
/** Objects that look like JSON-RPC, with fields present, missing or of the wrong type. */
const rpcLike = fc.record(
  { jsonrpc: fc.oneof(fc.constant('2.0'), fc.string({ maxLength: 4 }), fc.integer()), id, method, params: fc.jsonValue({ maxDepth: 3 }), result: fc.jsonValue({ maxDepth: 3 }), error: fc.jsonValue({ maxDepth: 2 }) },
  { requiredKeys: [] },
);

/** A real frame with random single-character edits. */
const mutated = fc.tuple(
  rpcLike.map((o) => JSON.stringify(o)),
  fc.array(fc.tuple(fc.nat(), fc.constantFrom('insert', 'delete', 'replace'), fc.constantFrom('{', '}', '"', ',', ':', '\\', '\u0000', '\r', ' ', 'x', '1', '[', ']', 'é', '\ud800')), { maxLength: 5 }),
).map(([text, edits]) => {
  let s = text;
  for (const [pos, op, ch] of edits) {
    const p = pos % (s.length + 1);
    s = op === 'insert' ? s.slice(0, p) + ch + s.slice(p) : op === 'delete' ? s.slice(0, p) + s.slice(p + 1) : s.slice(0, p) + ch + s.slice(p + 1);
  }
  return s;
});

function checkShape(f: ReturnType<typeof parseLine>): void {
  expect(['request', 'notification', 'result', 'error', 'invalid']).toContain(f.kind);
  if (f.kind === 'request' || f.kind === 'notification') expect(typeof f.method).toBe('string');
  if (f.kind === 'invalid') expect(typeof f.parseError).toBe('string');
  if (f.id !== undefined) expect(f.id === null || typeof f.id === 'string' || typeof f.id === 'number').toBe(true);
}

describe('parser (property)', () => {
  it('never throws on any text, and the result is well-formed', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), mutated), (text) => checkShape(parseLine(text))), RUNS);
  });

  it('classifies any JSON value consistently with parsing its text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue({ maxDepth: 4 }), rpcLike), (v) => {
        const c = classify(v);
        checkShape(c);
        const text = JSON.stringify(v);
        if (text !== undefined) expect(parseLine(text).kind).toBe(c.kind);
      }),
      RUNS,
    );
  });

  it('frameFromBytes never throws on random bytes and flags invalid UTF-8', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (a) => {
        const buf = Buffer.from(a);
        const f = frameFromBytes(1, 0, 'a2c', buf);
        expect(f.size).toBe(buf.length);
        if (f.rawBase64 !== undefined) {
          expect(Buffer.from(f.rawBase64, 'base64').equals(buf)).toBe(true);
          expect(f.kind).toBe('invalid');
        } else {
          expect(Buffer.from(f.raw, 'utf8').equals(buf)).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it('the correlator never throws and pairs each response with at most one earlier opposite-direction request', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('c2a', 'a2c') as fc.Arbitrary<'c2a' | 'a2c'>, fc.oneof(rpcLike.map((o) => JSON.stringify(o)), mutated)), { maxLength: 60 }), (seq) => {
        const c = new Correlator();
        const frames: Frame[] = [];
        const answered = new Set<number>();
        seq.forEach(([dir, text], i) => {
          const f = frameFromText(i + 1, i, dir, text);
          c.observe(f);
          frames.push(f);
          if (f.replyTo !== undefined) {
            const req = frames[f.replyTo - 1]!;
            expect(req.kind).toBe('request');
            expect(req.dir).not.toBe(f.dir);
            expect(answered.has(req.seq)).toBe(false);
            answered.add(req.seq);
            expect(f.method).toBe(req.method);
          }
        });
        expect(c.unanswered().length).toBeLessThanOrEqual(frames.length);
      }),
      RUNS,
    );
  });
});
