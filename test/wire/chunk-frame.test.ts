/**
 * The raw-frame chunk recogniser (src/wire/chunk-frame.ts) against the generic path:
 * - frame by frame: every frame it accepts is exactly the Frame frameFromBytes makes (same fields, in
 *   the same order, the same `json`), and its update kind is the frame's;
 * - end to end through the recorder's line indexer (src/tap/recorder/lines.ts), with the recogniser
 *   and with it replaced by one that refuses everything (the old path): the same items, the same
 *   findings (the checker told the chunk kind, or not), and the same rows in a real SQLite store.
 * Inputs: every frame of every recording in recordings/, generated chunk frames (escapes, multi-byte
 * UTF-8, lone surrogates, control characters), and seeded mutations of the recognised shape (inserted
 * and deleted characters, invalid UTF-8, extra and missing fields, other key orders, whitespace, `\r`,
 * bad escapes, other types), cut into chunks at random points.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { chunkFrameOf, textChunkSessionOf } from '../../src/wire/chunk-frame.js';
import { rpcRefOf, rpcRefOfValue } from '../../src/wire/transport-event.js';
import { CHUNK_UPDATES } from '../../src/wire/chunk-line.js';
import { frameFromBytes } from '../../src/wire/make-frame.js';
import { createChecker } from '../../src/check/index.js';
import { Store } from '../../src/store/store.js';
import type { Item } from '../../src/wire/frame.js';
import type { RecorderConfig } from '../../src/tap/messages.js';
import { seededRandom } from '../helpers.js';

const ROOT = resolve(__dirname, '../..');

/** Every own field, in order, with nested values (what a consumer can see of an item). */
const show = (v: unknown): string => JSON.stringify(v, (_k, x) => (typeof x === 'number' && Object.is(x, -0) ? '-0' : x));


/** [dir, bytes] of every frame of every recording. */
function recordedFrames(): [string, Buffer][] {
  const out: [string, Buffer][] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d).sort()) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.jsonl')) {
        for (const l of readFileSync(p, 'utf8').split('\n')) {
          if (!l) continue;
          let o: { dir?: string; raw?: string; rawBase64?: string };
          try { o = JSON.parse(l); } catch { continue; }
          if ((o.dir === 'c2a' || o.dir === 'a2c') && typeof o.raw === 'string') {
            out.push([o.dir, o.rawBase64 !== undefined ? Buffer.from(o.rawBase64, 'base64') : Buffer.from(o.raw)]);
          }
        }
      }
    }
  };
  walk(join(ROOT, 'recordings'));
  return out;
}

const chunk = (sid: string, kind: string, text: unknown): string =>
  JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: sid, update: { sessionUpdate: kind, content: { type: 'text', text } } } });

const PIECES = ['a', ' ', '"', '\\', '\\"', '\\\\', '\\n', '\\u0041', '\\u00e9', '\\ud83d\\ude00', '\\ud800', '\\udc00x', '\\/', '\\b\\f\\r\\t',
  '\n', '\r', '\t', '\x00', '\x1f', '\x7f', 'é', '€', '😀', '\u2028', '\ufffd', '}', '{', ',', ':', '\\x41', '\\u12', '\\U0041', '\\', '\\u004G'];

/** A text for a generated chunk: JSON.stringify of random characters (all of JSON's escapes occur). */
function randomText(rnd: () => number): string {
  const n = Math.floor(rnd() * 40);
  let s = '';
  for (let i = 0; i < n; i++) {
    const r = rnd();
    if (r < 0.6) s += String.fromCharCode(0x20 + Math.floor(rnd() * 95));
    else if (r < 0.7) s += String.fromCharCode(Math.floor(rnd() * 0x20));
    else if (r < 0.8) s += ['é', '€', '😀', '\u2028', '\u2029', '\ufffd', '\ud800', '\udfff', '\x7f'][Math.floor(rnd() * 9)];
    else s += ['"', '\\', '/', '\\n'][Math.floor(rnd() * 4)];
  }
  return s;
}

