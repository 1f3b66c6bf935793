/**
 * Captures made by other tools open wherever a transcript file does: acp-devtools exports (made by
 * that tool's own proxy and export code: recordings/foreign), a copy of Zed's ACP log and the two
 * logs `tee` takes around an agent. The converters in-process; check and import through the binary.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ROOT, cli, tempDir } from '../helpers.js';
import { parseTranscript, TranscriptError, type Recording } from '../../src/transcript/format.js';
import { teePairToLines } from '../../src/transcript/tee-pair.js';
import { checkRecording } from '../../src/check/index.js';
import { captureToTranscript, sniffCapture } from '../../src/transcript/foreign.js';
import { openCapture } from '../../src/transcript/open-capture.js';
import { readTranscriptFile } from '../../src/source.js';
import { Store } from '../../src/store/store.js';
import { isFrame, type Frame } from '../../src/wire/frame.js';
import { zedCopy } from './zed-copy.js';

const FOREIGN = join(ROOT, 'recordings', 'foreign');
const EXPORTS = ['sdk-example.acp-devtools.json', 'wire-problems.acp-devtools.json'];
const tmp = tempDir('acp-foreign-');
afterAll(() => tmp.cleanup());

interface Message { seq: number; timestamp: number; direction: string; raw: string }
interface Export { session: { name: string | null; agentCommand: string | null; startedAt: number }; messages: Message[] }

const exportOf = (name: string) => JSON.parse(readFileSync(join(FOREIGN, name), 'utf8')) as Export;
const dirOf = (m: Message) => (m.direction === 'editor-to-agent' ? 'c2a' : 'a2c');

/** The same frames in transcript form, written here without the converter. */
function plainTranscript(exp: Export): string {
  return exp.messages.map((m) => JSON.stringify({ t: m.timestamp - exp.session.startedAt, dir: dirOf(m), raw: m.raw })).join('\n') + '\n';
}

/** `check --json` findings with each seq made the frame's index among frames (the item list's seqs may differ). */
async function findings(file: string): Promise<unknown[]> {
  const r = await cli(['check', file, '--json']);
  expect(r.stderr).toBe('');
  const frameSeqs = readTranscriptFile(file).items.filter(isFrame).map((f) => f.seq);
  return r.stdout.toString().trim().split('\n').filter(Boolean).map((l) => {
    const f = JSON.parse(l) as { seq: number };
    return { ...f, seq: frameSeqs.indexOf(f.seq) + 1 };
  });
}

