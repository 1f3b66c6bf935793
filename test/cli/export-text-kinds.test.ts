/**
 * Export writes a frame whose raw text is not ASCII from the UTF-8 bytes SQLite hands over, never
 * decoded (store.ts's RawJsonFrame); redaction tests those bytes a character a byte. What it writes
 * must be, byte for byte, what the frames read as text write (the store read with its raw text as
 * strings, each line made by JSON.stringify): for every kind of chunk text (bench/frames.js's), for
 * frames with secrets (redacted and not), truncated frames, frames kept as bytes, and text stored
 * as bytes that are not UTF-8. Through the real binary (export to a file and to stdout, `--seq`,
 * `--turn`) and the server's download routes, on a real SQLite file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TEXT_KINDS, updateTemplate } from '../../bench/frames.js';
import { Store, toTranscriptNote } from '../../src/store/store.js';
import { readStoredSlice } from '../../src/store/slice-source.js';
import { transcriptLines } from '../../src/transcript/format.js';
import { sliceItems, type SliceSpec } from '../../src/transcript/slice.js';
import { chunkLines } from '../../src/transcript/write-file.js';
import { redactItems } from '../../src/redact.js';
import { createApp } from '../../src/server/index.js';
import type { Item } from '../../src/wire/frame.js';
import { cli, tempDir } from '../helpers.js';

const t = tempDir('acp-export-kinds-');
afterAll(() => t.cleanup());
const db = join(t.dir, 'db.sqlite');
let id = '';
let promptSeq = 0;
/** seqs of the rows whose text was made bytes that are not UTF-8 (stored as text). */
const invalidSeqs: number[] = [];

const rpc = (o: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', ...o });
/** Frames that are not chunks, with and without secrets, ASCII and not. */
const OTHERS = [
  rpc({ id: 10, method: 'session/new', params: { cwd: '/tmp/café', mcpServers: [{ name: 'srv ✓', command: 'x', args: [], env: [{ name: 'KEY', value: 'sécret-日本-🚀' }] }] } }),
  rpc({ id: 10, result: { sessionId: 'sess-1' } }),
  rpc({ id: 11, method: 'x/auth', params: { password: 'pé✓ss', api_key: '鍵の値', 'éToken': 'kept: é before the word', 'ſecret': 'kept: long s', note: 'password: token ✓' } }),
  rpc({ id: 12, method: 'x/url', params: { baseUrl: 'https://üser:pw✓@h/' } }),
  '{"jsonrpc":"2.0","id":13,"method":"x/escaped","params":{"pass\\u0077ord":"pé","text":"\\u00e9 é"}}',
  '{"jsonrpc":"2.0","id":14,"method":"x/spaced","params":{"password"\t :\r\n"ü"}}',
  'not JSON at all: é ✓ 😀',
  rpc({ id: 15, result: { text: 'no secret here: naïve ✓ \u2028 \u0001 "quoted" \\ 😀' } }),
];

/** The transcript the test imports: a turn of chunks of every text kind, other frames, a truncated one, one kept as bytes, a note. */
function transcript(): string {
  const lines: string[] = ['{"acpInspect":"recording","version":1,"name":"kinds ✓"}'];
  let t = 0;
  const put = (dir: string, raw: string, extra = '') => lines.push(`{"t":${(t += 0.5)},"dir":"${dir}","raw":${JSON.stringify(raw)}${extra}}`);
  put('c2a', rpc({ id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }));
  put('a2c', rpc({ id: 1, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } }));
  OTHERS.forEach((raw, i) => put(i % 2 ? 'a2c' : 'c2a', raw));
  put('c2a', rpc({ id: 2, method: 'session/prompt', params: { sessionId: 'sess-1', prompt: [{ type: 'text', text: 'go — ✓' }] } }));
  promptSeq = lines.length - 1;
  for (const kind of TEXT_KINDS) for (const size of [300, 1024, 4000]) put('a2c', updateTemplate(size, kind).buf.toString('utf8').trimEnd());
  // Stored text cut by the store's cap, inside a secret; and a line whose bytes were not UTF-8.
  const cut = rpc({ id: 16, method: 'x/auth', params: { token: 'tøken-✓-that-is-long' } });
  put('c2a', cut.slice(0, cut.indexOf('✓') + 1), `,"truncated":true,"size":${Buffer.byteLength(cut) + 100}`);
  const bytes = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":17,"result":{"t":"é'), Buffer.from([0xff, 0xc3]), Buffer.from('"}}')]);
  put('a2c', bytes.toString('utf8'), `,"rawBase64":"${bytes.toString('base64')}"`);
  for (const kind of TEXT_KINDS) put('a2c', updateTemplate(400, kind).buf.toString('utf8').trimEnd()); // to be made not UTF-8
  put('a2c', rpc({ id: 2, result: { stopReason: 'end_turn' } }));
  lines.push(`{"t":${t},"dir":"stderr","raw":"log ✓ é"}`);
  lines.push(`{"t":${t},"dir":"note","seq":${promptSeq},"text":"why ✓","at":"2026-01-01T00:00:00.000Z"}`);
  return lines.join('\n') + '\n';
}

