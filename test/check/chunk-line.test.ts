/**
 * The chunk-line recogniser (src/wire/chunk-line.ts) against the generic path, item by item and
 * finding by finding: every line it accepts must read (transcript line reader, then frameFromText)
 * to exactly the Frame it makes, and the check's batches (recognised lines packed as a compact record)
 * must unpack to the same items and the same findings as with recognition off. Compared on every
 * recording in recordings/, on generated chunk lines, and on seeded mutations of chunk lines (escapes,
 * unicode, control characters, key order, extra and missing fields, numbers, whitespace, cuts).
 * Also asserts what the checker's memoised schema verdict relies on: the session id, the text and a
 * messageId are only type-checked by the schemas.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHUNK_UPDATES, chunkLineFrame, chunkMessageOf, matchChunkLine, newChunkMatch } from '../../src/wire/chunk-line.js';
import { itemFromLine, TranscriptLineReader, type TranscriptLine } from '../../src/transcript/format.js';
import { type LineBatch, LinePacker, LineRing, unpackLines } from '../../src/check-run/batch.js';
import { CheckFold } from '../../src/check/fold.js';
import type { Finding } from '../../src/check/checker.js';
import { Correlator } from '../../src/wire/correlate.js';
import { isFrame, type Item } from '../../src/wire/frame.js';
import { STABLE_SCHEMA, UNSTABLE_SCHEMA } from '../../src/spec/schema-data.js';
import { seededRandom, tempDir } from '../helpers.js';
import { readTranscriptItems } from '../../src/transcript/read-file.js';
import { columnsOf, itemOf } from '../../src/view/columns.js';
import type { ChunkKind } from '../../src/wire/chunk-frame.js';

const ROOT = resolve(__dirname, '../..');

function recordings(): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.jsonl')) out.push(p);
    }
  };
  walk(join(ROOT, 'recordings'));
  return out.sort();
}

/** Every own field, in order, with nested values (what a consumer can see of an item). */
const show = (v: unknown): string => JSON.stringify(v, (_k, x) => (typeof x === 'number' && Object.is(x, -0) ? '-0' : x));

