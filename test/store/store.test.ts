import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Store, processStartId } from '../../src/store/store.js';
import { MIGRATIONS } from '../../src/store/schema.js';
import { StoreError } from '../../src/store/errors.js';
import { parseTranscript, serializeTranscript, transcriptLines } from '../../src/transcript/format.js';
import { chunkLines } from '../../src/transcript/write-file.js';
import { mayHoldSecret, redactItems } from '../../src/redact.js';
import { frameFromText } from '../../src/wire/make-frame.js';
import type { Frame, Item } from '../../src/wire/frame.js';
import { stopProcess, tempDir } from '../helpers.js';

const transcript = [
  '{"acpInspect":"recording","version":1,"name":"t"}',
  '{"t":1,"dir":"c2a","raw":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":0,\\"method\\":\\"initialize\\",\\"params\\":{\\"protocolVersion\\":1,\\"clientInfo\\":{\\"name\\":\\"zed\\",\\"version\\":\\"0.1\\"}}}"}',
  '{"t":2,"dir":"a2c","raw":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":0,\\"result\\":{\\"protocolVersion\\":1,\\"agentInfo\\":{\\"name\\":\\"agent\\",\\"version\\":\\"2\\"}}}"}',
  '{"t":3,"dir":"stderr","raw":"log"}',
  '{"t":4,"dir":"a2c","rawBase64":"e/99","raw":"{\\ufffd}"}',
].join('\n') + '\n';

let cleanup = () => {};
afterEach(() => cleanup());