/** What export wrote before frames were read as bytes: the store's rows read as text, each line by JSON.stringify. */
function expected(spec: SliceSpec | undefined, redact: boolean): Buffer {
  const store = Store.open(db);
  try {
    const n = Number(id);
    let header = store.headerOf(n);
    let items: Iterable<Item>;
    let notes = store.readNotes(n).map(toTranscriptNote);
    if (spec) {
      const cut = readStoredSlice(store, n, spec);
      header = cut.plan.header;
      notes = cut.plan.notes;
      items = sliceItems(cut.plan, cut.items);
    } else {
      items = store.pagedItems(n, 0, Number.MAX_SAFE_INTEGER, 1000, { json: false });
    }
    const lines = [...transcriptLines(header, redact ? redactItems(items) : items, notes)];
    expect(lines.every((l) => typeof l === 'string')).toBe(true); // the reference never takes the bytes path
    return Buffer.concat([...chunkLines(lines)]);
  } finally {
    store.close();
  }
}

beforeAll(async () => {
  const file = join(t.dir, 'in.jsonl');
  writeFileSync(file, transcript());
  const imp = await cli(['import', file, '--db', db]);
  expect(imp.code, imp.stderr).toBe(0);
  id = imp.stdout.toString().trim();
  const store = Store.open(db);
  try {
    // Bytes that are not UTF-8 stored as text (as the tap's packed rows may hold them): a stray
    // byte, a surrogate's three bytes, a cut sequence, an overlong one, in chunks of each text kind.
    const last = store.db.prepare(`SELECT seq, raw FROM items WHERE recording_id = ? AND raw LIKE '{"jsonrpc":"2.0","method":"session/update"%' ORDER BY seq DESC LIMIT ?`).all(Number(id), TEXT_KINDS.length) as { seq: number; raw: string }[];
    const bad = [[0xff], [0xed, 0xa0, 0x80], [0xe2, 0x9c], [0xc0, 0xaf]];
    last.forEach((r, i) => {
      const b = Buffer.from(r.raw);
      const at = b.indexOf('"text":"') + 20;
      const raw = Buffer.concat([b.subarray(0, at), Buffer.from(bad[i % bad.length]!), b.subarray(at)]);
      store.db.prepare(`UPDATE items SET raw = CAST(? AS TEXT), size = ? WHERE recording_id = ? AND seq = ?`).run(raw, raw.length, Number(id), r.seq);
      invalidSeqs.push(r.seq);
    });
  } finally {
    store.close();
  }
});