/** The generic reading of one line (a fresh reader: no header, seq 1), or the error it throws. */
function generic(line: string): { item?: Item; error?: string } {
  try {
    const l = new TranscriptLineReader().read(line, 1);
    return l === undefined ? {} : { item: itemFromLine(l) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

const m = newChunkMatch();
/** Null when refused; else the Frame the recogniser makes for the line (seq 1). */
function recognised(line: string): Item | null {
  const end = matchChunkLine(line, m);
  if (end < 0) return null;
  expect(end).toBe(line.length);
  // Also inside a piece of lines, at an offset, it ends at the line's end.
  const m2 = newChunkMatch();
  expect(matchChunkLine(`x\n${line}\ny`, m2, 2)).toBe(2 + line.length);
  const shift = (x: number) => (x < 0 ? x : x - 2);
  expect({ ...m2, sidStart: m2.sidStart - 2, sidEnd: m2.sidEnd - 2, spanStart: m2.spanStart - 2, spanEnd: m2.spanEnd - 2, midStart: shift(m2.midStart), midEnd: shift(m2.midEnd) }).toEqual(m);
  return chunkLineFrame(1, m.t, m.dir, line.slice(m.sidStart, m.sidEnd), m.update, line.slice(m.spanStart, m.spanEnd), m.escaped, { update: -1 }, -1, chunkMessageOf(line, m));
}

const stats = { accepted: 0, refused: 0, fileChunks: 0, rowChunks: 0 };
/** Asserts the recogniser agrees with the generic path on `line`; returns whether it accepted it. */
function agree(line: string): boolean {
  const fast = recognised(line);
  if (fast === null) {
    stats.refused++;
    return false;
  }
  stats.accepted++;
  const g = generic(line);
  expect(g.error, `accepted a line the reader refuses: ${line.slice(0, 300)}`).toBeUndefined();
  expect(show(fast), line.slice(0, 300)).toBe(show(g.item));
  expect(Object.is((fast as { t: number }).t, g.item!.t)).toBe(true);
  return true;
}

/** Items and findings of a transcript's lines through the check's batches, with or without recognition. */
function viaBatches(lines: string[], recognise: boolean, batchBytes: number, ringed = false): { items: string[]; findings: string } {
  const reader = new TranscriptLineReader();
  // With a ring of 2 slots, each batch is unpacked before the next is packed (as the reader waits for the worker).
  const ring = ringed ? new LineRing(2, LineRing.slotBytesFor(batchBytes)) : undefined;
  const packer = new LinePacker(batchBytes, ring);
  const mm = newChunkMatch();
  const found: Finding[] = [];
  const fold = new CheckFold([], (f) => found.push(f));
  const correlator = new Correlator();
  const items: string[] = [];
  const unpack = (b: LineBatch): void => {
    if (ring) expect(b.buffer === undefined).toBe(b.slot !== undefined);
    unpackLines(b, (item, chunk) => {
      if (chunk >= 0) fold.step(item, chunk);
      else {
        if (isFrame(item)) correlator.observe(item);
        fold.step(item);
      }
      items.push(show(item));
    }, ring);
  };
  const batches: LineBatch[] = [];
  const take = (): void => {
    const b = packer.take().batch;
    if (ring) unpack(b);
    else batches.push(b);
  };
  lines.forEach((text, i) => {
    // As the file reader hands them over: a line with non-ASCII as its UTF-8 bytes read as Latin-1
    // (a line with a lone surrogate cannot come from a file: it is read as the reader reads it).
    const ascii = /^[\x00-\x7f]*$/.test(text);
    const bytes = ascii || !text.isWellFormed() ? text : Buffer.from(text, 'utf8').toString('latin1');
    if (recognise && (ascii || bytes !== text) && matchChunkLine(bytes, mm) >= 0) packer.chunk(bytes, mm, reader.countRecognised(mm.t), !ascii);
    else {
      const l: TranscriptLine | undefined = reader.read(text, i + 1);
      if (l !== undefined) packer.line(l);
    }
    if (packer.full) take();
  });
  if (!packer.empty) take();
  for (const b of batches) unpack(b);
  return { items, findings: show({ findings: found, ...fold.finish() }) };
}

/**
 * Items and findings of a transcript file of `lines` as import reads and checks it:
 * readTranscriptItems, each item folded with the chunk kind it reports; and the lines as the file
 * holds them (UTF-8 has no lone surrogates).
 */
function viaFile(lines: string[]): { items: string[]; findings: string; onDisk: string[] } {
  const t = tempDir();
  try {
    const file = join(t.dir, 't.jsonl');
    writeFileSync(file, lines.join('\n'));
    const onDisk = readFileSync(file, 'utf8').split('\n');
    const found: Finding[] = [];
    const fold = new CheckFold([], (f) => found.push(f));
    const items: string[] = [];
    const last = { chunk: -1 };
    let chunks = 0;
    for (const item of readTranscriptItems(file, undefined, last)) {
      if (last.chunk >= 0) chunks++;
      fold.step(item, last.chunk);
      items.push(show(item));
    }
    stats.fileChunks += chunks;
    return { items, findings: show({ findings: found, ...fold.finish() }), onDisk };
  } finally {
    t.cleanup();
  }
}

/**
 * Findings of a transcript's lines as `check ID` makes them of its stored rows: each item read back
 * from its columns (itemOf), folded with the chunk kind itemOf reports.
 */
function viaRows(lines: string[]): string {
  const reader = new TranscriptLineReader();
  const correlator = new Correlator();
  const found: Finding[] = [];
  const fold = new CheckFold([], (f) => found.push(f));
  const kind: ChunkKind = { update: -1 };
  lines.forEach((text, i) => {
    const l = reader.read(text, i + 1);
    if (l === undefined) return;
    const item = itemFromLine(l);
    if (isFrame(item)) correlator.observe(item);
    const row = itemOf(columnsOf(item), true, kind);
    if (kind.update >= 0) stats.rowChunks++;
    fold.step(row, kind.update);
  });
  return show({ findings: found, ...fold.finish() });
}

function expectSameBatches(lines: string[]): void {
  const f = viaFile(lines);
  const generic = viaBatches(f.onDisk, false, 256 * 1024);
  expect(f.items).toEqual(generic.items);
  expect(f.findings).toBe(generic.findings);
  expect(viaRows(f.onDisk)).toBe(generic.findings);
  for (const bytes of [256 * 1024, 700]) {
    const a = viaBatches(lines, false, bytes);
    const r = viaBatches(lines, true, bytes, true);
    expect(r.items).toEqual(a.items);
    expect(r.findings).toBe(a.findings);
    const b = viaBatches(lines, true, bytes);
    expect(b.items.length).toBe(a.items.length);
    for (let i = 0; i < a.items.length; i++) expect(b.items[i]).toBe(a.items[i]);
    expect(b.findings).toBe(a.findings);
  }
}

// ---- generated and mutated chunk lines ------------------------------------------------------------


const TEXTS = ['', 'Hello', 'line\nbreak', 'tab\there', 'quote " and \\ backslash', 'slash / and \u007f', 'é unicode ✓', '\u0001 control', '\ud83d\ude00 emoji', 'lone \ud800 surrogate', '\\n literal', '</script>'];
const SIDS = ['sess-1', 'a5dc82dc94cee8d0260add0a9ddd342a', '01a200f0-c663-71f3-8fbe-dce6bf30f7f6', '', 'has space', 's"q', 's\\b', 'é'];

/** A chunk frame; `mid` a messageId written before the content, or after it (`after`). */
function frameOf(sid: string, kind: string, text: string, mid?: string | null, after = false): string {
  const content = { type: 'text', text };
  const update = mid === undefined ? { sessionUpdate: kind, content } : after ? { sessionUpdate: kind, content, messageId: mid } : { sessionUpdate: kind, messageId: mid, content };
  return JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: sid, update } });
}
/** messageIds: opencode's, a UUID, empty, and those the recogniser leaves to the generic path (null, non-ASCII, escapes). */
const MIDS: (string | null)[] = ['msg_21bec8682001x93bPiXan0C958', '5f1c0d2e-7a3b-4c1d-9e2f-0a1b2c3d4e5f', '', null, 'é', 'q"', 'b\\s'];
function lineOf(t: number | string, dir: string, raw: string): string {
  return `{"t":${t},"dir":"${dir}","raw":${JSON.stringify(raw)}}`;
}

