/**
 * Property tests for the transcript reader: any text either parses or throws a TranscriptError
 * (never another error), and recordings round-trip losslessly through serialize → parse.
 * Also redaction: never throws, keeps the shape, is idempotent. Seeded and bounded.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseTranscript, serializeTranscript, TranscriptError } from '../../src/transcript/format.js';
import { redactFrame, REDACTED } from '../../src/redact.js';
import { frameFromText } from '../../src/wire/make-frame.js';

const RUNS = { seed: 20261122, numRuns: 300 };

const rawLine = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.string().map((s) => s.replace(/\n/g, ' ')),
  fc.constantFrom('', '   ', '\r', '{"jsonrpc":"2.0","id":1,"method":"x"}\r', '[1,2]', 'null', '\u0000'),
);
const item = fc.oneof(
  fc.record({ t: fc.double({ min: 0, max: 1e7, noNaN: true }), dir: fc.constantFrom('c2a', 'a2c'), raw: rawLine }),
  fc.record({ t: fc.double({ min: 0, max: 1e7, noNaN: true }), dir: fc.constant('stderr'), raw: fc.string().map((s) => s.replace(/\n/g, ' ')) }),
  fc.record({ t: fc.double({ min: 0, max: 1e7, noNaN: true }), dir: fc.constant('event'), type: fc.string({ minLength: 1, maxLength: 8 }), data: fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 })) }),
);
const transcriptText = fc.tuple(fc.option(fc.record({ name: fc.string(), startedAt: fc.constant('2026-01-01T00:00:00.000Z') }), { nil: undefined }), fc.array(item, { maxLength: 25 }))
  .map(([h, items]) => [...(h ? [JSON.stringify({ acpInspect: 'recording', version: 1, ...h })] : []), ...items.map((i) => JSON.stringify(i))].join('\n') + '\n');

function parseOrTranscriptError(text: string): void {
  try {
    parseTranscript(text);
  } catch (e) {
    expect(e).toBeInstanceOf(TranscriptError);
    expect((e as Error).message).not.toMatch(/\n/);
  }
}

describe('transcript reader (property)', () => {
  it('any text parses or fails with a one-line TranscriptError', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.array(fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v))).map((a) => a.join('\n'))), parseOrTranscriptError), RUNS);
  });

  it('mutated valid transcripts parse or fail with a TranscriptError', () => {
    fc.assert(
      fc.property(transcriptText, fc.array(fc.tuple(fc.nat(), fc.constantFrom('{', '}', '"', '\n', ',', ':', '5', 'x', '\\')), { maxLength: 4 }), (text, edits) => {
        let s = text;
        for (const [pos, ch] of edits) {
          const p = pos % (s.length + 1);
          s = s.slice(0, p) + ch + s.slice(p + 1);
        }
        parseOrTranscriptError(s);
      }),
      RUNS,
    );
  });

  it('serialize → parse → serialize is stable', () => {
    fc.assert(
      fc.property(transcriptText, (text) => {
        const once = serializeTranscript(parseTranscript(text));
        const twice = serializeTranscript(parseTranscript(once));
        expect(twice).toBe(once);
        const a = parseTranscript(once).items;
        const b = parseTranscript(text).items;
        expect(a.map((i) => [i.dir, 'raw' in i ? i.raw : null])).toEqual(b.map((i) => [i.dir, 'raw' in i ? i.raw : null]));
      }),
      RUNS,
    );
  });
});

/** Same keys everywhere, values compared only in type for redacted strings. */
function sameShape(a: unknown, b: unknown): boolean {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameShape(x, b[i]));
  if (a && typeof a === 'object') {
    if (!b || typeof b !== 'object' || Array.isArray(b)) return false;
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in (b as object) && sameShape((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  if (b === REDACTED) return true;
  return Object.is(a, b) || (typeof a === 'string' && typeof b === 'string');
}

describe('redaction (property)', () => {
  const secretish = fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.integer(),
    method: fc.constantFrom('session/new', 'terminal/create', 'providers/set', 'authenticate'),
    params: fc.record({
      env: fc.array(fc.record({ name: fc.string(), value: fc.string() })),
      headers: fc.oneof(fc.array(fc.record({ name: fc.string(), value: fc.string() })), fc.dictionary(fc.string(), fc.string())),
      apiKey: fc.string(),
      authorization: fc.string(),
      baseUrl: fc.string().map((s) => `https://user:${s.replace(/[/@\s]/g, '')}@host/`),
      other: fc.jsonValue({ maxDepth: 3 }),
    }, { requiredKeys: [] }),
  });

  it('never throws, keeps the shape, removes the secrets and is idempotent', () => {
    fc.assert(
      fc.property(fc.oneof(secretish, fc.jsonValue({ maxDepth: 4 })), (v) => {
        const text = JSON.stringify(v);
        if (text === undefined) return;
        const f = frameFromText(1, 0, 'c2a', text);
        const r = redactFrame(f);
        const parsed = JSON.parse(r.raw) as unknown;
        expect(sameShape(v, parsed)).toBe(true);
        expect(parsed).toEqual(r.json);
        expect(redactFrame(r).raw).toBe(r.raw);
        const p = (parsed as { params?: Record<string, unknown> })?.params;
        if (p && typeof p === 'object') {
          if (typeof p.apiKey === 'string') expect(p.apiKey).toBe(REDACTED);
          if (Array.isArray(p.env)) for (const e of p.env as { value: string }[]) expect(e.value).toBe(REDACTED);
        }
      }),
      RUNS,
    );
  });
});
