/**
 * A fixture from a slice (`export --turn SEQ`, `export --seq A-B`): what a slice holds, and that the
 * slices of every recording of real third-party peers (recordings/real/) replay green with the real
 * 2.4.0 SDK client, both through `replay --as agent` (the binary) and in-process through
 * `mockAgent({ fixture })` with `assertAllUsed()`. A slice of a turn of the zed example client also
 * drives the SDK 1.9.0 example agent to an equivalent exchange (`replay --as client`).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mockAgent } from '../../src/index.js';
import { checkRecording } from '../../src/check/index.js';
import { parseTranscript, serializeTranscript, type Recording } from '../../src/transcript/format.js';
import { compactSeqs, parseSeqRange, sliceRecording, SliceError } from '../../src/transcript/slice.js';
import type { Frame } from '../../src/wire/frame.js';
import { BIN, EXAMPLE_AGENT, ROOT, cli, run, tempDir } from '../helpers.js';

const REAL = join(ROOT, 'recordings', 'real');
// Not the client probe's record of a client that never answered a request ($/cancel_request for a
// pending permission): its slice rightly warns that a replaying peer would wait for that answer.
const NEVER_ANSWERED = new Set(['probe-client-sdk-example-client-cancel-request.jsonl']);
const files = readdirSync(REAL).filter((f) => f.endsWith('.jsonl') && !NEVER_ANSWERED.has(f)).sort();
const CLIENT = join(ROOT, 'test', 'replay', 'peers', 'fixture-client.mjs');
const t = tempDir('acp-slice-');
afterAll(() => t.cleanup());

const load = (name: string): Recording => parseTranscript(readFileSync(join(REAL, `${name}.jsonl`), 'utf8'));
const promptSeqs = (rec: Recording) => rec.items.filter((i) => (i as Frame).kind === 'request' && (i as Frame).method === 'session/prompt' && i.dir === 'c2a').map((i) => i.seq);
/** What the slice holds, as `dir method kind` per frame. */
const shape = (rec: Recording) => rec.items.map((i) => (i.dir === 'c2a' || i.dir === 'a2c' ? `${i.dir} ${(i as Frame).method} ${(i as Frame).kind}` : i.dir === 'event' ? `event ${i.type}` : 'stderr'));