const MUTATIONS: ((line: string, r: () => number) => string)[] = [
  // insert a piece of text (line-level) somewhere
  (l, r) => {
    const pieces = ['\\\\"', '\\\\\\\\', '\\\\n', '\\\\u00e9', '\\\\ud800', '\\u00e9', 'é', '\u0001', '\t', '"', '\\', '\\"', '\\n', '\\u0022', '\\\\\\"', '\\/', '\\\\/', ' ', '\u007f', '\u2028', '\\\\u0000', '\\\\x41', '\\\\'];
    const at = Math.floor(r() * l.length);
    return l.slice(0, at) + pieces[Math.floor(r() * pieces.length)] + l.slice(at);
  },
  // delete a character
  (l, r) => {
    const at = Math.floor(r() * l.length);
    return l.slice(0, at) + l.slice(at + 1);
  },
  // cut the line
  (l, r) => l.slice(0, Math.floor(r() * l.length)),
  // replace a character by another
  (l, r) => {
    const at = Math.floor(r() * l.length);
    const cs = '{}[]":,\\ 0-.eE+a';
    return l.slice(0, at) + cs[Math.floor(r() * cs.length)] + l.slice(at + 1);
  },
  // whitespace around or inside
  (l, r) => [' ' + l, l + ' ', l + '\r', l.replace(',', ', '), l.replace(':', ' :'), l.replace('\\":\\"', '\\": \\"')][Math.floor(r() * 6)]!,
  // numbers
  (l, r) => {
    const ts = ['0', '-0', '-0.0', '1e3', '1E-2', '01', '1.', '.5', '-', '1.5e1', '123456789012345678901234', '0.1', '0.30000000000000004', '9007199254740993', '1.00000000000000000000001', '5e-324', '1' + '0'.repeat(400), '12.', '-12.345', 'NaN', '"1"', 'null', '2.2250738585072014e-308', '0.000000000000000000000001', '1234567890.123456'];
    return l.replace(/^\{"t":[^,]*,/, `{"t":${ts[Math.floor(r() * ts.length)]},`);
  },
  // key order, extra and missing fields (line or frame)
  (l, r) => {
    const k = Math.floor(r() * 8);
    if (k === 0) return l.replace(/^\{"t":([^,]*),"dir":"(...)",/, '{"dir":"$2","t":$1,');
    if (k === 1) return l.replace(/"\}$/, '","size":12}');
    if (k === 2) return l.replace('{"t":', '{"x":1,"t":');
    if (k === 3) return l.replace('\\"jsonrpc\\":\\"2.0\\",', '');
    if (k === 4) return l.replace('\\"type\\":\\"text\\",\\"text\\"', '\\"text\\"');
    if (k === 5) return r() < 0.5 ? l.replace('}}}}"}', '},\\"messageId\\":\\"m1\\"}}}"}') : l.replace('\\",\\"content\\":', '\\",\\"messageId\\":\\"m2\\",\\"content\\":');
    if (k === 6) return l.replace(/^\{"t":[^,]*,/, '{');
    return l.replace('"dir":"a2c"', '"dir":"stderr"');
  },
];

describe('chunk-line recogniser', () => {
  it('the schemas only type-check what the memoised verdict ignores (session id, text, messageId)', () => {
    for (const s of [STABLE_SCHEMA, UNSTABLE_SCHEMA] as { $defs: Record<string, Record<string, unknown>> }[]) {
      expect(s.$defs.SessionId).toEqual({ type: 'string' });
      expect(s.$defs.MessageId).toEqual({ type: 'string' });
      expect((s.$defs.ContentChunk as { properties: { messageId: { anyOf: unknown[] } } }).properties.messageId.anyOf).toEqual([{ $ref: '#/$defs/MessageId' }, { type: 'null' }]);
      const text = s.$defs.TextContent as { properties: Record<string, unknown> };
      expect(text.properties.text).toEqual({ type: 'string' });
      const notification = s.$defs.SessionNotification as { properties: Record<string, unknown> };
      expect(notification.properties.sessionId).toEqual({ allOf: [{ $ref: '#/$defs/SessionId' }] });
      const variants = (s.$defs.SessionUpdate as { oneOf: { properties: { sessionUpdate: { const: string } }; allOf: unknown[] }[] }).oneOf;
      for (const k of CHUNK_UPDATES) {
        const v = variants.find((x) => x.properties.sessionUpdate.const === k)!;
        expect(v.allOf).toEqual([{ $ref: '#/$defs/ContentChunk' }]);
      }
      const block = (s.$defs.ContentBlock as { oneOf: { properties: { type: { const: string } }; allOf: unknown[] }[] }).oneOf;
      expect(block.find((x) => x.properties.type.const === 'text')!.allOf).toEqual([{ $ref: '#/$defs/TextContent' }]);
    }
  });

  it('agrees with the generic path on every line of every recording, and through the check batches', () => {
    let accepted = 0;
    const fileChunks = stats.fileChunks;
    const rowChunks = stats.rowChunks;
    for (const file of recordings()) {
      const lines = readFileSync(file, 'utf8').split('\n');
      for (const l of lines) if (agree(l)) accepted++;
      expectSameBatches(lines);
    }
    expect(accepted).toBeGreaterThan(30); // the recordings hold such lines: the fast path is exercised
    expect(stats.fileChunks - fileChunks).toBe(accepted); // and the file reader reports each as a chunk
    expect(stats.rowChunks - rowChunks).toBeGreaterThan(30); // and so does the reading of stored rows
  });

  it('agrees on generated chunk lines, accepting any text and refusing the session ids and kinds it does not read', () => {
    const lines: string[] = ['{"acpInspect":"recording","version":1}'];
    let t = 0;
    for (const sid of SIDS) for (const kind of [...CHUNK_UPDATES, 'tool_call_update', 'agent_message_chunkx']) for (const text of TEXTS) for (const dir of ['a2c', 'c2a']) {
      t += 0.37;
      const line = lineOf(t.toFixed(3), dir, frameOf(sid, kind, text));
      const ok = agree(line);
      lines.push(line);
      const plain = /^[\x20-\x7e]*$/.test(sid) && !/["\\]/.test(sid) && (CHUNK_UPDATES as readonly string[]).includes(kind);
      // Any text (non-ASCII, escapes, control characters and lone surrogates, which JSON.stringify escapes).
      expect(ok, line).toBe(plain);
    }
    // With a messageId before or after the content: a string the recogniser reads as it is (ASCII, no escapes).
    for (const mid of MIDS) for (const after of [false, true]) for (const kind of CHUNK_UPDATES) for (const text of TEXTS.slice(0, 6)) {
      t += 0.37;
      const line = lineOf(t.toFixed(3), 'a2c', frameOf('sess-1', kind, text, mid, after));
      lines.push(line);
      expect(agree(line), line).toBe(typeof mid === 'string' && /^[\x20-\x7e]*$/.test(mid) && !/["\\]/.test(mid));
    }
    // Two messageIds: the generic path (JSON.parse keeps the first one's place and the last one's value).
    const both = lineOf('99', 'a2c', frameOf('sess-1', 'agent_message_chunk', 'x', 'm1').replace('}}}}', '},"messageId":"m2"}}}'));
    expect(agree(both)).toBe(false);
    lines.push(both);
    expectSameBatches(lines);
  });

  it('agrees on seeded mutations of chunk lines (refused, or the same item)', () => {
    const r = seededRandom(20);
    const bases: string[] = [];
    for (const file of recordings()) for (const l of readFileSync(file, 'utf8').split('\n')) if (recognised(l)) bases.push(l);
    for (const sid of SIDS.slice(0, 3)) for (const text of TEXTS) bases.push(lineOf('12.5', 'a2c', frameOf(sid, 'agent_message_chunk', text)));
    const before = { ...stats };
    const mutated: string[] = [];
    for (let i = 0; i < 30_000; i++) {
      let l = bases[Math.floor(r() * bases.length)]!;
      const n = 1 + Math.floor(r() * 2);
      for (let k = 0; k < n; k++) l = MUTATIONS[Math.floor(r() * MUTATIONS.length)]!(l, r);
      agree(l);
      if (mutated.length < 3000 && generic(l).error === undefined) mutated.push(l);
    }
    // Both outcomes occur: the mutations reach the fast path and its refusals.
    expect(stats.accepted - before.accepted).toBeGreaterThan(1500);
    expect(stats.refused - before.refused).toBeGreaterThan(3000);
    expectSameBatches(mutated);
  });
});
