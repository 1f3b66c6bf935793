/**
 * Every command on a recording too big to hold (issue 32), through the real binary: a 12,000-frame
 * recording of 2 KiB frames (24 MiB) with each command's V8 heap held to 24 MiB, which loading
 * the whole recording overruns (the code before streaming died of "heap out of memory" on each of
 * export, export --turn/--seq, export FILE --seq and import here). Commands that must hold a
 * recording refuse it in one line (the limit lowered with ACP_INSPECT_HOLD_MAX_ITEMS). The full
 * 1 GiB case is `npm run bench` (bench/big-recording.js). A second recording has a finding on every
 * frame (its session was never opened): `check`, `import` and `export --otlp` hold none of them (the
 * code before the findings were spooled died of "heap out of memory" on each of them here). A third
 * is 100,000 frames of real text (multi-byte and escape-heavy): check, import, check stored, slices and
 * export --otlp on it under the same heap (the check before issue 45 died of it here).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cli, stopProcess, tempDir, type RunResult } from '../helpers.js';
import { writeFloodTranscript } from '../../bench/big-recording.js';
import type { Waterfall } from '../../src/view/waterfall.js';
import type { Insights } from '../../src/view/insights.js';

const FRAMES = 12_010; // initialize, session/new, one prompt turn of 12,004 updates
const HEAP = { NODE_OPTIONS: '--max-old-space-size=24' };
const t = tempDir('acp-big-');
const file = join(t.dir, 'big.jsonl');
const db = join(t.dir, 'big.db');
let id = '';

const lines = (b: Buffer | string) => b.toString().split('\n').filter(Boolean);
const bounded = (args: string[], env: NodeJS.ProcessEnv = {}) => cli(args, { env: { ...HEAP, ...env }, timeoutMs: 60_000 });

/** A refusal: exit 2, one line on stderr naming the limit and what to do instead, no stack. */
function refused(r: RunResult, what: RegExp): void {
  expect(r.code, `${r.signal} ${r.stderr.slice(0, 300)}`).toBe(2);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(what);
  expect(r.stderr).not.toMatch(/heap|    at /);
}

beforeAll(async () => {
  writeFloodTranscript(file, FRAMES, { size: 2048 });
  const imp = await bounded(['import', '--db', db, file]);
  expect(imp.stderr).toBe(`imported ${FRAMES} items from ${file} as recording 1\n`);
  id = imp.stdout.toString().trim();
});
afterAll(() => t.cleanup());

