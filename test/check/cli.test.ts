/**
 * `acp-inspect check` through the real binary (built dist/): exit codes, --json lines, the readable
 * report, --ignore and .acp-inspect.json, stored recordings (--db), and checkStoredRecording.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, run, tempDir } from '../helpers.js';
import { Store } from '../../src/store/store.js';
import { parseTranscript } from '../../src/transcript/format.js';
import { checkStoredRecording } from '../../src/check-run/stored.js';
import { streamTranscriptFile } from '../../src/check-run/run.js';
import { PLAYBOOKS } from './playbooks.js';
import { transcript } from './helpers.js';

const { dir, cleanup } = tempDir('acp-check-cli-');
afterAll(cleanup);
const GOLDEN = join(ROOT, 'recordings', 'golden');
const node = process.execPath;
const check = (args: string[], cwd = dir) => run(node, [BIN, 'check', ...args], { cwd });

describe('acp-inspect check', () => {
  it('prints one JSON object per finding and exits 1 when there are errors', async () => {
    const r = await check([join(GOLDEN, 'cancel-and-turns.jsonl'), '--json']);
    expect(r.code).toBe(1);
    const lines = r.stdout.toString().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.length).toBeGreaterThan(3);
    // The contract's fields in their order, then url: the protocol's page for the spec part.
    for (const l of lines) expect(Object.keys(l)).toEqual(['seq', 'severity', 'rule', 'message', 'spec', 'url']);
    for (const l of lines) expect(l.url).toMatch(/^https:\/\/agentclientprotocol\.com\/protocol\/[a-z-]+(#[a-z0-9-]+)?$/);
    expect(lines.find((l) => l.rule === 'permission-not-cancelled')).toMatchObject({ seq: 10, severity: 'error', spec: '3', url: 'https://agentclientprotocol.com/protocol/overview#message-flow' });
  });

  it('exits 0 on a recording without errors, and says so', async () => {
    const r = await check([join(GOLDEN, 'rich-sdk-2.4.jsonl')]);
    expect(r.code).toBe(0);
    expect(r.stdout.toString()).toMatch(/0 errors.*No findings/s);
  });

  it('groups the readable report by severity and rule, with frame and spec section', async () => {
    const r = await check([join(GOLDEN, 'wire-problems.jsonl')]);
    const out = r.stdout.toString();
    expect(out.indexOf('Errors:')).toBeLessThan(out.indexOf('Warnings:'));
    expect(out).toMatch(/not-json — Line is not JSON \(1 finding\)\n {4}spec: https:\/\/agentclientprotocol\.com\/protocol\/overview#communication-model\n {4}#3 {2}\[spec 4\] {2}agent wrote a line that is not JSON to stdout/);
  });

  it('exits 2 with one line for a missing file, an unknown id, a bad transcript or an unknown rule', async () => {
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"t":1,"dir":"c2a","raw":"{}"}\nnot json\n');
    for (const args of [[join(dir, 'none.jsonl')], ['42', '--db', join(dir, 'none.sqlite')], [bad], [join(GOLDEN, 'wire-problems.jsonl'), '--ignore', 'no-such-rule']]) {
      const r = await check(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^acp-inspect: /);
    }
    expect((await check([bad])).stderr).toMatch(/line 2/);
  });

  it('--ignore and .acp-inspect.json (found from the working folder upward) silence rules', async () => {
    const file = join(GOLDEN, 'sdk-example-1.9.jsonl');
    const rules = async (args: string[], cwd?: string) => (await check([file, '--json', ...args], cwd)).stdout.toString().trim().split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { rule: string }).rule);
    expect(await rules([])).toEqual(['missing-client-info', 'missing-agent-info']);
    expect(await rules(['--ignore', 'missing-client-info'])).toEqual(['missing-agent-info']);
    const project = join(dir, 'project');
    mkdirSync(join(project, 'sub', 'deeper'), { recursive: true });
    writeFileSync(join(project, '.acp-inspect.json'), JSON.stringify({ ignore: ['missing-agent-info'] }));
    expect(await rules([], join(project, 'sub', 'deeper'))).toEqual(['missing-client-info']);
    writeFileSync(join(project, '.acp-inspect.json'), '{"ignore": "all"}');
    const r = await check([file], project);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/\.acp-inspect\.json: "ignore" must be an array/);
  });

  it('checks a stored recording by id and latest, and checkStoredRecording stores its findings', async () => {
    const db = join(dir, 'rec.sqlite');
    const store = Store.open(db);
    const id = store.importRecording(parseTranscript(readFileSync(join(GOLDEN, 'compaction-terminals-cancel-request.jsonl'), 'utf8')), 'golden');
    const count = checkStoredRecording(store, id);
    const findings = store.readFindings(id);
    store.close();
    expect(findings).toHaveLength(count);
    expect(findings.map((f) => f.rule)).toContain('compaction-chunk-order');
    for (const ref of [String(id), 'latest']) {
      const r = await check([ref, '--db', db, '--json']);
      expect(r.code).toBe(1);
      expect(r.stdout.toString().trim().split('\n').map((l) => (JSON.parse(l) as { rule: string }).rule)).toEqual(findings.map((f) => f.rule));
    }
  });

  it('--rules lists every rule with severity and spec section', async () => {
    const r = await check(['--rules']);
    expect(r.code).toBe(0);
    expect(r.stdout.toString().trim().split('\n')).toHaveLength(PLAYBOOKS.length);
    expect(r.stdout.toString()).toMatch(/set-mode-unadvertised\s+error\s+4\.4 rule 8/);
  });
});

describe('streaming a transcript file in chunks', () => {
  it('gives the same items and seq numbers as parsing the whole file, across many chunks', () => {
    const steps = PLAYBOOKS.flatMap((p) => p.good).filter((s) => s[0] !== 'event');
    const many = Array.from({ length: 40 }, () => steps).flat();
    const text = transcript(many).replace(/\n/g, (m, i: number) => (i % 97 === 0 ? '\n\n' : m)); // blank lines too
    const file = join(dir, 'big.jsonl');
    writeFileSync(file, text);
    expect(text.length).toBeGreaterThan(3 * 256 * 1024);
    const whole = parseTranscript(text).items.map((i) => [i.seq, i.dir, 'raw' in i ? i.raw : '']);
    const streamed = [...streamTranscriptFile(file)].map((i) => [i.seq, i.dir, 'raw' in i ? i.raw : '']);
    expect(streamed).toEqual(whole);
  });

  it('reports the right line number for a bad line in a later chunk', () => {
    const good = transcript(Array.from({ length: 3000 }, () => ['c2a', { jsonrpc: '2.0', method: '_x', params: { pad: 'p'.repeat(200) } }] as ['c2a', unknown]));
    const file = join(dir, 'bad-late.jsonl');
    writeFileSync(file, good + '{"dir": 5}\n');
    const lines = good.split('\n').length; // the bad line's number
    expect(() => [...streamTranscriptFile(file)]).toThrow(new RegExp(`line ${lines}:`));
  });
});
