/**
 * Property tests for the text-chunk fast paths (issue 45): whatever the text an agent streams (any
 * Unicode, 2-, 3- and 4-byte UTF-8, lone surrogates, which JSON.stringify escapes, control
 * characters, quotes and backslashes), every fast path gives the same items, and the check the
 * same findings, as the generic path (JSON.parse of each transcript line, then frameFromText of its
 * raw text, the checker told nothing):
 * - a transcript file read as `import` and `check` on one thread read it (readTranscriptItems: chunk
 *   lines recognised by wire/chunk-line.ts, pieces with non-ASCII read as Latin-1 bytes; as import
 *   reads it, such a line's raw text also as its UTF-8 bytes, made from the line's bytes);
 * - the same file through the two-thread check's batches (check-run/batch.ts's LinePacker, then
 *   unpackLines, as the worker unpacks them);
 * - each frame's raw bytes through wire/chunk-frame.ts (the tap's recorder, stored rows), and its
 *   raw text written as a JSON string (export's test of a line redaction need not parse), also as
 *   that string's UTF-8 bytes a character each (how export tests a frame past ASCII).
 * Chunks with a messageId (before or after their content) alike. Seeded and bounded.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CHUNK_UPDATES, type ChunkMessage, chunkHead, chunkMessageOf, chunkTail, matchChunkLine, newChunkMatch } from '../../src/wire/chunk-line.js';
import { chunkColumnOf, lazyChunkFrame, lazyChunkKind, lazyTextBytes, spanBodyBytes, spanTextBytes } from '../../src/wire/lazy-chunk.js';
import { chunkFrameOf, isQuotedTextChunk, isTextChunkRaw } from '../../src/wire/chunk-frame.js';
import { frameFromBytes, frameFromText, utf8Length } from '../../src/wire/make-frame.js';
import { itemOf } from '../../src/view/columns.js';
import { itemFromLine, TranscriptLineReader } from '../../src/transcript/format.js';
import { readTranscriptItems, scanTranscriptFile } from '../../src/transcript/read-file.js';
import { packingSink } from '../../src/check-run/parallel.js';
import { type LineBatch, LinePacker, LineRing, unpackLines } from '../../src/check-run/batch.js';
import { decodeLatin1Utf8 } from '../../src/wire/line-splitter.js';
import { CheckFold } from '../../src/check/fold.js';
import type { Finding } from '../../src/check/checker.js';
import { Correlator } from '../../src/wire/correlate.js';
import { type Frame, isFrame, type Item } from '../../src/wire/frame.js';
import { mayHoldSecret } from '../../src/redact.js';
import { tempDir } from '../helpers.js';

const RUNS = { seed: 20261129, numRuns: 150 };

/** Every own field, in order, with nested values (what a consumer can see of an item). */
const show = (v: unknown): string => JSON.stringify(v, (_k, x) => (typeof x === 'number' && Object.is(x, -0) ? '-0' : x));

/** One UTF-16 code unit or code point of the kinds that matter to a JSON text. */
const piece = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 6 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 4 }) }, // any code point: 2-, 3- and 4-byte UTF-8
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)) }, // control characters
  { weight: 2, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)) }, // lone surrogates
  { weight: 3, arbitrary: fc.constantFrom('"', '\\', '/', '\\n', '\\"', '\\u00e9', '\u007f', '\u2028', '\ufffd', 'é', '✓', '—', '日本', '😀', '\ud83d\ude00', '}}}}"}', '\\"}}}}') },
);
const text = fc.array(piece, { maxLength: 40 }).map((a) => a.join(''));
/**
 * A chunk's messageId (the spec's ContentChunk), before or after its content, or none: opencode's,
 * empty, one past ASCII (the line recogniser leaves it to the generic path) and one with a quote
 * (escaped: every recogniser does).
 */