/** Seeded mutations of the recognised shape, as raw bytes. */
function mutations(count: number, seed: number): Buffer[] {
  const rnd = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const out: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const sid = pick(['sess-1', 'S', '', 'sess é', 'a\\"b', 'x\u0001', '😀']);
    const kind = pick([...CHUNK_UPDATES, 'tool_call', 'plan', 'agent_message']);
    const text = randomText(rnd);
    const base = chunk(sid, kind, text);
    let s = base;
    let bytes: Buffer | null = null;
    switch (Math.floor(rnd() * 12)) {
      case 0: break; // as the SDK writes it
      case 1: { // a piece inserted anywhere
        const at = Math.floor(rnd() * (s.length + 1));
        s = s.slice(0, at) + pick(PIECES) + s.slice(at);
        break;
      }
      case 2: { // a character deleted
        const at = Math.floor(rnd() * s.length);
        s = s.slice(0, at) + s.slice(at + 1);
        break;
      }
      case 3: { // invalid UTF-8 inside
        const b = Buffer.from(s);
        const at = Math.floor(rnd() * (b.length + 1));
        bytes = Buffer.concat([b.subarray(0, at), Buffer.from(pick([[0xff], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf4, 0x90, 0x80, 0x80]])), b.subarray(at)]);
        break;
      }
      case 4: // another key order
        s = pick([
          JSON.stringify({ method: 'session/update', jsonrpc: '2.0', params: { sessionId: sid, update: { sessionUpdate: kind, content: { type: 'text', text } } } }),
          JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { update: { sessionUpdate: kind, content: { type: 'text', text } }, sessionId: sid } }),
          JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: sid, update: { content: { type: 'text', text }, sessionUpdate: kind } } }),
          JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: sid, update: { sessionUpdate: kind, content: { text, type: 'text' } } } }),
        ]);
        break;
      case 5: // an extra field somewhere
        s = pick([
          JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'session/update', params: { sessionId: sid, update: { sessionUpdate: kind, content: { type: 'text', text } } } }),
          JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: sid, update: { sessionUpdate: kind, content: { type: 'text', text, annotations: null } } } }),
          JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: sid, update: { sessionUpdate: kind, content: { type: 'text', text } }, _meta: {} } }),
          base.slice(0, -1) + ',"x":1}',
          base.replace('"text":"', '"text":"a","text":"'),
        ]);
        break;
      case 6: // a missing field or another type
        s = pick([
          JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: sid, update: { sessionUpdate: kind, content: { type: 'text' } } } }),
          JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { update: { sessionUpdate: kind, content: { type: 'text', text } } } }),
          chunk(sid, kind, 42),
          chunk(sid, kind, null),
          base.replace('"type":"text"', '"type":"image"'),
          base.replace('"2.0"', '"1.0"'),
          base.replace('session/update', 'session/updates'),
        ]);
        break;
      case 7: // whitespace, `\r`, a BOM
        s = pick([base + '\r', base + ' ', ' ' + base, base.replace('":', '": '), '\ufeff' + base, base.replace(/,/, ' ,')]);
        break;
      case 8: { // a bad or odd escape in the text's body
        const at = base.lastIndexOf('"}}}}');
        s = base.slice(0, at) + pick(['\\x41', '\\u12', '\\U0041', '\\', '\\u004G', '\\u0000', '\\ud800', '\\/', '\\u2028', '\\"', '\\\\"']) + base.slice(at);
        break;
      }
      case 9: // the same frame, twice over, or cut
        s = pick([base + base, base.slice(0, Math.floor(rnd() * base.length)), base.slice(Math.floor(rnd() * base.length))]);
        break;
      case 10: // a long text (several chunks of the splitter's reads)
        s = chunk(sid, kind, text.repeat(200));
        break;
      default: // a raw (unescaped) character in the text
        s = base.slice(0, -5) + pick(['\t', '\x01', '\x7f', 'é', '😀', '\u2028']) + base.slice(-5);
    }
    out.push(bytes ?? Buffer.from(s));
  }
  return out;
}

