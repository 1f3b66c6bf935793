/**
 * Notes and marks end to end with the real binary and real SQLite files: the schema migration from a
 * database the previous schema made, `note` / `note list` / `note edit` / `note rm`, notes in the
 * transcript (export → import round trip; older readers number the items the same), notes written
 * while the tap is still recording, and bad input (one line, non-zero exit).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Store } from '../../src/store/store.js';
import { MIGRATIONS } from '../../src/store/schema.js';
import { parseTranscript, serializeTranscript, TranscriptError } from '../../src/transcript/format.js';
import { PEERS, ROOT, cli, spawnTap, tempDir } from '../helpers.js';

const SAMPLE = join(ROOT, 'recordings', 'sdk-example.jsonl');
const t = tempDir('acp-notes-');
afterAll(() => t.cleanup());

/** Schema 1 exactly as it shipped (a copy: the migration chain must keep opening such files). */
const SCHEMA_1 = `
  CREATE TABLE recordings (
    id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, started_at TEXT NOT NULL, ended_at TEXT, status TEXT NOT NULL,
    incomplete INTEGER NOT NULL DEFAULT 0, incomplete_reason TEXT, command TEXT, cwd TEXT, pid INTEGER, host_pid INTEGER,
    heartbeat_at INTEGER, exit_code INTEGER, exit_signal TEXT, client_name TEXT, client_version TEXT, agent_name TEXT,
    agent_version TEXT, protocol_version INTEGER, item_count INTEGER NOT NULL DEFAULT 0, frame_count INTEGER NOT NULL DEFAULT 0,
    error_count INTEGER NOT NULL DEFAULT 0, warning_count INTEGER NOT NULL DEFAULT 0, info_count INTEGER NOT NULL DEFAULT 0,
    duration_ms REAL, header TEXT);
  CREATE TABLE items (
    recording_id INTEGER NOT NULL REFERENCES recordings(id) ON DELETE CASCADE, seq INTEGER NOT NULL, t REAL NOT NULL,
    dir TEXT NOT NULL, kind TEXT, method TEXT, rpc_id TEXT, reply_to INTEGER, latency REAL, session_id TEXT, size INTEGER,
    raw TEXT NOT NULL, raw_bytes BLOB, parse_error TEXT, truncated INTEGER);
  CREATE UNIQUE INDEX items_rec_seq ON items(recording_id, seq);
  CREATE INDEX items_rec_method ON items(recording_id, method);
  CREATE INDEX items_rec_kind ON items(recording_id, kind);
  CREATE INDEX items_rec_session ON items(recording_id, session_id);
  CREATE INDEX items_rec_reply ON items(recording_id, reply_to);
  CREATE TABLE findings (
    recording_id INTEGER NOT NULL REFERENCES recordings(id) ON DELETE CASCADE, seq INTEGER NOT NULL, severity TEXT NOT NULL,
    rule TEXT NOT NULL, message TEXT NOT NULL, spec TEXT);
  CREATE INDEX findings_rec_seq ON findings(recording_id, seq);
  CREATE INDEX findings_rec_rule ON findings(recording_id, severity, rule);
  PRAGMA user_version = 1;
`;

/** A database as the previous acp-inspect left it: schema 1 and one recording of two frames. */
function schema1Db(path: string): void {
  const db = new Database(path);
  db.exec(SCHEMA_1);
  db.prepare(`INSERT INTO recordings (name, started_at, status, item_count, frame_count) VALUES ('old', '2026-11-01T10:00:00.000Z', 'complete', 2, 2)`).run();
  const ins = db.prepare(`INSERT INTO items (recording_id, seq, t, dir, kind, method, rpc_id, reply_to, size, raw) VALUES (1, ?, ?, ?, ?, 'initialize', '0', ?, ?, ?)`);
  const req = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}';
  const res = '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}';
  ins.run(1, 1.5, 'c2a', 'request', null, req.length, req);
  ins.run(2, 9.25, 'a2c', 'result', 1, res.length, res);
  db.close();
}

const lines = (s: string) => s.trim().split('\n');
/** One line on stderr naming the problem, no stack, exit `code`. */
function oneLineError(r: { code: number | null; stderr: string }, code: number, pattern: RegExp): void {
  expect(r.code, r.stderr).toBe(code);
  expect(lines(r.stderr)).toHaveLength(1);
  expect(r.stderr).toMatch(/^acp-inspect: /);
  expect(r.stderr).toMatch(pattern);
}