const message = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.record({ id: fc.constantFrom('msg_21bec8682001x93bPiXan0C958', '', 'm-é', 'q"'), after: fc.boolean() }) },
);
const chunkFrame = fc.record({
  sid: fc.constantFrom('sess-1', 'a5dc82dc94cee8d0260add0a9ddd342a', 'é-sess', ''),
  kind: fc.constantFrom(...CHUNK_UPDATES),
  text,
  mid: message,
});
type Chunk = { sid: string; kind: string; text: string; mid: ChunkMessage | undefined };
const frameOf = (c: Chunk): string => {
  const content = { type: 'text', text: c.text };
  const update = c.mid === undefined ? { sessionUpdate: c.kind, content } : c.mid.after ? { sessionUpdate: c.kind, content, messageId: c.mid.id } : { sessionUpdate: c.kind, messageId: c.mid.id, content };
  return JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: c.sid, update } });
};
/** An id the line recogniser reads as it is (printable ASCII, nothing JSON escapes). */
const plainId = (s: string): boolean => /^[\x20-\x7e]*$/.test(s) && !/["\\]/.test(s);
/**
 * A transcript: set-up, then chunk frames (and now and then another line) in both directions; with
 * the number of chunk frames whose session id the line recogniser reads (ASCII).
 */
const transcript = fc.array(fc.tuple(chunkFrame, fc.constantFrom('a2c', 'c2a'), fc.nat(20)), { minLength: 1, maxLength: 30 }).map((frames) => {
  const lines = ['{"acpInspect":"recording","version":1}'];
  let chunks = 0;
  let t = 0;
  const put = (dir: string, raw: string) => lines.push(JSON.stringify({ t: Number((t += 0.25).toFixed(2)), dir, raw }));
  put('c2a', '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}');
  put('a2c', '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{}}}');
  put('c2a', '{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}');
  put('a2c', '{"jsonrpc":"2.0","id":1,"result":{"sessionId":"sess-1"}}');
  put('c2a', '{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":"go ✓"}]}}');
  for (const [c, dir, other] of frames) {
    put(dir, frameOf(c));
    if (plainId(c.sid) && (c.mid === undefined || plainId(c.mid.id))) chunks++;
    if (other === 0) put('stderr', `warn: ${c.text}`);
    if (other === 1) put('a2c', `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"plan","entries":[{"content":${JSON.stringify(c.text)},"priority":"high","status":"pending"}]}}}`);
  }
  put('a2c', '{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}');
  return { lines, chunks };
});

type ChunkJson = { params: { update: { content: { text: string } } } };

/**
 * The body of a JSON string holding `text`, as a writer may write it: each `"`, `\` and control
 * character escaped (as `\"`, `\n` and the like, or now and then as `\u`), `/` as is or as `\/`,
 * other ASCII as is, and past ASCII as is or as `\u` in either case (both halves of a surrogate pair
 * alike); `style` picks.
 */
function written(text: string, style: number[]): string {
  let out = '';
  const u = (c: number, upper: boolean): string => '\\u' + (upper ? c.toString(16).toUpperCase() : c.toString(16)).padStart(4, '0');
  for (let i = 0, k = 0; i < text.length; i++, k++) {
    const c = text.charCodeAt(i);
    const s = style[k % style.length]!;
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    const lone = !pair && c >= 0xd800 && c <= 0xdfff;
    if (c < 0x20 || c === 0x22 || c === 0x5c || lone || (s >= 4 && c >= 0x7f)) {
      const short = JSON.stringify(text[i]).slice(1, -1);
      // (A quote, backslash or control character as \\u only now and then: no writer seen does that.)
      out += short.length === 2 && s !== 5 ? short : u(c, s % 2 === 1);
      if (pair) out += u(text.charCodeAt(++i), s % 2 === 1);
    } else if (c === 0x2f && s === 1) out += '\\/';
    else {
      out += text[i]!;
      if (pair) out += text[++i]!;
    }
  }
  return out;
}

/** The folder's findings, with the counts, as text. */
function folded(items: Iterable<[Item, number]>): string {
  const found: Finding[] = [];
  const fold = new CheckFold([], (f) => found.push(f));
  for (const [item, chunk] of items) fold.step(item, chunk);
  return show({ findings: found, ...fold.finish() });
}

/** The generic path: each line as the file holds it, JSON.parse'd by the reader, its frame by frameFromText; responses correlated; no chunk hints. */
function generic(lines: string[]): { items: string[]; findings: string } {
  const reader = new TranscriptLineReader();
  const correlator = new Correlator();
  const items: Item[] = [];
  lines.forEach((l, i) => {
    const r = reader.read(l, i + 1);
    if (r === undefined) return;
    const item = itemFromLine(r);
    if (isFrame(item)) correlator.observe(item);
    items.push(item);
  });
  return { items: items.map(show), findings: folded(items.map((x) => [x, -1])) };
}

/** The file as `import` reads it (chunk lines recognised), each item with the chunk kind it reports. */
function viaFile(file: string, rawBytes = false): { items: string[]; findings: string; chunks: number; raws: number } {
  const last: { chunk: number; raw?: Buffer | null } = rawBytes ? { chunk: -1, raw: null } : { chunk: -1 };
  const got: [Item, number][] = [];
  let raws = 0;
  for (const item of readTranscriptItems(file, undefined, last)) {
    got.push([item, last.chunk]);
    // A raw text handed on as bytes is the UTF-8 of the item's raw text (lone surrogates never come so).
    if (last.raw) {
      expect(last.raw.toString('utf8')).toBe((item as { raw: string }).raw);
      raws++;
    }
  }
  return { items: got.map(([x]) => show(x)), findings: folded(got), chunks: got.filter(([, c]) => c >= 0).length, raws };
}

/** The file through the two-thread check's batches: read and packed as its reading thread does, unpacked as its worker does. */
function viaBatches(file: string, batchBytes: number): { items: string[]; findings: string } {
  const ring = new LineRing(2, LineRing.slotBytesFor(batchBytes));
  const packer = new LinePacker(batchBytes, ring);
  const reader = new TranscriptLineReader();
  const correlator = new Correlator();
  const got: [Item, number][] = [];
  const unpack = (b: LineBatch): void => unpackLines(b, (item, chunk) => {
    if (chunk < 0 && isFrame(item)) correlator.observe(item);
    got.push([item, chunk]);
  }, ring);
  for (const _ of scanTranscriptFile(file, packingSink(packer, reader), reader, 4096)) {
    // Each batch unpacked before the next is packed (a ring of two slots: as the reader waits for the worker).
    if (packer.full) unpack(packer.take().batch);
  }
  if (!packer.empty) unpack(packer.take().batch);
  return { items: got.map(([x]) => show(x)), findings: folded(got) };
}

describe('text-chunk fast paths (property)', () => {
  const t = tempDir('acp-chunk-text-');

  it('any chunk text gives the generic items and findings: a file read as import reads it, and through the check batches', () => {
    const file = join(t.dir, 't.jsonl');
    let rawsSeen = 0;
    try {
      fc.assert(fc.property(transcript, ({ lines, chunks }) => {
        writeFileSync(file, lines.join('\n') + '\n');
        const want = generic(lines);
        const f = viaFile(file);
        expect(f.items).toEqual(want.items);
        expect(f.findings).toBe(want.findings);
        // No text falls off the fast path: every chunk line with an ASCII session id is taken by it.
        expect(f.chunks).toBe(chunks);
        // As import reads it: the raw text of non-ASCII chunk lines as bytes, the items the same.
        const r = viaFile(file, true);
        expect(r.items).toEqual(want.items);
        expect(r.findings).toBe(want.findings);
        rawsSeen += r.raws;
        for (const bytes of [700, 256 * 1024]) {
          const b = viaBatches(file, bytes);
          expect(b.items).toEqual(want.items);
          expect(b.findings).toBe(want.findings);
        }
      }), RUNS);
    } finally {
      t.cleanup();
    }
    expect(rawsSeen).toBeGreaterThan(50); // the bytes path was taken, not only its fallbacks
  });

  it('a lazy chunk frame is the generic one: size and JSON before anything is read, every field, clones and copies', () => {
    const m = newChunkMatch();
    let lazy = 0;
    let escaped = 0;
    let settledText = 0;
    let withMessage = 0;
    fc.assert(fc.property(chunkFrame, fc.constantFrom('a2c', 'c2a'), fc.array(fc.nat(5), { minLength: 1, maxLength: 16 }), fc.array(fc.nat(5), { minLength: 1, maxLength: 16 }), (c, dir, frameStyle, lineStyle) => {
      // The frame and the line written by any writer: each escape JSON allows, in either case, anywhere (Python's json.dumps writes every non-ASCII character as \u).
      if (!plainId(c.sid) || (c.mid !== undefined && !plainId(c.mid.id))) return; // ids the recogniser leaves to the generic path
      const body = written(c.text, frameStyle);
      const headQ = JSON.stringify(chunkHead(c.sid, c.kind, c.mid)).slice(1, -1);
      const tailQ = JSON.stringify(chunkTail(c.mid)).slice(1, -1);
      const prefix = '{"t":2.5,"dir":"' + dir + '","raw":"';
      const line = prefix + headQ + written(body, lineStyle) + tailQ + '"}';
      const bytes = Buffer.from(line, 'utf8');
      const ascii = bytes.length === line.length;
      // As the reading thread sees it: the line's bytes a character each.
      const latin1 = bytes.toString('latin1');
      const generic = frameFromText(3, 2.5, dir, (JSON.parse(line) as { raw: string }).raw);
      // The line's span, whether or not the recogniser takes the line.
      const span = latin1.slice(prefix.length + headQ.length, latin1.length - tailQ.length - 2);
      const settled = spanBodyBytes(span);
      if (matchChunkLine(latin1, m) < 0) {
        // Refused only when the frame's text is no proper JSON string body with nothing but its own
        // escapes (an escape of the line's makes a bare quote or control character of it), which is
        // what spanBodyBytes refuses too; and then the generic frame is no text chunk.
        expect(settled, span).toBe(-1);
        expect(/\\(?:[bfnrt"]|u00[01]|u0022|u005c)|\\\\(?:\\[^"\\/]|u(?![0-9a-f]{4}))/i.test(span), span).toBe(true);
        return;
      }
      expect(settled, span).toBeGreaterThanOrEqual(0);
      expect(latin1.slice(m.spanStart, m.spanEnd)).toBe(span);
      const sessionId = latin1.slice(m.sidStart, m.sidEnd);
      const out = { update: -1 };
      const mid = chunkMessageOf(latin1, m);
      expect(mid).toEqual(c.mid);
      const make = () => lazyChunkFrame(3, m.t, m.dir, sessionId, m.update, span, m.escaped, ascii ? undefined : decodeLatin1Utf8, out, undefined, mid);
      const got = make();
      lazy++;
      if (m.escaped) escaped++;
      if (mid !== undefined) withMessage++;
      expect(out.update).toBe(m.update);
      // The store's chunk column, counted from the span before anything is read (and again after);
      // none for a chunk with a messageId (the column does not hold it).
      const column = mid !== undefined ? null : utf8Length((generic.json as ChunkJson).params.update.content.text) * 4 + m.update;
      expect(chunkColumnOf(make()), span).toBe(column);
      const counted = spanTextBytes(span);
      if (counted >= 0) {
        settledText++;
        expect(counted, span).toBe(utf8Length((generic.json as ChunkJson).params.update.content.text));
      }
      // Nothing read yet: the size, the keys, then the JSON text (which reads everything).
      expect(got.size).toBe(generic.size);
      expect(Object.keys(got)).toEqual(Object.keys(generic));
      expect(show(got)).toBe(show(generic));
      expect(got).toStrictEqual(generic);
      expect(show(structuredClone(got))).toBe(show(generic));
      expect(show({ ...got })).toBe(show(generic));
      // A fresh one read field by field, the text before the raw text.
      const again = make()!;
      expect((again.json as ChunkJson).params.update.content.text).toBe((generic.json as ChunkJson).params.update.content.text);
      expect(again.raw).toBe(generic.raw);
      // Written to, a field is a plain value again, in its place.
      again.raw = 'x';
      (again.json as ChunkJson).params.update.content.text = 'y';
      expect(again.raw).toBe('x');
      expect((again.json as ChunkJson).params.update.content.text).toBe('y');
      expect(Object.keys(again)).toEqual(Object.keys(generic));
      expect(chunkColumnOf(got)).toBe(column);
      // Its raw text or its text written to: no longer the frame the column would describe.
      expect(chunkColumnOf(again)).toBeNull();
    }), { ...RUNS, numRuns: 3000 });
    expect(lazy).toBeGreaterThan(1000);
    expect(escaped).toBeGreaterThan(700);
    expect(withMessage).toBeGreaterThan(200);
    // Most texts' lengths counted from their spans alone (the rest have a surrogate escape not paired at its own level: these texts are full of lone ones).
    expect(settledText).toBeGreaterThan(lazy * 0.5);
  });

  it('a stored chunk frame read from its bytes or its text is the generic one, its text counted before it is decoded', () => {
    let lazy = 0;
    fc.assert(fc.property(chunkFrame, fc.array(fc.nat(5), { minLength: 1, maxLength: 16 }), (c, style) => {
      if (!plainId(c.sid) || (c.mid !== undefined && !plainId(c.mid.id))) return;
      const raw = chunkHead(c.sid, c.kind, c.mid) + written(c.text, style) + chunkTail(c.mid);
      const bytes = Buffer.from(raw, 'utf8');
      const generic = frameFromText(4, 1, 'a2c', raw);
      const text = (generic.json as ChunkJson).params.update.content.text;
      const cols = { seq: 4, t: 1, dir: 'a2c', kind: 'notification', method: 'session/update', rpcId: null, replyTo: null, latency: null, sessionId: c.sid, size: bytes.length, parseError: null, truncated: false, rawBase64: null };
      for (const [src, decode] of [[bytes.toString('latin1'), decodeLatin1Utf8], [raw, undefined]] as const) {
        const item = itemOf({ ...cols, raw: src }, true, undefined, decode) as Frame;
        const n = lazyTextBytes((item.json as ChunkJson).params.update.content);
        if (n >= 0) lazy++;
        else expect(decode === undefined && !/\\/.test(raw)).toBe(true); // only a text with nothing to decode is not lazy
        if (n >= 0) expect(n).toBe(utf8Length(text));
        if (n >= 0 && decode !== undefined) expect(chunkColumnOf(item)).toBe(c.mid === undefined ? n * 4 + CHUNK_UPDATES.indexOf(c.kind) : null);
        expect(lazyChunkKind(item)).toBe(n >= 0 ? CHUNK_UPDATES.indexOf(c.kind) : -1);
        expect(item).toEqual(generic);
        expect(item.size).toBe(generic.size);
      }
    }), { ...RUNS, numRuns: 2000 });
    expect(lazy).toBeGreaterThan(2000);
  });

  it('any chunk text in a raw frame gives the frame frameFromBytes makes (the recorder and stored rows)', () => {
    fc.assert(fc.property(chunkFrame, (c) => {
      const raw = frameOf(c);
      const bytes = Buffer.from(raw, 'utf8');
      const want = frameFromBytes(7, 1.5, 'a2c', bytes);
      const out = { update: -1 };
      const got = chunkFrameOf(7, 1.5, 'a2c', bytes.toString('utf8'), bytes.length, out);
      // A messageId JSON escapes is left to the generic path (any other, past ASCII too, is read as it is).
      if (c.mid !== undefined && /["\\]/.test(c.mid.id)) {
        expect(got, raw).toBeNull();
        return;
      }
      expect(got, raw).not.toBeNull();
      expect(show(got)).toBe(show(want));
      expect(CHUNK_UPDATES[out.update]).toBe(c.kind);
      // The store's chunk column of the recognised frame (the tap's recorder), from its raw text's
      // escapes; none with a messageId.
      expect(chunkColumnOf(got!), raw).toBe(c.mid === undefined ? utf8Length(c.text) * 4 + out.update : null);
      // A frame redaction remade (a copy) is not marked.
      expect(chunkColumnOf({ ...got! })).toBeNull();
    }), { ...RUNS, numRuns: 1000 });
  });

  it('a raw text written as a JSON string is a text chunk frame only when the raw text is one (export keeps such lines unparsed)', () => {
    // Chunk frames, and the same with a piece of text put anywhere (keys, a bare quote, a cut).
    const raw = fc.oneof(chunkFrame.map(frameOf), fc.tuple(chunkFrame.map(frameOf), piece, fc.nat()).map(([r, p, at]) => r.slice(0, at % (r.length + 1)) + p + r.slice(at % (r.length + 1))));
    let yes = 0;
    fc.assert(fc.property(raw, (r) => {
      const quoted = isQuotedTextChunk(JSON.stringify(r));
      if (quoted) {
        yes++;
        expect(isTextChunkRaw(r), r).toBe(true);
        expect(JSON.parse(r).params.update.content.type).toBe('text');
      } else if (r.isWellFormed()) expect(isTextChunkRaw(r), r).toBe(false);
    }), { ...RUNS, numRuns: 2000 });
    expect(yes).toBeGreaterThan(500);
  });

  it('the UTF-8 bytes of a raw text written as a JSON string, a character a byte, answer what the text answers (export tests them undecoded)', () => {
    // Chunk frames and other frames, with keys redaction looks at (and keys past ASCII) put anywhere.
    const key = fc.constantFrom('"password":', '"api_key" :', '"éToken":', '"ſecret":', '"tokenſ":', '"baseUrl":', '"env":', '"naïve-token":', '"pass\\u0077ord":', '"x":');
    const other = fc.tuple(fc.array(fc.oneof(piece, key), { maxLength: 12 })).map(([a]) => `{"jsonrpc":"2.0","id":1,"params":{${a.join('')}}}`);
    const raw = fc.oneof(chunkFrame.map(frameOf), other, fc.tuple(chunkFrame.map(frameOf), fc.oneof(piece, key), fc.nat()).map(([r, p, at]) => r.slice(0, at % (r.length + 1)) + p + r.slice(at % (r.length + 1))));
    let secret = 0;
    let chunk = 0;
    fc.assert(fc.property(raw.filter((r) => r.isWellFormed()), (r) => {
      const quoted = JSON.stringify(r);
      const bytes = Buffer.from(quoted, 'utf8').toString('latin1');
      const may = mayHoldSecret(quoted, true);
      expect(mayHoldSecret(bytes, true), r).toBe(may);
      expect(isQuotedTextChunk(bytes), r).toBe(isQuotedTextChunk(quoted));
      if (may) secret++;
      if (isQuotedTextChunk(quoted)) chunk++;
    }), { ...RUNS, numRuns: 3000 });
    expect(secret).toBeGreaterThan(300);
    expect(chunk).toBeGreaterThan(300);
  });
});