describe('Store', () => {
  it('creates the database owner-only and round-trips a recording losslessly', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const path = join(t.dir, 'sub', 'rec.sqlite');
    const store = Store.open(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(store.db.pragma('page_size', { simple: true })).toBe(16384);
    expect(statSync(join(t.dir, 'sub')).mode & 0o777).toBe(0o700);
    const id = store.importRecording(parseTranscript(transcript));
    const s = store.getRecording(id)!;
    expect(s).toMatchObject({ frames: 3, items: 4, client: { name: 'zed', version: '0.1' }, agent: { name: 'agent', version: '2' }, protocolVersion: 1 });
    const again = serializeTranscript(store.loadRecording(id));
    expect(serializeTranscript(parseTranscript(again))).toBe(again);
    expect(again.split('\n').slice(1)).toEqual(serializeTranscript(parseTranscript(transcript)).split('\n').slice(1));
    store.close();
  });

  it('an import appends without statement journals, and leaves the connection as it was, also when it fails', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const store = Store.open(join(t.dir, 'rec.sqlite'));
    const rec = parseTranscript(transcript);
    const pragmas = () => [store.db.pragma('temp_store', { simple: true }), store.db.pragma('foreign_keys', { simple: true })];
    const during: unknown[] = [];
    const items = function* (fail: boolean) {
      for (const it of rec.items) {
        during.push(pragmas());
        yield it;
      }
      if (fail) throw new Error('a bad line');
    };
    store.importStream({ header: rec.header, items: items(false), notes: () => [] });
    expect(during).toEqual(rec.items.map(() => [2, 0])); // temp_store MEMORY, foreign keys off
    expect(pragmas()).toEqual([0, 1]); // as Store.open sets them
    expect(() => store.importStream({ header: rec.header, items: items(true), notes: () => [] })).toThrow('a bad line');
    expect(pragmas()).toEqual([0, 1]);
    expect(store.listRecordings().length).toBe(1);
    store.close();
  });

  it('an append-only connection writes nothing for a recording deleted meanwhile (its foreign key unchecked), and says so', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const path = join(t.dir, 'rec.sqlite');
    const writer = Store.open(path, { appendOnly: true });
    expect([writer.db.pragma('temp_store', { simple: true }), writer.db.pragma('foreign_keys', { simple: true })]).toEqual([2, 0]);
    const id = writer.importRecording(parseTranscript(transcript));
    const other = Store.open(path);
    other.deleteRecording(id);
    const items = parseTranscript(transcript).items;
    expect(() => writer.appendItems(id, items)).toThrow(expect.objectContaining({ code: 'E_RECORDING_GONE' }));
    expect(() => writer.appendFindings(id, [{ seq: 1, severity: 'error', rule: 'r', message: 'm' }])).toThrow(expect.objectContaining({ code: 'E_RECORDING_GONE' }));
    expect(other.db.prepare('SELECT count(*) AS n FROM items').get()).toEqual({ n: 0 });
    expect(other.db.prepare('SELECT count(*) AS n FROM findings').get()).toEqual({ n: 0 });
    // A recording that is there takes them, 32 rows to a statement and the rest one by one.
    const kept = writer.importRecording(parseTranscript(transcript));
    const many = Array.from({ length: 70 }, (_, i) => ({ ...items[i % items.length]!, seq: 100 + i }));
    writer.appendItems(kept, many);
    expect(other.getRecording(kept)!.items).toBe(items.length + 70);
    // A row that breaks a constraint (a seq stored already) rolls the whole batch back, as before.
    expect(() => writer.appendItems(kept, [{ ...items[0]!, seq: 200 }, ...many.slice(0, 40)])).toThrow(/UNIQUE/);
    expect(other.db.prepare('SELECT count(*) AS n FROM items WHERE recording_id = ?').get(kept)).toEqual({ n: items.length + 70 });
    other.close();
    writer.close();
  });

  it('indexes reply_to only where set, and lookups by it still use that index (also after upgrading a schema-2 file)', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const path = join(t.dir, 'old.sqlite');
    const old = new Database(path);
    old.exec(MIGRATIONS[0]!);
    old.exec(MIGRATIONS[1]!);
    old.pragma('user_version = 2');
    old.close();
    const store = Store.open(path, { cacheKiB: 512 });
    expect(store.db.pragma('cache_size', { simple: true })).toBe(-512);
    expect(store.db.pragma('page_size', { simple: true })).toBe(4096); // an existing file keeps its pages
    const id = store.importRecording(parseTranscript(transcript));
    const indexes = store.db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'items'`).all() as { name: string; sql: string }[];
    const sqlOf = (n: string) => indexes.find((i) => i.name === n)?.sql ?? '';
    expect(sqlOf('items_rec_reply')).toMatch(/WHERE reply_to IS NOT NULL$/);
    // Rows without the column are not in its index; rows with it are, and are found through it.
    expect(store.db.prepare(`SELECT COUNT(*) AS n FROM items INDEXED BY items_rec_reply WHERE recording_id = ? AND reply_to IS NOT NULL`).get(id)).toEqual({ n: 1 });
    const plan = (sql: string) => (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(id, 1) as { detail: string }[]).map((r) => r.detail).join('; ');
    expect(plan(`SELECT seq FROM items WHERE recording_id = ? AND reply_to = ?`)).toContain('items_rec_reply');
    expect(plan(`SELECT p.seq, r.seq FROM items p LEFT JOIN items r ON r.recording_id = p.recording_id AND r.reply_to = p.seq WHERE p.recording_id = ? AND p.seq = ?`)).toContain('items_rec_reply');
    expect(store.db.prepare(`SELECT seq FROM items WHERE recording_id = ? AND reply_to = ?`).get(id, 1)).toEqual({ seq: 2 });
    store.close();
  });

  it('resolves latest and reports unknown ids with the fix', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const store = Store.open(join(t.dir, 'x.sqlite'));
    expect(() => store.resolveRef('latest')).toThrow(/no recordings/);
    const a = store.importRecording(parseTranscript(transcript));
    const b = store.importRecording(parseTranscript(transcript));
    expect(store.resolveRef('latest')).toBe(b);
    expect(store.resolveRef(String(a))).toBe(a);
    expect(() => store.resolveRef('999')).toThrow(/acp-inspect list/);
    expect(() => store.resolveRef('-1')).toThrow(StoreError);
    store.deleteRecording(a);
    expect(store.listRecordings().map((r) => r.id)).toEqual([b]);
    store.close();
  });

  it('names a corrupt file as corrupt', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const path = join(t.dir, 'bad.sqlite');
    writeFileSync(path, 'this is not a database, just some text that is long enough to look like a header'.repeat(20));
    expect(() => Store.open(path)).toThrow(/corrupt or not an acp-inspect database/);
  });

  it('marks recordings whose writer died as interrupted', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const store = Store.open(join(t.dir, 'x.sqlite'));
    const id = store.createRecording({ status: 'running', hostPid: 2 ** 22 + 12345 });
    const live = store.createRecording({ status: 'running', hostPid: process.pid });
    expect(store.markInterrupted()).toBe(1);
    expect(store.getRecording(id)!.status).toBe('interrupted');
    expect(store.getRecording(live)!.status).toBe('running');
    store.close();
  });

  it('a running recording whose writer pid now belongs to another process is interrupted (pid plus start time)', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const store = Store.open(join(t.dir, 'x.sqlite'));
    const me = processStartId(process.pid);
    expect(me).toMatch(/^[0-9a-f-]{36}:\d+$/);
    const writer = spawn('sleep', ['30']);
    try {
      const other = processStartId(writer.pid!);
      expect(other).not.toBeNull();
      expect(other).not.toBe(me);
      const live = store.createRecording({ status: 'running', hostPid: writer.pid!, hostStart: other });
      // The tap that wrote this one had our pid before we got it: another process now.
      const reused = store.createRecording({ status: 'running', hostPid: writer.pid!, hostStart: me });
      // Written before identities were kept: the pid alone decides.
      const legacy = store.createRecording({ status: 'running', hostPid: writer.pid! });
      expect(store.markInterrupted()).toBe(1);
      expect(store.getRecording(reused)!.status).toBe('interrupted');
      expect(store.getRecording(live)!.status).toBe('running');
      expect(store.getRecording(legacy)!.status).toBe('running');
      // The identity is the writer's business: exports never show it.
      expect(JSON.stringify(store.headerOf(live))).not.toContain('hostStart');
    } finally {
      store.close();
      await stopProcess(writer, 'SIGKILL');
    }
  });
});

describe('Store.appendItems', () => {
  it('reads frames for writing with their raw text quoted by SQLite: the same lines, redacted the same, for every character', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const store = Store.open(join(t.dir, 'q.sqlite'));
    // Every UTF-16 unit (lone surrogates included: they are stored as U+FFFD), in lines of 2048.
    const raws: string[] = [];
    for (let c = 0; c < 0x10000; c += 2048) raws.push(String.fromCharCode(...Array.from({ length: 2048 }, (_, i) => c + i)));
    raws.push('{"jsonrpc":"2.0","id":1,"result":{"text":"😀 \u0000 \\ \" \u2028"}}', '');
    // Lines redaction changes, and lines it does not, in the forms the quoted test must see through.
    const secret = [
      '{"jsonrpc":"2.0","id":1,"method":"x","params":{"password":"p"}}',
      '{"jsonrpc":"2.0","id":1,"method":"x","params":{"password"\t :\r\n"p"}}',
      '{"jsonrpc":"2.0","id":1,"method":"x","params":{"pass\\u0077ord":"p"}}',
      '{"jsonrpc":"2.0","id":1,"method":"x","params":{"a\\"b-token":"p"}}',
      '{"jsonrpc":"2.0","id":1,"method":"x","params":{"env":[{"name":"K","value":"v"}]}}',
      '{"jsonrpc":"2.0","id":1,"method":"x","params":{"baseUrl":"https://u:pw@h/"}}',
    ];
    const plain = ['{"jsonrpc":"2.0","id":1,"result":{"text":"password: token \\t url","n":{"tokens":3}}}'];
    for (const raw of secret) expect(mayHoldSecret(JSON.stringify(raw), true), raw).toBe(true);
    for (const raw of plain) expect(mayHoldSecret(JSON.stringify(raw), true), raw).toBe(false);
    const frames: Item[] = [...raws, ...secret, ...plain].map((raw, i) => frameFromText(i + 1, i, i % 2 ? 'a2c' : 'c2a', raw));
    const id = store.createRecording({ name: 'q', startedAt: '2026-01-01T00:00:00.000Z', status: 'imported', command: null, cwd: null, header: { acpInspect: 'recording', version: 1 } });
    store.appendItems(id, [...frames, { seq: frames.length + 1, t: 1, dir: 'stderr', raw: 'log' }]);
    const header = store.headerOf(id);
    // The bytes a writer writes (a frame past ASCII is read as bytes, the others as text).
    const lines = (items: Iterable<Item>) => Buffer.concat([...chunkLines(transcriptLines(header, items))]).toString('latin1');
    const plainRead = () => store.pagedItems(id, 0, Number.MAX_SAFE_INTEGER, 1000, { json: false });
    const quotedRead = () => store.pagedItems(id, 0, Number.MAX_SAFE_INTEGER, 1000, { rawJson: true });
    expect(lines(quotedRead())).toEqual(lines(plainRead()));
    const redacted = lines(redactItems(quotedRead()));
    expect(redacted).toEqual(lines(redactItems(plainRead())));
    for (const s of ['"p"', 'pw@', '"v"']) expect(redacted).not.toContain(JSON.stringify(s).slice(1, -1));
    expect([...quotedRead()].filter((i) => typeof (i as { rawJson?: unknown }).rawJson === 'object').length).toBeGreaterThanOrEqual(raws.length - 2);
    // A frame read this way still reads as itself.
    expect(([...quotedRead()][raws.length] as { raw: string }).raw).toBe(secret[0]);
    store.close();
  });

  it('reads text chunk frames back as JSON.parse reads them, whether or not they are in the SDK\'s form', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const store = Store.open(join(t.dir, 'c.sqlite'));
    const update = (text: string, kind = 'agent_message_chunk', extra = '') =>
      `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"${kind}","content":{"type":"text","text":${JSON.stringify(text)}}${extra}}}}`;
    const raws = [
      update('plain'), update('quote " backslash \\ newline \n tab \t ünï 😀'), update('thinking', 'agent_thought_chunk'),
      update('more keys', 'agent_message_chunk', ',"_meta":{"k":1}'), update('x').replace('"s-1"', '"s-\\u0031"'), update('spaced').replace(':', ': '),
    ];
    const frames = raws.map((raw, i) => frameFromText(i + 1, i, 'a2c', raw));
    const id = store.createRecording({ name: 'c', startedAt: '2026-01-01T00:00:00.000Z', status: 'imported', command: null, cwd: null, header: { acpInspect: 'recording', version: 1 } });
    store.appendItems(id, frames);
    const back = store.readItems(id) as Frame[];
    expect(back.map((f) => f.json)).toEqual(raws.map((r) => JSON.parse(r)));
    expect(back.map((f) => [f.method, f.sessionId, f.kind])).toEqual(frames.map((f) => [f.method, f.sessionId, f.kind]));
    store.close();
  });

  it('reads the same items with non-ASCII frames read as their bytes (bytes: true), their chunk text decoded only when read', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const store = Store.open(join(t.dir, 'b.sqlite'));
    const update = (text: string, sid = 's-1') =>
      `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"${sid}","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":${JSON.stringify(text)}}}}}`;
    const texts = ['plain', 'ünï — ✓ 😀 漢字', 'quote " backslash \\ newline \n tab \t é', '\\u00e9 as written', '\ud83d\ude00 pair'];
    const raws = [
      ...texts.map((s) => update(s)),
      update('x').replace('"text":"x"', '"text":"\\u00e9\\ud83d\\ude00 escaped é"'),
      update('session past ASCII', 's-é'),
      '{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s-1","prompt":[{"type":"text","text":"héllo"}]}}',
      '{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn","x":"ü"}}',
      'not json ü',
    ];
    const frames: Item[] = raws.map((raw, i) => frameFromText(i + 1, i, i % 2 ? 'a2c' : 'c2a', raw));
    // A frame cut by the size cap (its size is the wire's), stderr and an event past ASCII, bytes that are not UTF-8.
    const cut = frameFromText(raws.length + 1, 1, 'a2c', update('ééé cut'));
    frames.push({ ...cut, raw: cut.raw.slice(0, 60), truncated: true } as Frame);
    frames.push({ seq: frames.length + 1, t: 2, dir: 'stderr', raw: 'lög' }, { seq: frames.length + 2, t: 3, dir: 'event', type: 'exit', data: { note: 'ü' } } as never);
    const id = store.createRecording({ name: 'b' });
    store.appendItems(id, frames);
    store.appendItems(id, parseTranscript(transcript).items.map((it, k) => ({ ...it, seq: frames.length + 3 + k })));
    const text = [...store.pagedItems(id)];
    const bytes = [...store.pagedItems(id, 0, Number.MAX_SAFE_INTEGER, 3, { bytes: true })];
    expect(JSON.stringify(bytes)).toBe(JSON.stringify(text));
    expect(bytes.map((f) => (f as Frame).size)).toEqual(text.map((f) => (f as Frame).size));
    // The multi-byte chunk frame came lazy: its text an accessor, read from the bytes.
    const content = ((bytes[1] as Frame).json as { params: { update: { content: object } } }).params.update.content;
    expect(Object.getOwnPropertyDescriptor(content, 'text')?.get).toBeTypeOf('function');
    expect((content as { text: string }).text).toBe(texts[1]);
    store.close();
  });

  it('writes the same rows, in order, whether items go in multi-row groups or one by one', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const store = Store.open(join(t.dir, 'rows.sqlite'));
    const base = parseTranscript(transcript).items;
    // Every kind of item, in counts that leave a remainder after whole groups (and batches of one).
    const items = Array.from({ length: 203 }, (_, k) => ({ ...base[k % base.length]!, seq: k + 1, t: k + 1 }));
    items.splice(7, 0, { seq: 0, t: 0, dir: 'event', type: 'gap', data: { stream: 'a2c', bytes: 12 } } as never);
    items.forEach((it, k) => { it.seq = k + 1; it.t = k + 1; });
    const grouped = store.createRecording({ name: 'grouped' });
    store.appendItems(grouped, items);
    const single = store.createRecording({ name: 'single' });
    for (const it of items) store.appendItems(single, [it]);
    const rows = (id: number) => store.db.prepare(`SELECT seq, t, dir, kind, method, rpc_id, reply_to, latency, session_id, size, raw, raw_bytes, parse_error, truncated FROM items WHERE recording_id = ? ORDER BY rowid`).all(id);
    const a = rows(grouped);
    expect(a).toHaveLength(items.length);
    expect(a.map((r) => (r as { seq: number }).seq)).toEqual(items.map((_, k) => k + 1));
    expect(a).toEqual(rows(single));
    expect(store.getRecording(grouped)).toMatchObject({ items: items.length, frames: store.getRecording(single)!.frames });
    store.close();
  });
});