describe('the notes migration', () => {
  it('a database made by the previous schema opens, gets notes, and keeps its recording byte for byte', async () => {
    const db = join(t.dir, 'schema1.sqlite');
    schema1Db(db);
    // Read-only readers (mcp, doctor) read an older schema as it is, without upgrading it.
    expect((await cli(['doctor', '--db', db])).stdout.toString()).toContain(`schema version 1 (older than this acp-inspect's ${MIGRATIONS.length}; the next command that writes upgrades it); 1 recording`);
    const ro = Store.open(db, { readonly: true });
    expect(ro.schemaVersion).toBe(1);
    expect(ro.readNotes(1)).toEqual([]);
    expect(ro.loadRecording(1).items).toHaveLength(2);
    ro.close();
    // Any command that may write upgrades it on open.
    const before = (await cli(['export', '1', '--db', db])).stdout.toString();
    expect(lines(before)).toHaveLength(3);

    const add = await cli(['note', '1', '2', 'answered', 'in', '8', 'ms', '--db', db]);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout.toString()).toBe('1\n');
    expect(add.stderr).toBe('noted #2 (← result for initialize) of recording 1 as note 1\n');
    const raw = new Database(db, { readonly: true });
    expect(raw.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    raw.close();
    const after = (await cli(['export', '1', '--db', db])).stdout.toString();
    expect(lines(after).slice(0, 3)).toEqual(lines(before));
    expect(JSON.parse(lines(after)[3]!)).toMatchObject({ t: 9.25, dir: 'note', seq: 2, text: 'answered in 8 ms' });
    // Opening again runs no migration twice.
    expect((await cli(['note', 'list', '1', '--json', '--db', db])).stdout.toString()).toContain('"text": "answered in 8 ms"');
  });

  it('a database from a newer acp-inspect is refused with the fix', async () => {
    const db = join(t.dir, 'future.sqlite');
    Store.open(db).close();
    const raw = new Database(db);
    raw.pragma('user_version = 99');
    raw.close();
    oneLineError(await cli(['note', 'list', '--db', db]), 2, /newer acp-inspect .*upgrade acp-inspect/);
  });
});