describe('acp-devtools exports', () => {
  it('are told from transcripts by their first bytes, indented or on one line', () => {
    for (const name of EXPORTS) expect(sniffCapture(readFileSync(join(FOREIGN, name), 'utf8').slice(0, 65536))).toBe('acp-devtools');
    const compact = readFileSync(join(FOREIGN, EXPORTS[1]!), 'utf8');
    expect(sniffCapture(`\uFEFF${compact.slice(0, 300)}`)).toBe('acp-devtools'); // a BOM, the head of a long line
    expect(sniffCapture(JSON.stringify(exportOf(EXPORTS[0]!), null, 2).replace(/\n/g, '\r\n').slice(0, 4000))).toBe('acp-devtools');
    // Its UI's download names itself acp-devtools-ui; other writers keep its keys' order.
    const ui = JSON.stringify({ ...exportOf(EXPORTS[0]!), tool: { name: 'acp-devtools-ui', version: '0.4.0' } }, null, 4);
    expect(sniffCapture(ui)).toBe('acp-devtools');
    expect(parseTranscript(captureToTranscript(ui)).header.source).toMatchObject({ format: 'acp-devtools', tool: 'acp-devtools-ui' });
    expect(sniffCapture('{"version":1,"exportedAt":1781278341787,"tool":{"name":"my-script","version":"1"},"session":{')).toBe('acp-devtools');
    // A frame that mentions acp-devtools is still what it is.
    expect(sniffCapture('{"jsonrpc":"2.0","id":1,"method":"x","params":{"version":1,"tool":{"name":"acp-devtools"}}}\n')).toBe('raw-jsonrpc');
    expect(sniffCapture('{"t":0,"dir":"c2a","raw":"{\\"version\\":1,\\"tool\\":{\\"name\\":\\"acp-devtools\\"}}"}\n')).toBe('transcript');
    expect(sniffCapture('[\r\n  {\r\n    "_direction": "outgoing",')).toBe('zed-acp-log');
    expect(sniffCapture('{\n  "name": "x"\n}\n')).toBe('json-document');
    // Every transcript in the repository stays a transcript.
    const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : e.name.endsWith('.jsonl') ? [join(d, e.name)] : []));
    for (const f of walk(join(ROOT, 'recordings'))) expect(sniffCapture(readFileSync(f, 'utf8').slice(0, 65536)), f).toBe('transcript');
  });

  it('read as their frames, byte-exact from raw, in order, with their times, directions and the session in the header', () => {
    for (const name of EXPORTS) {
      const exp = exportOf(name);
      const rec = parseTranscript(captureToTranscript(readFileSync(join(FOREIGN, name), 'utf8')));
      const frames = rec.items.filter(isFrame);
      expect(frames).toHaveLength(rec.items.length);
      expect(frames.map((f) => [f.raw, f.dir, f.t])).toEqual(exp.messages.map((m) => [m.raw, dirOf(m), m.timestamp - exp.session.startedAt]));
      expect(rec.header.startedAt).toBe(new Date(exp.session.startedAt).toISOString());
      expect(rec.header.command).toEqual(exp.session.agentCommand!.split(' '));
      expect(rec.header.source).toMatchObject({ format: 'acp-devtools', exportVersion: 1, agentCommand: exp.session.agentCommand });
      if (exp.session.name) expect(rec.header.name).toBe(exp.session.name);
    }
  });

  it('pass check with the same findings as the same frames in transcript form', async () => {
    for (const name of EXPORTS) {
      const plain = join(tmp.dir, name.replace(/\.json$/, '.jsonl'));
      writeFileSync(plain, plainTranscript(exportOf(name)));
      const [theirs, ours] = await Promise.all([findings(join(FOREIGN, name)), findings(plain)]);
      expect(theirs, name).toEqual(ours);
      if (name.startsWith('wire-problems')) expect(theirs.length).toBeGreaterThan(5);
    }
  });

  it('import keeps every frame byte-exact, with the session\'s name and command', async () => {
    await Promise.all(EXPORTS.map(async (name) => {
      const db = join(tmp.dir, `${name}.sqlite`);
      const exp = exportOf(name);
      const imp = await cli(['import', join(FOREIGN, name), '--db', db]);
      expect(imp.code, imp.stderr).toBe(0);
      const out = join(tmp.dir, `${name}.out.jsonl`);
      expect((await cli(['export', imp.stdout.toString().trim(), '--db', db, '--no-redact', '-o', out])).code).toBe(0);
      const rec = readTranscriptFile(out);
      expect(rec.items.filter(isFrame).map((f: Frame) => [f.raw, f.dir])).toEqual(exp.messages.map((m) => [m.raw, dirOf(m)]));
      expect(rec.header.command).toEqual(exp.session.agentCommand!.split(' '));
      expect(rec.header.name).toBe(exp.session.name ?? name);
    }));
  });

  it('refuse a broken export naming the file and the field, and one over the size limit in one line', () => {
    const bad = join(tmp.dir, 'bad.json');
    const exp = exportOf(EXPORTS[0]!);
    writeFileSync(bad, JSON.stringify({ ...exp, messages: [{ ...exp.messages[0], direction: 'sideways' }] }));
    expect(() => openCapture(bad)).toThrow(`${bad}: not a valid acp-devtools export: messages[0].direction must be "editor-to-agent" or "agent-to-editor"; see docs/formats.md`);
    writeFileSync(bad, JSON.stringify(exp, null, 4).slice(0, 2000));
    expect(() => openCapture(bad)).toThrow(/^.*bad\.json: an acp-devtools export must be one JSON document, and this one is not JSON \(/);
    expect(() => openCapture(join(FOREIGN, EXPORTS[0]!), 1000)).toThrow(/sdk-example\.acp-devtools\.json: an acp-devtools export is read whole, and this one is 0\.0\d\d MiB, over the 0\.001 MiB limit for such files; docs\/formats\.md shows how to convert a larger one$/);
  });
});