describe('a recording larger than the heap', () => {
  it('exports whole, to a file and to stdout, line for line', async () => {
    const out = join(t.dir, 'out.jsonl');
    const r = await bounded(['export', id, '--db', db, '-o', out]);
    expect(r.stderr).toBe(`wrote ${FRAMES} items to ${out}\n`);
    const src = lines(readFileSync(file, 'utf8'));
    const got = lines(readFileSync(out, 'utf8'));
    expect(got).toHaveLength(FRAMES + 1);
    for (const i of [1, 2, 5, 6000, FRAMES]) expect(JSON.parse(got[i]!).raw).toBe(JSON.parse(src[i]!).raw);
    const turn = await bounded(['export', id, '--db', db, '--turn', '6']);
    expect(turn.code).toBe(0);
    expect(lines(turn.stdout)).toHaveLength(FRAMES + 1);
  });

  it('cuts a range from the store and from the file, with the set-up it needs', async () => {
    for (const ref of [id, file]) {
      const r = await bounded(['export', ref, '--db', db, '--seq', '6000-6999']);
      expect(r.code).toBe(0);
      const got = lines(r.stdout).map((l) => JSON.parse(l));
      expect(got[0].slice.seqs).toBe('1-5,6000-6999,12010');
      expect(got).toHaveLength(1 + 1006);
    }
  });

  it('shows and checks it, and sends it as a trace', async () => {
    const show = await bounded(['show', id, '--db', db]);
    expect(show.code).toBe(0);
    expect(lines(show.stdout)).toHaveLength(FRAMES + 1);
    expect((await bounded(['check', file])).code).toBe(0);
    let posts = 0;
    const sink = createServer((req, res) => { req.resume(); req.on('end', () => { posts++; res.writeHead(200).end(); }); });
    await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
    try {
      const otlp = await bounded(['export', id, '--db', db, '--otlp', `http://127.0.0.1:${(sink.address() as AddressInfo).port}`]);
      expect(otlp.stderr).toMatch(new RegExp(`^sent \\d+ spans \\(trace [0-9a-f]{32}\\) for ${FRAMES} items`));
      expect(posts).toBeGreaterThan(0);
    } finally {
      sink.close();
    }
  });

  it('is downloaded from serve as it is read', async () => {
    const srv = spawn(process.execPath, [BIN, 'serve', '--db', db, '--port', '0'], { env: { ...process.env, ...HEAP, ACP_INSPECT_HOLD_MAX_ITEMS: '1000' }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = new URL(await new Promise<string>((res) => srv.stdout.on('data', (d: Buffer) => { const m = /http:\/\/\S+/.exec(d.toString()); if (m) res(m[0]); })));
      const get = (path: string) => fetch(`${url.origin}${path}`, { headers: { Authorization: `Bearer ${url.searchParams.get('token')}` } });
      const whole = await get(`/api/recordings/${id}/export`);
      expect(whole.status).toBe(200);
      expect(lines(await whole.text())).toHaveLength(FRAMES + 1);
      const part = await get(`/api/recordings/${id}/fixture?seq=8000-8099`);
      expect(lines(await part.text())).toHaveLength(1 + 106);
      const html = await get(`/api/recordings/${id}/export?format=html`);
      expect(html.status).toBe(413);
      expect((await html.json()).error).toMatch(/too big for a self-contained HTML report.*fixture/);

    } finally {
      await stopProcess(srv);
    }
  });

  it('is uploaded to serve as it arrives, and its waterfall and insights made in one reading', async () => {
    // serve's own baseline (the UI's files, read at start) is near 24 MiB, so 40 here: the upload read
    // whole as text (a 25 MB string, then parsed), and the waterfall made from every item read at
    // once, overran it. (With 32, the streamed upload's heap after a collection reached 19-28 MiB
    // alone, and a run under the whole suite's load died of it.)
    const srv = spawn(process.execPath, [BIN, 'serve', '--db', db, '--port', '0'], { env: { ...process.env, NODE_OPTIONS: '--max-old-space-size=40' }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = new URL(await new Promise<string>((res) => srv.stdout.on('data', (d: Buffer) => { const m = /http:\/\/\S+/.exec(d.toString()); if (m) res(m[0]); })));
      const auth = { Authorization: `Bearer ${url.searchParams.get('token')}` };
      const get = (path: string) => fetch(`${url.origin}${path}`, { headers: auth });
      // It goes to a file beside the database as it comes, then in as `import` takes a file.
      const up = await fetch(`${url.origin}/api/import?name=uploaded`, { method: 'POST', body: readFileSync(file), headers: auth });
      expect(up.status, await up.clone().text()).toBe(201);
      expect(await up.json()).toEqual({ id: Number(id) + 1, items: FRAMES });
      expect(readdirSync(t.dir).filter((f) => f.includes('upload'))).toEqual([]);
      // The waterfall and the insights, folded in one reading a page at a time.
      const wf = await (await get(`/api/recordings/${id}/waterfall`)).json() as Waterfall;
      expect(wf.frames.seq).toHaveLength(FRAMES);
      expect(wf.spans.map((x) => `${x.type} ${x.seq}-${x.endSeq}`)).toEqual(['request 1-2', 'session 3-null', 'request 3-4', `turn 5-${FRAMES}`]);
      const ins = await (await get(`/api/recordings/${id}/insights`)).json() as Insights;
      expect(ins.frames).toBe(FRAMES);
      expect(ins.throughput.frames.reduce((a, b) => a + b, 0)).toBe(FRAMES);
      expect(ins.turns.map((x) => x.seq)).toEqual([5]);
    } finally {
      await stopProcess(srv);
    }
  });

  it('is refused in one line by the commands that must hold it', async () => {
    const limit = { ACP_INSPECT_HOLD_MAX_ITEMS: '1000' };
    refused(await bounded(['export', id, '--db', db, '--html', '-o', join(t.dir, 'r.html')], limit), /too big for a self-contained HTML report \(12,010 items; .*--turn SEQ or --seq A-B.*acp-inspect serve/);
    refused(await bounded(['replay', '--as', 'agent', id, '--db', db], limit), /recording 1 is too big for replay \(12,010 items; .*export REF --turn SEQ/);
    refused(await bounded(['diff', file, id, '--db', db], limit), /too big for the first recording of diff \(more than 1,000 items; .*--seq A-B/);
    // A part of it makes a report.
    const part = await bounded(['export', id, '--db', db, '--html', '--seq', '100-199', '-o', join(t.dir, 'part.html')], limit);
    expect(part.code).toBe(0);
    expect(part.stderr).toMatch(/^wrote 106 items/);
  });
});

describe('a recording with more findings than the heap holds', () => {
  const FINDINGS_FRAMES = 100_000;
  const flood = join(t.dir, 'findings.jsonl');
  const fdb = join(t.dir, 'findings.db');

  it('is checked, from the file and stored, in --json and the readable report, every finding in seq order', async () => {
    writeFloodTranscript(flood, FINDINGS_FRAMES, { size: 256, newSession: false });
    const json = await bounded(['check', flood, '--json']);
    expect(json.stderr).toBe('');
    expect(json.code).toBe(1);
    const got = lines(json.stdout);
    expect(got.length).toBeGreaterThan(FINDINGS_FRAMES - 10);
    let last = 0;
    for (const l of got) {
      const f = JSON.parse(l) as { seq: number; rule: string };
      expect(f.seq).toBeGreaterThan(last);
      expect(f.rule).toBe('session-unknown');
      last = f.seq;
    }
    expect(last).toBe(FINDINGS_FRAMES - 1); // the last update (the prompt's answer is to the client's request)
    // On one thread, and from the store (read there, checked by the worker), the same lines.
    const one = await bounded(['check', flood, '--json'], { ACP_INSPECT_CHECK_THREADS: '1' });
    expect(one.stdout.equals(json.stdout)).toBe(true);
    const imp = await bounded(['import', '--db', fdb, flood]);
    expect(imp.code, imp.stderr).toBe(0);
    const stored = await bounded(['check', imp.stdout.toString().trim(), '--db', fdb, '--json']);
    expect(stored.stdout.equals(json.stdout)).toBe(true);
    const text = await bounded(['check', flood]);
    expect(text.code).toBe(1);
    expect(text.stdout.toString()).toMatch(new RegExp(`^${flood.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ${FINDINGS_FRAMES} frames checked — ${got.length} errors, 0 warnings, 0 info\n`));
    expect(text.stdout.toString()).toContain(`… and ${got.length - 20} more (use --json for all)`);
    // Sent as a trace: the findings come back from the spool at their items.
    let body = 0;
    const sink = createServer((req, res) => { req.on('data', (d: Buffer) => { body += d.length; }); req.on('end', () => res.writeHead(200).end()); });
    await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
    try {
      const otlp = await bounded(['export', imp.stdout.toString().trim(), '--db', fdb, '--otlp', `http://127.0.0.1:${(sink.address() as AddressInfo).port}`]);
      expect(otlp.stderr).toMatch(new RegExp(`^sent \\d+ spans \\(trace [0-9a-f]{32}\\) for ${FINDINGS_FRAMES} items`));
      expect(body).toBeGreaterThan(0);
    } finally {
      sink.close();
    }
  });
});

describe('a recording of real text larger than the heap (issue 45)', () => {
  // Chunk text as agents stream it: 2-, 3- and 4-byte UTF-8, surrogate pairs written as escapes, and
  // `\n`, `\"`, `\\`, `\t`, `\u00e9` (bench/frames.js's `mixed`). The check of such a file held every
  // line of it in one batch for its checking thread (heap out of memory here).
  const TEXT_FRAMES = 100_000;
  const mixed = join(t.dir, 'mixed.jsonl');
  const mdb = join(t.dir, 'mixed.db');

  it('is checked, imported, checked stored, cut and sent as a trace, every text as it was', async () => {
    const n = writeFloodTranscript(mixed, TEXT_FRAMES, { size: 1024, text: 'mixed' });
    const check = await bounded(['check', mixed, '--json']);
    expect(check.stderr).toBe('');
    expect(check.code).toBe(0);
    expect(check.stdout.toString()).toBe('');
    const imp = await bounded(['import', '--db', mdb, mixed]);
    expect(imp.stderr).toBe(`imported ${n} items from ${mixed} as recording 1\n`);
    const stored = await bounded(['check', '1', '--db', mdb]);
    expect(stored.code, stored.stderr).toBe(0);
    expect(stored.stdout.toString()).toMatch(new RegExp(`^recording 1: ${n} frames checked — 0 errors, 0 warnings, 0 info`));
    // The text went in and comes out byte for byte, from the store and from the file.
    const src = lines(readFileSync(mixed, 'utf8'));
    for (const ref of ['1', mixed]) {
      const part = await bounded(['export', ref, '--db', mdb, '--seq', '50000-50009']);
      expect(part.code, part.stderr).toBe(0);
      const got = lines(part.stdout).slice(1).map((l) => JSON.parse(l) as { raw?: string });
      const raws = got.map((l) => l.raw).filter((r) => r?.includes('agent_message_chunk'));
      expect(raws).toEqual(src.slice(50000, 50010).map((l) => JSON.parse(l).raw));
      expect(raws[0]).toMatch(/✓.*日本語.*🚀.*\\u00e9.*\\ud83d\\ude00/);
    }
    let posts = 0;
    const sink = createServer((req, res) => { req.resume(); req.on('end', () => { posts++; res.writeHead(200).end(); }); });
    await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
    try {
      const otlp = await bounded(['export', '1', '--db', mdb, '--otlp', `http://127.0.0.1:${(sink.address() as AddressInfo).port}`]);
      expect(otlp.stderr).toMatch(new RegExp(`^sent \\d+ spans \\(trace [0-9a-f]{32}\\) for ${n} items`));
      expect(otlp.code).toBe(0);
      expect(posts).toBeGreaterThan(0);
    } finally {
      sink.close();
    }
  });
});