describe('acp-inspect note', () => {
  const db = join(t.dir, 'notes.sqlite');
  let id = '';
  beforeAll(async () => {
    id = (await cli(['import', SAMPLE, '--db', db])).stdout.toString().trim();
  });

  it('writes notes and marks, lists them (text and JSON), edits and deletes them', async () => {
    expect((await cli(['note', id, '8', 'the permission took long', '--db', db])).stdout.toString()).toBe('1\n');
    const mark = await cli(['note', 'latest', '#5', '--db', db]);
    expect(mark.stderr).toBe(`marked #5 (← result for session/new) of recording ${id} as note 2\n`);
    const multi = await cli(['note', id, '8', '-', '--db', db], { input: 'second thought\non two lines\n' });
    expect(multi.code, multi.stderr).toBe(0);

    const list = (await cli(['note', 'list', id, '--db', db])).stdout.toString();
    expect(list).toContain(`recording ${id}  sdk-example`);
    expect(list).toMatch(/note 2 {2}#5 {2}← result for session\/new .*\n {6}\(mark\)/);
    expect(list).toMatch(/note 1 {2}#8 {2}.*\n {6}the permission took long/);
    expect(list).toContain('      second thought\n      on two lines');
    const json = JSON.parse((await cli(['note', 'list', id, '--json', '--seq', '8', '--db', db])).stdout.toString());
    expect(json.map((n: { id: number; text: string }) => [n.id, n.text])).toEqual([[1, 'the permission took long'], [3, 'second thought\non two lines']]);
    expect(json[0]).toMatchObject({ recordingId: Number(id), seq: 8, updatedAt: null });
    expect(json[0].createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);

    const edit = await cli(['note', 'edit', id, '2', 'session', 'made', '--db', db]);
    expect(edit.stderr).toBe(`note 2 on #5 of recording ${id} changed\n`);
    expect((await cli(['note', 'list', id, '--db', db])).stdout.toString()).toMatch(/note 2 {2}#5 .*\(edited\)\n {6}session made/);

    const shown = (await cli(['show', id, '--db', db])).stdout.toString();
    expect(shown).toMatch(/\n +5 .*session\/new.*\n {17}✎ note 2: session made\n +6 /);
    expect(shown).toContain('✎ note 3: second thought ⏎ on two lines');

    expect((await cli(['note', 'rm', id, '--seq', '8', '--db', db])).stderr).toBe(`deleted 2 notes (1, 3) of recording ${id}\n`);
    expect(JSON.parse((await cli(['note', 'list', '--json', '--db', db])).stdout.toString()).map((n: { id: number }) => n.id)).toEqual([2]);
  });

  it('notes go out with export, come back with import, and go with rm', async () => {
    await cli(['note', id, '20', 'the end', '--db', db]);
    const file = join(t.dir, 'with-notes.jsonl');
    const exp = await cli(['export', id, '-o', file, '--db', db]);
    expect(exp.stderr).toBe(`wrote 20 items and 2 notes to ${file}\n`);
    const text = readFileSync(file, 'utf8');
    const tail = lines(text).slice(-2).map((l) => JSON.parse(l));
    expect(tail.map((n) => [n.dir, n.seq, n.text])).toEqual([['note', 5, 'session made'], ['note', 20, 'the end']]);
    // Items are the same lines as without notes: a reader that skips note lines numbers them the same.
    expect(lines(text).slice(0, 21)).toEqual(lines(readFileSync(SAMPLE, 'utf8')).slice(0, 21).map((l, i) => (i === 0 ? lines(text)[0]! : l)));

    const again = (await cli(['import', file, '--db', db])).stdout.toString().trim();
    const back = JSON.parse((await cli(['note', 'list', again, '--json', '--db', db])).stdout.toString());
    expect(back.map((n: { seq: number; text: string; updatedAt: string | null }) => [n.seq, n.text, !!n.updatedAt])).toEqual([[5, 'session made', true], [20, 'the end', false]]);
    expect((await cli(['show', file])).stdout.toString()).toMatch(/\n {17}✎ the end\n?$/);
    const reexported = (await cli(['export', again, '--db', db])).stdout.toString();
    expect(lines(reexported).slice(1)).toEqual(lines(text).slice(1));

    expect((await cli(['rm', again, '--db', db])).code).toBe(0);
    const s = Store.open(db);
    expect(s.db.prepare('SELECT COUNT(*) AS n FROM notes WHERE recording_id = ?').get(Number(again))).toEqual({ n: 0 });
    s.close();
  });

  it('bad input: one line naming the problem, non-zero exit, nothing written', async () => {
    oneLineError(await cli(['note', '99', '1', 'x', '--db', db]), 2, /no recording with id 99 .*acp-inspect list/);
    oneLineError(await cli(['note', id, '21', 'x', '--db', db]), 2, new RegExp(`recording ${id} has no item #21; its items are #1 to #20`));
    oneLineError(await cli(['note', id, '0', 'x', '--db', db]), 2, /"0" is not an item seq/);
    oneLineError(await cli(['note', id, 'abc', '--db', db]), 2, /"abc" is not an item seq/);
    oneLineError(await cli(['note', 'edit', id, '77', 'x', '--db', db]), 2, new RegExp(`recording ${id} has no note 77; run \`acp-inspect note list ${id}\``));
    oneLineError(await cli(['note', 'rm', id, '77', '2', '--db', db]), 2, /has no note 77/);
    oneLineError(await cli(['note', 'rm', id, '--db', db]), 2, /needs note ids, or --seq N, or --all/);
    oneLineError(await cli(['note', SAMPLE, '1', 'x', '--db', db]), 2, /notes are kept in the database.*acp-inspect import/);
    oneLineError(await cli(['note', id, '1', 'x'.repeat(100_001), '--db', db]), 2, /at most 100000 characters/);
    oneLineError(await cli(['note', 'list', '--db', join(t.dir, 'none.sqlite')]), 2, /does not exist/);
    // rm of an id that is not there deleted nothing, not even note 2.
    expect(JSON.parse((await cli(['note', 'list', id, '--json', '--db', db])).stdout.toString()).map((n: { id: number }) => n.id)).toContain(2);
  });

  it('a note line that breaks the format is named with its line', () => {
    const head = readFileSync(SAMPLE, 'utf8');
    expect(() => parseTranscript(`${head}{"t":1,"dir":"note","text":"x"}\n`)).toThrow(/line 22: a "note" line needs "seq"/);
    expect(() => parseTranscript(`${head}{"t":1,"dir":"note","seq":2,"text":5}\n`)).toThrow(TranscriptError);
    expect(() => parseTranscript(`${head}{"t":1,"dir":"note","seq":21,"text":"x"}\n`)).toThrow(/note is on item #21, but the transcript has 20 items/);
  });
});

describe('notes in transcripts', () => {
  it('every sample recording still loads, and serializes the same (no notes added)', () => {
    const files: string[] = [];
    const walk = (d: string) => {
      for (const f of readdirSync(d)) {
        const p = join(d, f);
        if (statSync(p).isDirectory()) walk(p);
        else if (f.endsWith('.jsonl')) files.push(p);
      }
    };
    walk(join(ROOT, 'recordings'));
    expect(files.length).toBeGreaterThan(30);
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      const rec = parseTranscript(text);
      expect(rec.notes, f).toBeUndefined();
      if (f.includes('/real/')) expect(serializeTranscript(rec), f).toBe(text);
    }
  });

  it('a note line in the middle takes no seq (the items around it number the same)', () => {
    const text = lines(readFileSync(SAMPLE, 'utf8'));
    const withNote = [...text.slice(0, 5), '{"t":3,"dir":"note","seq":2,"text":"mid"}', ...text.slice(5)].join('\n');
    const a = parseTranscript(text.join('\n'));
    const b = parseTranscript(withNote);
    expect(b.items.map((i) => [i.seq, i.t])).toEqual(a.items.map((i) => [i.seq, i.t]));
    expect(b.notes).toEqual([{ seq: 2, text: 'mid' }]);
  });
});

describe('notes on a recording the tap is still writing', () => {
  it('are written beside the tap without losing a frame, and the recording ends complete', async () => {
    const db = join(t.dir, 'live.sqlite');
    const tap = spawnTap(['--db', db, '--name', 'live', '--', process.execPath, join(PEERS, 'echo-agent.mjs')]);
    const send = (id: number) => tap.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'session/list', params: {} })}\n`);
    const itemsNow = (): number => {
      try {
        const s = Store.open(db, { mustExist: true });
        try { return s.listRecordings()[0]?.items ?? 0; } finally { s.close(); }
      } catch { return 0; }
    };
    let echoed = '';
    tap.stdout!.on('data', (d: Buffer) => { echoed += d.toString(); });
    try {
      send(1);
      for (let i = 0; i < 100 && itemsNow() < 3; i++) await new Promise((r) => setTimeout(r, 50));
      expect(itemsNow()).toBeGreaterThanOrEqual(3);
      const noted: Promise<unknown>[] = [];
      for (let i = 2; i <= 200; i++) {
        send(i);
        if (i % 40 === 0) noted.push(cli(['note', 'latest', '2', `note while recording ${i}`, '--db', db]));
      }
      const results = (await Promise.all(noted)) as { code: number; stderr: string }[];
      for (const r of results) expect(r.code, r.stderr).toBe(0);
      const running = JSON.parse((await cli(['list', '--json', '--db', db])).stdout.toString())[0];
      expect(running.status).toBe('running');
    } finally {
      tap.stdin!.end();
      await new Promise((r) => tap.once('close', r));
    }
    expect(lines(echoed)).toHaveLength(200);
    const rec = JSON.parse((await cli(['list', '--json', '--db', db])).stdout.toString())[0];
    expect(rec).toMatchObject({ status: 'complete', incomplete: false, frames: 400 });
    const notes = JSON.parse((await cli(['note', 'list', 'latest', '--json', '--db', db])).stdout.toString());
    expect(notes.map((n: { text: string }) => n.text).sort()).toEqual([120, 160, 200, 40, 80].map((i) => `note while recording ${i}`));
    const exported = lines((await cli(['export', 'latest', '--db', db])).stdout.toString());
    expect(exported.filter((l) => l.includes('"dir":"c2a"'))).toHaveLength(200);
    expect(exported.slice(-5).every((l) => JSON.parse(l).dir === 'note')).toBe(true);
  });
});