describe('export of text that is not ASCII', () => {
  it('reads non-ASCII frames as bytes, and text that is not UTF-8 as text', () => {
    const store = Store.open(db);
    try {
      const frames = [...store.pagedItems(Number(id), 0, Number.MAX_SAFE_INTEGER, 1000, { rawJson: true })].filter((i) => i.dir === 'c2a' || i.dir === 'a2c');
      const plain = new Map([...store.pagedItems(Number(id), 0, Number.MAX_SAFE_INTEGER, 1000, { json: false })].map((i) => [i.seq, i]));
      const asBytes = frames.filter((f) => typeof (f as unknown as { rawJson: unknown }).rawJson !== 'string').map((f) => f.seq);
      // Every frame with a character past ASCII, or cut, but those made not UTF-8.
      const want = frames.filter((f) => !invalidSeqs.includes(f.seq) && (f.truncated || /[^\x00-\x7f]/.test((plain.get(f.seq) as { raw: string }).raw))).map((f) => f.seq);
      expect(asBytes).toEqual(want);
      expect(asBytes.length).toBeGreaterThanOrEqual(15);
      expect(frames.some((f) => f.truncated && asBytes.includes(f.seq))).toBe(true);
      expect(frames.some((f) => f.rawBase64 !== undefined && asBytes.includes(f.seq))).toBe(true);
    } finally {
      store.close();
    }
  });

  it('writes the bytes the frames read as text write: to a file and to stdout, redacted and not', async () => {
    for (const redact of [true, false]) {
      const want = expected(undefined, redact);
      const flags = redact ? [] : ['--no-redact'];
      const out = join(t.dir, `out-${redact}.jsonl`);
      const file = await cli(['export', id, '--db', db, '-o', out, ...flags]);
      expect(file.code, file.stderr).toBe(0);
      expect(readFileSync(out).equals(want), `export -o ${flags}`).toBe(true);
      const stdout = await cli(['export', id, '--db', db, ...flags]);
      expect(stdout.code, stdout.stderr).toBe(0);
      expect(stdout.stdout.equals(want), `export ${flags}`).toBe(true);
    }
    // Redaction did its work on the non-ASCII secrets, and left the rest.
    const redacted = expected(undefined, true).toString('utf8');
    for (const secret of ['sécret-日本-🚀', 'pé✓ss', '鍵の値', 'pw✓@', 'tøken']) expect(redacted).not.toContain(secret); // tøken: in the frame cut by the cap
    for (const kept of ['kept: é before the word', 'kept: long s', 'password: token ✓']) expect(redacted).toContain(kept);
    expect(expected(undefined, false).toString('utf8')).toContain('sécret-日本-🚀');
    expect(expected(undefined, false).toString('utf8')).toContain('tøken');
  });

  it('writes a slice (--seq, --turn) as the frames read as text write it', async () => {
    const specs: [string[], SliceSpec][] = [[['--turn', String(promptSeq)], { turn: promptSeq }], [['--seq', `3-${promptSeq + 5}`], { from: 3, to: promptSeq + 5 }]];
    for (const [flags, spec] of specs) {
      for (const redact of [true, false]) {
        const r = await cli(['export', id, '--db', db, ...flags, ...(redact ? [] : ['--no-redact'])]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout.equals(expected(spec, redact)), `${flags.join(' ')} redact=${redact}`).toBe(true);
      }
    }
  });

  it('downloads the same bytes from the server (the transcript and a fixture)', async () => {
    const HOST = '127.0.0.1:4601';
    const app = createApp({ dbPath: db, token: 'tok', allowedHosts: [HOST], pollMs: 20 });
    try {
      const get = async (path: string) => {
        const res = await app.request(`http://${HOST}${path}`, { headers: { host: HOST, authorization: 'Bearer tok' } });
        expect(res.status, path).toBe(200);
        return Buffer.from(await res.arrayBuffer());
      };
      for (const redact of [true, false]) {
        const q = redact ? '' : 'redact=0';
        expect((await get(`/api/recordings/${id}/export?${q}`)).equals(expected(undefined, redact)), `export ${q}`).toBe(true);
        expect((await get(`/api/recordings/${id}/fixture?turn=${promptSeq}&${q}`)).equals(expected({ turn: promptSeq }, redact)), `turn ${q}`).toBe(true);
        expect((await get(`/api/recordings/${id}/fixture?seq=3-${promptSeq + 5}&${q}`)).equals(expected({ from: 3, to: promptSeq + 5 }, redact)), `seq ${q}`).toBe(true);
      }
    } finally {
      await app.close();
    }
  });
});