/** The frames of a session the checker follows (initialize, session/new, a prompt), then `frames`. */
function session(frames: Buffer[]): [string, Buffer][] {
  const l = (o: unknown) => Buffer.from(JSON.stringify(o));
  return [
    ['c2a', l({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })],
    ['a2c', l({ jsonrpc: '2.0', id: 0, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } })],
    ['c2a', l({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/w', mcpServers: [] } })],
    ['a2c', l({ jsonrpc: '2.0', id: 1, result: { sessionId: 'sess-1' } })],
    ['c2a', l({ jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: 'sess-1', prompt: [{ type: 'text', text: 'go' }] } })],
    ...frames.map((b): [string, Buffer] => ['a2c', b]),
    ['a2c', l({ jsonrpc: '2.0', id: 2, result: { stopReason: 'end_turn' } })],
  ];
}

interface Run { items: string[]; chunks: (number | undefined)[]; findings: string; rows: unknown[] }

const config = (o: Partial<RecorderConfig> = {}): RecorderConfig => ({
  dbPath: ':memory:', name: null, command: [], cwd: '/', hostPid: 1, startedAt: '2026-01-01T00:00:00.000Z',
  redact: false, maxFrameBytes: null, check: true, ui: null, finishWaitMs: 1000, ...o,
});

/**
 * The frames through a fresh copy of the recorder's line indexer (each stream cut into chunks at
 * seeded points), a checker, and a store: the items, their chunk kinds, the findings and the rows.
 * With `generic`, the recogniser is replaced by one that refuses everything (the path before it).
 */
async function throughRecorder(frames: [string, Buffer][], generic: boolean, seed: number, cfg?: Partial<RecorderConfig>): Promise<Run> {
  vi.resetModules();
  if (generic) vi.doMock('../../src/wire/chunk-frame.js', () => ({ chunkFrameOf: () => null }));
  else vi.doUnmock('../../src/wire/chunk-frame.js');
  const { LineIndexer } = await import('../../src/tap/recorder/lines.js');
  const checker = createChecker();
  const run: Run = { items: [], chunks: [], findings: '', rows: [] };
  const all: Item[] = [];
  const findings: unknown[] = [];
  const lines = new LineIndexer(config(cfg), {
    onItem(item, _bytes, chunk) {
      all.push(item);
      run.items.push(show(item));
      run.chunks.push(chunk);
      findings.push(...checker.step(item, chunk));
    },
    onPeer() {},
    onIncomplete() {},
  });
  const rnd = seededRandom(seed);
  let t = 1;
  // Interleaved by frame, each frame's bytes (with its `\n`) handed over in up to three pieces.
  for (const [dir, bytes] of frames) {
    const code = dir === 'c2a' ? 0 : 1;
    const whole = Buffer.concat([bytes, Buffer.from('\n')]);
    let at = 0;
    while (at < whole.length) {
      const n = rnd() < 0.5 ? whole.length - at : 1 + Math.floor(rnd() * (whole.length - at));
      lines.handle([code as 0 | 1, t++, new Uint8Array(whole.subarray(at, at + n))]);
      at += n;
    }
  }
  lines.end(0, null, t);
  findings.push(...checker.end());
  run.findings = show(findings);
  const store = Store.open(':memory:');
  try {
    const id = store.createRecording({ startedAt: '2026-01-01T00:00:00.000Z' });
    for (let i = 0; i < all.length; i += 500) store.appendItems(id, all.slice(i, i + 500));
    run.rows = store.db.prepare('SELECT * FROM items ORDER BY seq').all();
  } finally {
    store.close();
  }
  vi.doUnmock('../../src/wire/chunk-frame.js');
  return run;
}

describe('chunkFrameOf (raw session/update text chunks without JSON.parse)', () => {
  const out = { update: -1 };
  /** The recogniser's answer on bytes, checked against frameFromBytes; true when it recognised them. */
  function same(bytes: Buffer, dir: 'a2c' | 'c2a' = 'a2c'): boolean {
    const want = frameFromBytes(3, 1.5, dir, bytes);
    const text = bytes.toString('utf8');
    const valid = want.rawBase64 === undefined;
    out.update = -1;
    const got = valid ? chunkFrameOf(3, 1.5, dir, text, bytes.length, out) : null;
    if (got === null) return false;
    expect(show(got)).toBe(show(want));
    expect(Object.keys(got)).toEqual(Object.keys(want));
    const u = (want.json as { params: { update: { sessionUpdate: string } } }).params.update.sessionUpdate;
    expect(out.update).toBe(CHUNK_UPDATES.indexOf(u as never));
    expect(out.update).toBeGreaterThanOrEqual(0);
    return true;
  }

  it('accepts the SDK form of every chunk kind, escapes and non-ASCII included, and makes the same frame', () => {
    for (const kind of CHUNK_UPDATES) {
      for (const text of ['', 'hello', 'a "quoted" \\ back/slash\n\t', 'é€😀\u2028', '\ud800 lone', '\x00\x1f\x7f', 'x'.repeat(5000)]) {
        expect(same(Buffer.from(chunk('sess-1', kind, text)))).toBe(true);
        expect(same(Buffer.from(chunk('sess é', kind, text)), 'c2a')).toBe(true);
      }
    }
  });

  it('accepts a string messageId before the content (opencode) or after it (the schema\'s order), and makes the same frame', () => {
    for (const kind of CHUNK_UPDATES) {
      for (const text of ['', 'pong', 'a "quoted" \\ back/slash\n', 'é€😀']) {
        for (const id of ['msg_21bec8682001x93bPiXan0C958', '', 'm é']) {
          const content = { type: 'text', text };
          const before = JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'ses_1', update: { sessionUpdate: kind, messageId: id, content } } });
          const after = JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'ses_1', update: { sessionUpdate: kind, content, messageId: id } } });
          expect(same(Buffer.from(before)), before).toBe(true);
          expect(same(Buffer.from(after)), after).toBe(true);
        }
      }
    }
    const base = chunk('sess-1', 'agent_message_chunk', 'hi');
    // A null one, one with an escape, and two of them (JSON.parse keeps the first one's place, the last one's value): the generic path.
    for (const s of [base.replace('","content"', '","messageId":null,"content"'), base.replace('}}}}', '},"messageId":null}}}'), base.replace('","content"', '","messageId":"a\\"b","content"'),
      base.replace('","content"', '","messageId":"m1","content"').replace('}}}}', '},"messageId":"m2"}}}'), base.replace('}}}}', '},"messageId":"m1","x":1}}}')]) {
      expect(same(Buffer.from(s)), s).toBe(false);
    }
  });

  it('refuses what it cannot prove and leaves it to the generic path', () => {
    const base = chunk('sess-1', 'agent_message_chunk', 'hi');
    for (const s of [base + '\r', ' ' + base, base.replace('":', '": '), chunk('a"b', 'agent_message_chunk', 'x'), chunk('s', 'tool_call', 'x'),
      chunk('s', 'agent_message_chunk', 5), base.replace('"type":"text"', '"type":"image"'), base.slice(0, -5) + '\\x41"}}}}', base.slice(0, -5) + '\t"}}}}',
      base.slice(0, -1) + ',"x":1}', base.replace('"text":"', '"text":"a","text":"')]) {
      expect(same(Buffer.from(s)), s).toBe(false);
    }
    // Invalid UTF-8 never reaches it (the line is decoded first, with U+FFFD).
    expect(same(Buffer.concat([Buffer.from(base.slice(0, -5)), Buffer.from([0xff]), Buffer.from(base.slice(-5))]))).toBe(false);
  });

  it('makes the same frame as frameFromBytes for every recorded frame and 30,000 seeded mutations', () => {
    let accepted = 0;
    for (const [dir, bytes] of recordedFrames()) if (same(bytes, dir as 'a2c')) accepted++;
    expect(accepted).toBeGreaterThan(0);
    let mutated = 0;
    const ms = mutations(30_000, 20);
    for (const b of ms) if (same(b)) mutated++;
    // Both sides of the contract are exercised: many mutations are recognised, many refused.
    expect(mutated).toBeGreaterThan(2000);
    expect(mutated).toBeLessThan(ms.length - 2000);
  });
});