describe("acp-devtools' JSON log (proxy --log json)", () => {
  it('reads its message lines as frames byte-exact with their times, its own lines as events and the rest as the agent\'s stderr', () => {
    const exp = exportOf(EXPORTS[0]!);
    // As its proxy writes them to stderr: JSON.stringify of each captured message, one a line, with the agent's stderr and its status lines between.
    const file = join(tmp.dir, 'proxy-stderr.log');
    const lines = ['acp-devtools: spawned node (pid 4242)', ...exp.messages.map((m) => JSON.stringify({ seq: m.seq, timestamp: m.timestamp, direction: m.direction, kind: 'request', raw: m.raw, payload: null }))];
    lines.splice(4, 0, 'agent: thinking');
    writeFileSync(file, lines.join('\n') + '\n');
    const rec = readTranscriptFile(file);
    expect(rec.header).toMatchObject({ source: { format: 'acp-devtools-log' }, startedAt: new Date(exp.messages[0]!.timestamp).toISOString() });
    expect(rec.items.filter(isFrame).map((f) => [f.raw, f.dir, f.t])).toEqual(exp.messages.map((m) => [m.raw, dirOf(m), m.timestamp - exp.messages[0]!.timestamp]));
    expect(rec.items[0]).toMatchObject({ dir: 'event', type: 'acp-devtools', data: { message: 'spawned node (pid 4242)' } });
    expect(rec.items[4]).toMatchObject({ dir: 'stderr', raw: 'agent: thinking', t: rec.items[3]!.t });
  });
});

describe("acp-devtools' captures database", () => {
  it('imports every session as a recording, frames byte-exact, and leaves the database as it was', async () => {
    // Its tables as acp-devtools creates them (storage/sqlite.ts, schema 4), and its sessions as its proxy saves them.
    const file = join(tmp.dir, 'captures.db');
    const db = new Database(file);
    db.exec(`CREATE TABLE sessions (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, agent_command TEXT, started_at INTEGER NOT NULL, ended_at INTEGER,
      client_name TEXT, imported_at INTEGER, client_version TEXT, client_platform TEXT, agent_name TEXT, agent_version TEXT, protocol_version INTEGER,
      current_mode TEXT, current_model TEXT, agent_capabilities_json TEXT);
      CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, seq INTEGER NOT NULL,
      timestamp INTEGER NOT NULL, direction TEXT NOT NULL, kind TEXT NOT NULL, method TEXT, rpc_id TEXT, raw TEXT NOT NULL, payload_json TEXT, parse_error TEXT);`);
    for (const name of EXPORTS) {
      const exp = exportOf(name);
      const id = db.prepare('INSERT INTO sessions (name, agent_command, started_at, ended_at) VALUES (?, ?, ?, ?)').run(exp.session.name, exp.session.agentCommand, exp.session.startedAt, null).lastInsertRowid;
      const add = db.prepare('INSERT INTO messages (session_id, seq, timestamp, direction, kind, raw) VALUES (?, ?, ?, ?, ?, ?)');
      // Stored out of seq order: read back by seq.
      for (const m of [...exp.messages].reverse()) add.run(id, m.seq, m.timestamp, m.direction, 'unknown', m.raw);
    }
    db.close();
    const before = readFileSync(file);
    const into = join(tmp.dir, 'from-captures.sqlite');
    const [imp, check, asDb] = await Promise.all([cli(['import', file, '--db', into]), cli(['check', file]), cli(['list', '--db', file])]);
    expect(imp.code, imp.stderr).toBe(0);
    expect(imp.stdout.toString()).toBe('1\n2\n');
    expect(readFileSync(file).equals(before)).toBe(true);
    // Given as the database, it is named for what it is, and nothing is written into it.
    expect(asDb.stderr).toBe(`acp-inspect: database ${file} is acp-devtools' captures database, not acp-inspect's; import its sessions with acp-inspect import ${file}, or pass another --db FILE\n`);
    const other = join(tmp.dir, 'other.db');
    new Database(other).exec('CREATE TABLE t (x)');
    expect(() => Store.open(other)).toThrow(`database ${other} is not an acp-inspect database (its tables: t); pass another --db FILE`);
    const check2 = new Database(other, { readonly: true });
    expect(check2.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all()).toEqual([{ name: 't' }]);
    check2.close();
    const out = join(tmp.dir, 'from-captures.jsonl');
    expect((await cli(['export', '2', '--db', into, '--no-redact', '-o', out])).code).toBe(0);
    const rec = readTranscriptFile(out);
    expect(rec.items.filter(isFrame).map((f) => [f.raw, f.dir])).toEqual(exportOf(EXPORTS[1]!).messages.map((m) => [m.raw, dirOf(m)]));
    expect(rec.header).toMatchObject({ name: 'wire problems', source: { format: 'acp-devtools-db', sessionId: 2 } });
    // Other commands say how to read it.
    expect(check.stderr).toMatch(/captures\.db is a SQLite database, not a transcript: .*acp-inspect import .*captures\.db\n$/);
  });
});