describe('what a slice holds', () => {
  it('a turn: initialize, authenticate, the session, the mode set before it, the turn; any seq of the turn names it', () => {
    const rec = load('codex-acp-cancelled-turn');
    const [prompt] = promptSeqs(rec);
    const s = sliceRecording(rec, { turn: prompt! });
    expect(sliceRecording(rec, { turn: prompt! + 3 }).seqs).toEqual(s.seqs);
    const frames = shape(s.recording).filter((x) => x.startsWith('c2a') || x.startsWith('a2c'));
    expect(frames.slice(0, 9)).toEqual([
      'c2a initialize request', 'a2c initialize result', 'c2a authenticate request', 'a2c authenticate result',
      'c2a session/new request', 'a2c session/new result', 'c2a session/set_mode request', 'a2c session/set_mode result',
      'a2c session/update notification',
    ]);
    expect(frames.at(-1)).toBe('a2c session/prompt result');
    expect(frames).toContain('c2a session/cancel notification');
    expect(frames).not.toContain('c2a session/list request');
    expect(frames).not.toContain('c2a session/close request');
    // Renumbered from 1; the prompt's response answers the prompt's new seq.
    expect(s.recording.items.map((i) => i.seq)).toEqual(s.recording.items.map((_, i) => i + 1));
    const last = s.recording.items.at(-1) as Frame;
    expect((s.recording.items[last.replyTo! - 1] as Frame).method).toBe('session/prompt');
    expect(s.recording.header).toMatchObject({ name: `codex-acp-cancelled-turn turn #${prompt}`, slice: { from: 'codex-acp-cancelled-turn', turn: prompt, seqs: compactSeqs(s.seqs) } });
    expect(s.recording.header.exitCode).toBeUndefined();
    expect(s.warnings).toEqual([]);
  });

  it('a turn on a loaded session keeps the load with the history the agent streamed', () => {
    const rec = load('codex-acp-load-session');
    const s = sliceRecording(rec, { turn: promptSeqs(rec)[0]! });
    const frames = shape(s.recording);
    const load_ = frames.indexOf('c2a session/load request');
    const loaded = frames.indexOf('a2c session/load result');
    expect(load_).toBeGreaterThan(0);
    expect(frames.slice(load_ + 1, loaded).filter((x) => x === 'a2c session/update notification').length).toBeGreaterThan(0);
    expect(frames).not.toContain('c2a session/list request');
  });

  it('a range with a forked session brings the set-up of the session it was forked from', () => {
    const rec = load('claude-agent-acp-resume-fork');
    const fork = rec.items.find((i) => (i as Frame).method === 'session/fork' && (i as Frame).kind === 'result')!;
    const s = sliceRecording(rec, { from: fork.seq, to: fork.seq });
    expect(shape(s.recording).filter((x) => !x.startsWith('event'))).toEqual([
      'c2a initialize request', 'a2c initialize result', 'c2a session/resume request', 'a2c session/resume result',
      'a2c session/update notification', 'c2a session/fork request', 'a2c session/fork result',
    ]);
  });

  it('a range that starts inside a turn keeps the turn\'s prompt and its answer', () => {
    const rec = load('claude-code-acp-tools');
    const prompt = promptSeqs(rec)[0]!;
    const s = sliceRecording(rec, { from: prompt + 3, to: prompt + 5 });
    expect(s.seqs).toContain(prompt);
    expect(shape(s.recording).at(-1)).toBe('a2c session/prompt result');
    // every request kept has its answer, every answer its request
    const kept = new Set(s.recording.items.map((i) => i.seq));
    for (const i of s.recording.items as Frame[]) if (i.replyTo !== undefined) expect(kept.has(i.replyTo)).toBe(true);
    const requests = (s.recording.items as Frame[]).filter((f) => f.kind === 'request');
    for (const r of requests) expect((s.recording.items as Frame[]).some((f) => f.replyTo === r.seq), `#${r.seq} ${r.method}`).toBe(true);
  });

  it('a range that updates a tool call keeps its announcement; one that uses a terminal keeps its creation', () => {
    const rec = load('claude-code-acp-tools');
    const frames = rec.items as Frame[];
    const output = frames.find((f) => f.method === 'terminal/output' && f.kind === 'request')!;
    const s = sliceRecording(rec, { from: output.seq, to: output.seq + 1 });
    const kept = s.seqs.map((q) => frames[q - 1]!);
    expect(kept.some((f) => f.method === 'terminal/create' && f.kind === 'request')).toBe(true);
    expect(kept.some((f) => f.method === 'terminal/create' && f.kind === 'result')).toBe(true);
    const upd = frames.find((f) => /"tool_call_update"/.test(f.raw ?? '') && f.seq > output.seq)!;
    const id = /"toolCallId":"([^"]+)"/.exec(upd.raw)![1]!;
    const t2 = sliceRecording(rec, { from: upd.seq, to: upd.seq });
    expect(t2.seqs.map((q) => frames[q - 1]!).some((f) => (f.raw ?? '').includes('"sessionUpdate":"tool_call"') && f.raw.includes(id))).toBe(true);
  });

  it('notes on kept items come along, renumbered; the slice serializes and parses back the same', () => {
    const rec = load('sdk-0.13-client-sdk-0.26-agent');
    const prompt = promptSeqs(rec)[0]!;
    rec.notes = [{ seq: 2, text: 'init' }, { seq: prompt, text: 'the turn' }, { seq: rec.items.length, text: 'exit, not in the slice' }];
    const s = sliceRecording(rec, { turn: prompt });
    const newPrompt = s.seqs.indexOf(prompt) + 1;
    expect(s.recording.notes).toEqual([{ seq: s.seqs.indexOf(2) + 1, text: 'init' }, { seq: newPrompt, text: 'the turn' }]);
    const text = serializeTranscript(s.recording);
    expect(serializeTranscript(parseTranscript(text))).toBe(text);
  });

  it('warns about a request the recording never answered', () => {
    const rec = load('sdk-0.13-client-sdk-0.26-agent');
    const prompt = promptSeqs(rec)[0]!;
    const cut: Recording = { header: rec.header, items: rec.items.filter((i) => (i as Frame).replyTo !== prompt) };
    expect(sliceRecording(cut, { turn: prompt }).warnings).toEqual([expect.stringMatching(/the client's session\/prompt request #\d+ was never answered/)]);
  });

  it('bad specs are one-line SliceErrors naming the fix', () => {
    const rec = load('codex-acp-auth-required');
    const n = rec.items.length;
    expect(() => sliceRecording(rec, { turn: 3 })).toThrow(/item #3 is not part of a prompt turn; this recording has no prompt turns; cut a range with --seq A-B instead/);
    expect(() => sliceRecording(rec, { turn: n + 1 })).toThrow(new RegExp(`item #${n + 1} is out of range: the recording has items #1 to #${n}`));
    expect(() => sliceRecording(rec, { from: n + 1, to: n + 5 })).toThrow(SliceError);
    expect(sliceRecording(rec, { from: 2, to: n + 5 }).warnings).toEqual([`the recording ends at item #${n}; cut #2-${n}`]);
    expect(() => parseSeqRange('9-3')).toThrow(/ends before it starts; write the smaller number first \(3-9\)/);
    expect(() => parseSeqRange('0-3')).toThrow(/starts at item 1 or later/);
    expect(() => parseSeqRange('a-b')).toThrow(/is not a range of items; write it as A-B/);
    expect(parseSeqRange('#4..#7')).toEqual({ from: 4, to: 7 });
    expect(parseSeqRange('5')).toEqual({ from: 5, to: 5 });
    expect(compactSeqs([1, 2, 3, 5, 7, 8])).toBe('1-3,5,7-8');
  });
});

/** The slices a user would cut from a recording: each turn, the middle third, everything. */
function slicesOf(file: string): string[][] {
  const rec = parseTranscript(readFileSync(join(REAL, file), 'utf8'));
  const n = rec.items.length;
  return [
    ...promptSeqs(rec).map((s) => ['--turn', String(s)]),
    ['--seq', `${Math.floor(n / 3) + 1}-${Math.floor((2 * n) / 3) + 1}`],
    ['--seq', `1-${n}`],
  ];
}

type DriveReport = { sent: number; answered: number; received: number; expected: number; errors: { method: string; message: string }[] };

describe('slices of the real-peer recordings replay green with the real SDK client', () => {
  for (const file of files) {
    it(file, async () => {
      const { drive } = (await import('./peers/fixture-client.mjs')) as { drive: (text: string, ends: unknown) => Promise<DriveReport> };
      const rules = (r: Recording) => new Set(checkRecording(r).filter((f) => f.severity !== 'info').map((f) => f.rule));
      const before = rules(parseTranscript(readFileSync(join(REAL, file), 'utf8')));
      for (const spec of slicesOf(file)) {
        const what = `${file} ${spec.join(' ')}`;
        const out = join(t.dir, `${file}-${spec.join('')}.jsonl`);
        const exp = await cli(['export', join(REAL, file), ...spec, '-o', out]);
        expect(exp.code, `${what}: ${exp.stderr}`).toBe(0);
        expect(exp.stderr, what).toMatch(/^wrote \d+ items to /);
        const fixture = readFileSync(out, 'utf8');
        // Self-consistent: the checker finds nothing in the slice it did not find in the recording.
        expect([...rules(parseTranscript(fixture))].filter((x) => !before.has(x)), what).toEqual([]);

        // The binary: replay --as agent serves the SDK client through the whole slice.
        const r = await run(process.execPath, [CLIENT, out, '--', process.execPath, BIN, 'replay', '--as', 'agent', out], { timeoutMs: 40_000 });
        expect(r.code, `${what}: ${r.stderr}`).toBe(0);
        expect(r.stderr, what).toMatch(/replay: done: \d+ matched \(0 with differences\), 0 unmatched; every recorded client frame was used\n/);
        expect(r.stderr, what).not.toContain('not sent');
        const report = JSON.parse(r.stdout.toString().trim()) as DriveReport;
        expect(report.received, what).toBe(report.expected);

        // In-process: mockAgent({ fixture }) with the same client, and assertAllUsed().
        const mock = await mockAgent({ fixture: out });
        const inProc = await drive(fixture, { writable: mock.writable, readable: mock.readable });
        expect(inProc.received, what).toBe(inProc.expected);
        expect(() => mock.assertAllUsed(), what).not.toThrow();
        const summary = await mock.close();
        expect(summary, what).toMatchObject({ unmatched: 0, changed: 0, unused: [], unsent: 0 });
      }
    });
  }
});

describe('the green check can fail', () => {
  it('a client whose prompt differs from the slice\'s is unmatched and named by assertAllUsed()', async () => {
    const { drive } = (await import('./peers/fixture-client.mjs')) as { drive: (text: string, ends: unknown, o?: unknown) => Promise<DriveReport> };
    const out = join(t.dir, 'changed.jsonl');
    const rec = load('sdk-0.17-client-sdk-0.14-agent');
    const text = serializeTranscript(sliceRecording(rec, { turn: promptSeqs(rec)[0]! }).recording);
    writeFileSync(out, text);
    const mock = await mockAgent({ fixture: out });
    const changed = text.replace(/(session\/prompt[^\n]*?\\"text\\":\\")/, '$1changed ');
    expect(changed).not.toBe(text);
    const report = await drive(changed, { writable: mock.writable, readable: mock.readable }, { timeoutMs: 1500 }).catch((e: Error) => e);
    expect(report).toBeInstanceOf(Error);
    expect(() => mock.assertAllUsed()).toThrow(/2 recorded client frame\(s\) unused, 1 live frame\(s\) unmatched[\s\S]*params.prompt\[0\].text: recorded "Hello, agent!", live "changed Hello, agent!"/);
    await mock.close();
  });
});

describe('a turn turned into a regression test', () => {
  it('the zed example client\'s turn drives the SDK 1.9.0 example agent to an equivalent exchange (replay --as client)', async () => {
    const out = join(t.dir, 'zed-turn.jsonl');
    const rec = load('zed-acp-0.4.5-examples');
    expect((await cli(['export', join(REAL, 'zed-acp-0.4.5-examples.jsonl'), '--turn', String(promptSeqs(rec)[0]), '-o', out])).code).toBe(0);
    const r = await cli(['replay', '--as', 'client', out, '--cwd', t.dir, '--', process.execPath, EXAMPLE_AGENT], { timeoutMs: 40_000 });
    expect(r.stdout.toString()).toMatch(/replay: equivalent: \d+ agent frames matched; 0 changed, 0 missing, 0 extra/);
    expect(r.code).toBe(0);
  });
});

describe('export --turn redacts like export', () => {
  it('a secret in the session set-up is <redacted> unless --no-redact', async () => {
    const file = join(t.dir, 'secret.jsonl');
    const rpc = (dir: string, m: unknown) => JSON.stringify({ t: 1, dir, raw: JSON.stringify(m) });
    writeFileSync(file, [
      rpc('c2a', { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } }),
      rpc('a2c', { jsonrpc: '2.0', id: 0, result: { protocolVersion: 1 } }),
      rpc('c2a', { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/p', mcpServers: [{ name: 'db', command: 'db-mcp', args: [], env: [{ name: 'DB_PASSWORD', value: 'hunter2' }] }] } }),
      rpc('a2c', { jsonrpc: '2.0', id: 1, result: { sessionId: 's' } }),
      rpc('c2a', { jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: 's', prompt: [{ type: 'text', text: 'hi' }] } }),
      rpc('a2c', { jsonrpc: '2.0', id: 2, result: { stopReason: 'end_turn' } }),
    ].join('\n') + '\n');
    const redacted = (await cli(['export', file, '--turn', '5'])).stdout.toString();
    expect(redacted).toContain('DB_PASSWORD');
    expect(redacted).not.toContain('hunter2');
    expect(redacted).toContain('<redacted>');
    expect((await cli(['export', file, '--turn', '5', '--no-redact'])).stdout.toString()).toContain('hunter2');
  });
});

describe('export --turn/--seq with bad input', () => {
  it('one line naming the problem and the fix, exit 2, no file written', async () => {
    const db = join(t.dir, 'bad.sqlite');
    const id = (await cli(['import', join(REAL, 'codex-acp-tools.jsonl'), '--db', db])).stdout.toString().trim();
    const out = join(t.dir, 'never.jsonl');
    const cases: [string[], RegExp][] = [
      [['export', '42', '--turn', '8', '--db', db], /^acp-inspect: no recording with id 42 in .*; run `acp-inspect list --db .*` to see the ids\n$/],
      [['export', id, '--turn', '999', '--db', db, '-o', out], /^acp-inspect: item #999 is out of range: the recording has items #1 to #26; its turns start at #8\n$/],
      [['export', id, '--turn', '3', '--db', db, '-o', out], /^acp-inspect: item #3 is not part of a prompt turn; its turns start at #8\n$/],
      [['export', id, '--seq', '30-40', '--db', db, '-o', out], /^acp-inspect: the range 30-40 is out of range: the recording has items #1 to #26\n$/],
      [['export', id, '--seq', '9-2', '--db', db, '-o', out], /^acp-inspect: the range 9-2 ends before it starts; write the smaller number first \(2-9\)\n$/],
      [['export', id, '--seq', 'turn', '--db', db, '-o', out], /^acp-inspect: "turn" is not a range of items; write it as A-B, like 12-40/],
      [['export', id, '--turn', 'x', '--db', db], /^acp-inspect: --turn must be a whole number/],
      [['export', id, '--turn', '8', '--seq', '1-3', '--db', db], /^acp-inspect: give --turn or --seq, not both\n$/],
      [['export', join(t.dir, 'missing.jsonl'), '--turn', '8'], /^acp-inspect: .*missing\.jsonl does not exist; check the path\n$/],
    ];
    for (const [args, want] of cases) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(want);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
    expect(() => readFileSync(out)).toThrow();
  });
});