describe('the recorder with and without the recogniser', () => {
  it('gives the same items, findings and rows on every recording and on seeded mutations', async () => {
    const inputs: [string, [string, Buffer][]][] = [
      ['recordings', recordedFrames()],
      ['mutations', session(mutations(6000, 7))],
      ['chunks', session(Array.from({ length: 3000 }, (_, i) => Buffer.from(chunk(i % 7 ? 'sess-1' : 'other', CHUNK_UPDATES[i % 3]!, `piece ${i} "é" \\`))))],
    ];
    for (const [name, frames] of inputs) {
      const old = await throughRecorder(frames, true, 5);
      const now = await throughRecorder(frames, false, 5);
      expect(old.chunks.every((c) => c === undefined), name).toBe(true);
      expect(now.chunks.filter((c) => c !== undefined).length, name).toBeGreaterThan(name === 'recordings' ? 0 : 300);
      expect(now.items.length, name).toBe(old.items.length);
      for (let i = 0; i < old.items.length; i++) expect(now.items[i], `${name} item ${i}`).toBe(old.items[i]);
      expect(now.findings, name).toBe(old.findings);
      expect(now.rows, name).toEqual(old.rows);
    }
  });

  it('keeps the generic handling of cut and redacted frames', async () => {
    const frames = session(Array.from({ length: 200 }, (_, i) => Buffer.from(chunk('sess-1', 'agent_message_chunk', `secret ${i} `.repeat(i % 40)))));
    for (const cfg of [{ maxFrameBytes: 190 }, { redact: true }]) {
      const old = await throughRecorder(frames, true, 9, cfg);
      const now = await throughRecorder(frames, false, 9, cfg);
      expect(now.items).toEqual(old.items);
      expect(now.findings).toBe(old.findings);
      expect(now.rows).toEqual(old.rows);
    }
  });
});

describe('rpcRefOf (a transport event\'s reference to its message) with the recogniser', () => {
  /** What rpcRefOf gave before it knew text chunks: from JSON.parse. */
  const parsed = (text: string) => {
    try { return rpcRefOfValue(JSON.parse(text)); } catch { return { kind: 'other' }; }
  };
  it('gives what JSON.parse would for every recorded frame and 30,000 seeded mutations, and knows text chunks without it', () => {
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expect(show(rpcRefOf(chunk('sess-1', 'agent_message_chunk', 'x'.repeat(1024))))).toBe(show({ kind: 'notification', method: 'session/update', sessionId: 'sess-1' }));
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
    let fast = 0;
    for (const bytes of [...recordedFrames().map(([, b]) => b), ...mutations(30_000, 21)]) {
      const text = bytes.toString('utf8');
      if (textChunkSessionOf(text) !== null) fast++;
      expect(show(rpcRefOf(text)), text).toBe(show(parsed(text)));
    }
    expect(fast).toBeGreaterThan(2000);
  });
});