describe("a copy of Zed's ACP log", () => {
  const sample = readTranscriptFile(join(ROOT, 'recordings', 'sdk-example.jsonl')).items.filter(isFrame);

  it('reads as the frames rebuilt, in Zed\'s order, at no invented time, and says so', () => {
    const file = join(tmp.dir, 'zed-log.json');
    writeFileSync(file, zedCopy(sample));
    const rec = readTranscriptFile(file);
    expect(rec.header.source).toEqual({ format: 'zed-acp-log', rebuilt: true, times: 'unknown' });
    expect(rec.items[0]).toMatchObject({ dir: 'event', type: 'capture-note' });
    const frames = rec.items.filter(isFrame);
    expect(frames.map((f) => [f.dir, f.json])).toEqual(sample.map((f) => [f.dir, f.json]));
    expect(new Set(rec.items.map((i) => i.t))).toEqual(new Set([0]));
  });

  it('keeps the agent\'s stderr lines newer Zeds log, and says when the copy may lack its start', () => {
    const text = JSON.stringify([
      { _direction: 'stderr', _type: 'stderr', id: null, method: 'stderr', params: 'agent: starting' },
      { _direction: 'outgoing', _type: 'notification', id: null, method: 'session/cancel', params: { sessionId: 's' } },
    ], null, 2);
    const rec = parseTranscript(captureToTranscript(text));
    expect(rec.items.map((i) => i.dir)).toEqual(['event', 'stderr', 'c2a']);
    expect(rec.items[1]).toMatchObject({ raw: 'agent: starting' });
    const full = Array.from({ length: 2000 }, () => ({ _direction: 'incoming', _type: 'notification', id: null, method: 'session/update', params: {} }));
    expect(parseTranscript(captureToTranscript(JSON.stringify(full))).items[0]).toMatchObject({ data: { message: expect.stringMatching(/keeps the last 2000 messages and this copy has 2000, so earlier ones may be missing$/) } });
  });

  it('rebuilds an error response as an error', () => {
    const text = JSON.stringify([
      { _direction: 'outgoing', _type: 'request', id: 1, method: 'session/new', params: { cwd: '/w', mcpServers: [] } },
      { _direction: 'incoming', _type: 'response', id: 1, method: 'session/new', params: { code: -32000, message: 'Authentication required' } },
    ], null, 2);
    const frames = parseTranscript(captureToTranscript(text)).items.filter(isFrame);
    expect(frames[1]!.json).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'Authentication required' } });
    expect(frames[1]!.kind).toBe('error');
  });
});

