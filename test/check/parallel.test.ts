/**
 * `acp-inspect check` over two threads (the reader hands batches to a checking worker) must report
 * exactly what the one-thread fold reports: the real binary with ACP_INSPECT_CHECK_THREADS=2 against
 * the in-process fold, on the golden and real-peer recordings, on a transcript of several reads
 * made of every line shape the format allows, and on that transcript stored in SQLite.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, run, tempDir } from '../helpers.js';
import { parseTranscript } from '../../src/transcript/format.js';
import { checkStream, formatReport, streamTranscriptFile } from '../../src/check-run/run.js';
import type { CheckRun } from '../../src/check/fold.js';
import { Store } from '../../src/store/store.js';
import { specUrl } from '../../src/spec/doc-links.js';

const { dir, cleanup } = tempDir('acp-check-parallel-');
afterAll(cleanup);
const node = process.execPath;
const twoThreads = (args: string[]) => run(node, [BIN, 'check', ...args], { cwd: dir, env: { ACP_INSPECT_CHECK_THREADS: '2' }, timeoutMs: 60_000 });
const jsonLines = (r: CheckRun) => r.findings.map((f) => JSON.stringify({ seq: f.seq, severity: f.severity, rule: f.rule, message: f.message, spec: f.spec, url: specUrl(f.spec) }) + '\n').join('');
const exitOf = (r: CheckRun) => (r.findings.some((f) => f.severity === 'error') ? 1 : 0);

const RECORDINGS = ['golden', 'real'].flatMap((d) =>
  readdirSync(join(ROOT, 'recordings', d)).filter((f) => f.endsWith('.jsonl')).map((f) => join(ROOT, 'recordings', d, f)));

/** Every line shape: frames with non-ASCII, lone surrogates, rawBase64, truncated, "frame", stderr, events, unknown dirs, blank and CRLF lines. */
function mixedTranscript(minBytes: number): { text: string; lines: number } {
  const out = ['{"acpInspect":"recording","version":1,"name":"mixed"}'];
  const recs = RECORDINGS.map((f) => readFileSync(f, 'utf8').split('\n').filter((l) => l.trim() && !l.startsWith('{"acpInspect"')));
  const pad = 'x'.repeat(900);
  let bytes = 0;
  for (let round = 0; bytes < minBytes; round++) {
    for (const lines of recs) for (const l of lines) out.push(l);
    const odd = [
      JSON.stringify({ t: 1, dir: 'a2c', raw: JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `héllo ✓ 🎉 ${round} ${pad}` } } } }) }),
      `{"t":2,"dir":"a2c","raw":"{\\"jsonrpc\\":\\"2.0\\",\\"method\\":\\"_x/lone\\",\\"params\\":{\\"s\\":\\"\\ud800\\"}}"}`,
      JSON.stringify({ t: 3, dir: 'a2c', raw: '{"jsonrpc":"2.0","method":"_x/bad","params":{"s":"\ufffd"}}', rawBase64: Buffer.concat([Buffer.from('{"jsonrpc":"2.0","method":"_x/bad","params":{"s":"'), Buffer.from([0xff]), Buffer.from('"}}')]).toString('base64') }),
      JSON.stringify({ t: 4, dir: 'c2a', raw: '{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{"sessionId":"s","prom', truncated: true, size: 4000 }),
      JSON.stringify({ dir: 'c2a', frame: { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 's' } } }),
      JSON.stringify({ t: 5, dir: 'c2a', raw: '{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}', size: 70 }),
      JSON.stringify({ t: 6, dir: 'stderr', raw: `log ${round} ${pad}` }),
      JSON.stringify({ t: 7, dir: 'stderr', raw: 42 }),
      JSON.stringify({ t: 8, dir: 'stderr', raw: 'Fehler: Datei nicht gefunden – ü' }),
      JSON.stringify({ t: 9, dir: 'event', type: 'gap', data: { bytes: 10 } }),
      JSON.stringify({ t: 10, dir: 'future-kind', raw: 'skipped, keeps its seq' }),
      JSON.stringify({ t: 11, dir: 'a2c', raw: 'not json at all' }),
      JSON.stringify({ t: 12, dir: 'a2c', raw: '' }),
      JSON.stringify({ t: 13, dir: 'a2c', raw: '[{"jsonrpc":"2.0","method":"x"}]' }),
      '',
      '   ',
      JSON.stringify({ t: 14, dir: 'c2a', raw: '{"jsonrpc":"2.0","id":"r","method":"session/new","params":{"cwd":"relative","mcpServers":[]}}' }) + '\r',
      JSON.stringify({ dir: 'a2c', raw: '{"jsonrpc":"2.0","id":"r","result":{"sessionId":"s2"}}' }),
    ];
    for (const l of odd) out.push(l);
    bytes = out.reduce((n, l) => n + l.length + 1, 0);
  }
  return { text: out.join('\n') + '\n', lines: out.length };
}