describe('two tee logs of an agent\'s stdin and stdout', () => {
  const sample = readTranscriptFile(join(ROOT, 'recordings', 'sdk-example.jsonl')).items.filter(isFrame);
  const stdin = join(tmp.dir, 'agent-in.log');
  const stdout = join(tmp.dir, 'agent-out.log');
  writeFileSync(stdin, sample.filter((f) => f.dir === 'c2a').map((f) => `${f.raw}\n`).join(''));
  writeFileSync(stdout, sample.filter((f) => f.dir === 'a2c').map((f) => `${f.raw}\n`).join(''));

  it('read as STDIN+STDOUT: every line a frame byte-exact, in an order ACP allows, the order and times said to be unknown', () => {
    const rec = readTranscriptFile(`${stdin}+${stdout}`);
    expect(rec.header.source).toEqual({ format: 'tee-pair', order: 'unknown', times: 'unknown' });
    expect(rec.items[0]).toMatchObject({ dir: 'event', type: 'capture-note', data: { order: 'unknown' } });
    const frames = rec.items.filter(isFrame);
    // This session's turn-taking is simple enough that the merge finds the wire's own order.
    expect(frames.map((f) => [f.dir, f.raw])).toEqual(sample.map((f) => [f.dir, f.raw]));
    expect(new Set(rec.items.map((i) => i.t))).toEqual(new Set([0]));
  });

  it('give the findings of the recording itself, for every recording in the repository split into its two logs', () => {
    const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : e.name.endsWith('.jsonl') ? [join(d, e.name)] : []));
    const files = walk(join(ROOT, 'recordings'));
    expect(files.length).toBeGreaterThan(20);
    const rules = (rec: Recording) => checkRecording(rec).map((f) => f.rule).sort();
    for (const file of files) {
      const frames = parseTranscript(readFileSync(file, 'utf8')).items.filter(isFrame);
      const side = (dir: string) => frames.filter((f) => f.dir === dir).map((f) => `${f.raw}\n`).join('');
      const merged = parseTranscript(teePairToLines(side('c2a'), side('a2c')).join('\n'));
      const plain = parseTranscript(frames.map((f) => JSON.stringify({ t: 0, dir: f.dir, raw: f.raw })).join('\n'));
      expect(rules(merged), file).toEqual(rules(plain));
    }
  });

  it('refuses one log alone and a pair given the other way round, saying what to do', () => {
    expect(() => openCapture(stdin)).toThrow(/agent-in\.log: a raw JSON-RPC log \(one side of the wire, as tee writes it\) does not say which way its lines went; give the agent's stdin log and its stdout log together as STDIN\.log\+STDOUT\.log/);
    expect(() => openCapture(`${stdout}+${stdin}`)).toThrow(/agent-out\.log holds the agent's messages and .*agent-in\.log the client's \(by their methods\): give the agent's stdin log first/);
  });
});

describe('errors on files that are not transcripts', () => {
  it('name the file and the line once (check, import, show, export --html)', async () => {
    const readme = join(tmp.dir, 'notes.md');
    writeFileSync(readme, '# acp-inspect\nnot a transcript\n');
    const runs = await Promise.all([['check', readme], ['import', readme, '--db', join(tmp.dir, 'e.sqlite')], ['show', readme], ['export', readme, '--html', '-o', join(tmp.dir, 'r.html')]].map((a) => cli(a)));
    for (const r of runs) {
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`acp-inspect: ${readme}: line 1: not JSON (Unexpected token '#', "# acp-inspect" is not valid JSON); each line must be a JSON object; see docs/formats.md\n`);
    }
  });

  it('say when a file is one JSON document of no known format', () => {
    const pkg = join(ROOT, 'package.json');
    expect(() => openCapture(pkg)).toThrow(`${pkg}: one JSON document, which is neither a transcript (one JSON object per line) nor a capture acp-inspect reads (an acp-devtools export, a copy of Zed's ACP log); see docs/formats.md`);
    try {
      openCapture(pkg);
    } catch (e) {
      expect(e).toBeInstanceOf(TranscriptError);
    }
  });
});