describe('check over two threads', () => {
  it('reports the same findings and exit status as one thread on the golden recordings and a real peer of each kind', async () => {
    // Every recording's lines are also in the mixed transcript below; one process each for these.
    const some = RECORDINGS.filter((f) => f.includes('/golden/') || /\/(claude-agent-acp-tools-cancel|claude-code-acp-tools|codex-acp-cancelled-turn)\.jsonl$/.test(f));
    expect(some.length).toBe(RECORDINGS.filter((f) => f.includes('/golden/')).length + 3);
    const results: Array<{ f: string; r: Awaited<ReturnType<typeof twoThreads>> }> = [];
    for (let i = 0; i < some.length; i += 4) {
      results.push(...(await Promise.all(some.slice(i, i + 4).map(async (f) => ({ f, r: await twoThreads([f, '--json']) })))));
    }
    for (const { f, r } of results) {
      const one = checkStream(streamTranscriptFile(f), []);
      expect(r.stderr, f).toBe('');
      expect(r.stdout.toString(), f).toBe(jsonLines(one));
      expect(r.code, f).toBe(exitOf(one));
    }
  });

  it('reports the same on a transcript of many reads with every line shape, in --json and in the readable report', async () => {
    const { text } = mixedTranscript(3 * 1024 * 1024);
    const file = join(dir, 'mixed.jsonl');
    writeFileSync(file, text);
    const one = checkStream(streamTranscriptFile(file), []);
    // The file reader gives what the whole-text parser gives.
    const whole = checkStream(parseTranscript(text).items, []);
    expect(jsonLines(one)).toBe(jsonLines(whole));
    expect(one.findings.length).toBeGreaterThan(1000);
    expect(new Set(one.findings.map((f) => f.rule)).size).toBeGreaterThan(10);
    const [json, human, ignored] = await Promise.all([twoThreads([file, '--json']), twoThreads([file]), twoThreads([file, '--json', '--ignore', 'not-json', 'invalid-utf8'])]);
    expect(json.stdout.toString()).toBe(jsonLines(one));
    expect(json.code).toBe(exitOf(one));
    expect(human.stdout.toString()).toBe(formatReport(one, file));
    const oneIgnoring = checkStream(streamTranscriptFile(file), ['not-json', 'invalid-utf8']);
    expect(oneIgnoring.findings.length).toBeLessThan(one.findings.length);
    expect(ignored.stdout.toString()).toBe(jsonLines(oneIgnoring));
  });

  it('reports the same for a stored recording (rows read here, checked in the worker) as the one-thread fold over the store', async () => {
    const { text } = mixedTranscript(2 * 1024 * 1024);
    const file = join(dir, 'to-store.jsonl');
    writeFileSync(file, text);
    const db = join(dir, 'store.sqlite');
    const imported = await run(node, [BIN, 'import', '--db', db, file], { cwd: dir, timeoutMs: 60_000 });
    expect(imported.code, imported.stderr).toBe(0);
    const store = Store.open(db, { mustExist: true });
    let one: CheckRun;
    let id: number;
    try {
      id = store.resolveRef('latest');
      expect(store.getRecording(id)!.items).toBeGreaterThan(3000);
      // The rows include blobs (invalid UTF-8), non-ASCII texts, truncated frames, stderr and events.
      expect(store.db.prepare('SELECT count(*) FROM items WHERE recording_id = ? AND raw_bytes IS NOT NULL').pluck().get(id)).toBeGreaterThan(0);
      one = checkStream(store.iterateItems(id), []);
    } finally {
      store.close();
    }
    expect(one.findings.length).toBeGreaterThan(500);
    const [json, human] = await Promise.all([twoThreads(['latest', '--db', db, '--json']), twoThreads(['latest', '--db', db])]);
    expect(json.stderr).toBe('');
    expect(json.stdout.toString()).toBe(jsonLines(one));
    expect(json.code).toBe(exitOf(one));
    // `latest` is named by its id.
    expect(human.stdout.toString()).toBe(formatReport(one, `recording ${id}`));
  });

  it('stops with one line naming the file and line for a bad line in a later read', async () => {
    const { text, lines } = mixedTranscript(3 * 1024 * 1024);
    const file = join(dir, 'bad-late.jsonl');
    writeFileSync(file, text + '{"t":1,"dir":5}\n');
    const r = await twoThreads([file, '--json']);
    expect(r.code).toBe(2);
    expect(r.stdout.toString()).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(new RegExp(`^acp-inspect: .*bad-late\\.jsonl: line ${lines + 1}: "dir" must be`));
  });
});
