/**
 * End-to-end: the real binary between real peers, through real pipes, into a real SQLite file.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';
import { BIN, EXAMPLE_AGENT, PEERS, cli, run, runExampleClient, sh, spawnTap, tempDir } from '../helpers.js';
import { parseTranscript } from '../../src/transcript/format.js';
import type { Frame } from '../../src/wire/frame.js';

let cleanup = () => {};
afterEach(() => cleanup());

const ECHO = join(PEERS, 'echo-agent.mjs');

async function exportTranscript(db: string, ref = 'latest') {
  const r = await cli(['export', ref, '--db', db, '--no-redact']);
  expect(r.code, r.stderr).toBe(0);
  return parseTranscript(r.stdout.toString());
}

function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

describe('tap between the SDK example client and agent', () => {
  it('is invisible to both peers and records the whole session', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const db = join(t.dir, 'r.sqlite');
    const agentCmd = `${sh(process.execPath)} ${sh(BIN)} --db ${sh(db)} --name sdk-example -- ${sh(process.execPath)} ${sh(EXAMPLE_AGENT)}`;
    const r = await runExampleClient(agentCmd);
    expect(r.stdout.toString()).toContain('Agent completed with: end_turn');

    const list = await cli(['list', '--json', '--db', db]);
    const rows = JSON.parse(list.stdout.toString());
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ name: 'sdk-example', status: 'complete' });

    const rec = await exportTranscript(db);
    const frames = rec.items.filter((i): i is Frame => i.dir === 'c2a' || i.dir === 'a2c');
    expect(frames.map((f) => `${f.dir} ${f.kind} ${f.method}`).slice(0, 6)).toEqual([
      'c2a request initialize', 'a2c result initialize', 'c2a request session/new', 'a2c result session/new',
      'c2a request session/prompt', 'a2c notification session/update',
    ]);
    expect(frames.some((f) => f.method === 'session/request_permission' && f.kind === 'result' && f.dir === 'c2a')).toBe(true);
    const promptResult = frames.find((f) => f.kind === 'result' && f.method === 'session/prompt')!;
    expect((promptResult.json as any).result.stopReason).toBe('end_turn');
    expect(promptResult.latency).toBeGreaterThan(0);
    expect(frames.every((f) => f.kind !== 'invalid')).toBe(true);
    const types = rec.items.filter((i) => i.dir === 'event').map((i) => (i as any).type);
    expect(types[0]).toBe('spawn');
    expect(types.at(-1)).toBe('exit');
    // t is monotonic, sub-millisecond
    const ts = rec.items.map((i) => i.t);
    expect([...ts].sort((a, b) => a - b)).toEqual(ts);
    expect(ts.some((x) => x !== Math.round(x))).toBe(true);
  });
});

describe('tap forwarding', () => {
  it('forwards every byte unchanged in both directions and records each line exactly', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const db = join(t.dir, 'r.sqlite');
    const big = JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { data: 'x'.repeat(3_000_000) } });
    const input = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}\n'),
      Buffer.from('{"jsonrpc":"2.0","method":"x","params":{"t":"héllo 日本語 🎉"}}\r\n'),
      Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]),
      Buffer.from('  \n\n'),
      Buffer.from('[{"jsonrpc":"2.0","method":"batch"}]\n'),
      Buffer.from('nul\u0000byte\n'),
      Buffer.from(big + '\n'),
      Buffer.from('final line without newline'),
    ]);
    const r = await run(process.execPath, [BIN, '--db', db, '--', process.execPath, ECHO], { input });
    expect(r.code).toBe(0);
    expect(r.stdout.equals(input)).toBe(true);
    expect(r.stderr).toContain('echo-agent ready');

    const rec = await exportTranscript(db);
    const lines: Buffer[] = [];
    let start = 0;
    for (let i = input.indexOf(10); i !== -1; i = input.indexOf(10, start)) {
      lines.push(input.subarray(start, i));
      start = i + 1;
    }
    lines.push(input.subarray(start));
    for (const dir of ['c2a', 'a2c'] as const) {
      const frames = rec.items.filter((i): i is Frame => i.dir === dir);
      const bytes = frames.map((f) => (f.rawBase64 ? Buffer.from(f.rawBase64, 'base64') : Buffer.from(f.raw)));
      expect(bytes.length).toBe(lines.length);
      bytes.forEach((b, k) => expect(b.equals(lines[k]!), `${dir} line ${k}`).toBe(true));
    }
    const stderr = rec.items.filter((i) => i.dir === 'stderr').map((i) => i.raw);
    expect(stderr).toContain('echo-agent ready');
  });

  it('exits with the agent exit code, and by the agent\'s signal when it was killed', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const db = join(t.dir, 'r.sqlite');
    const seven = await run(process.execPath, [BIN, '--db', db, '--', process.execPath, ECHO], { input: '', env: { ECHO_EXIT: '7' } });
    expect(seven.code).toBe(7);
    const killed = await run(process.execPath, [BIN, '--db', db, '--', process.execPath, '-e', 'process.kill(process.pid, "SIGKILL")'], { input: '' });
    expect([killed.code, killed.signal]).toEqual([null, 'SIGKILL']);
    const list = JSON.parse((await cli(['list', '--json', '--db', db])).stdout.toString());
    expect(list.map((x: any) => [x.exitCode, x.exitSignal])).toEqual([[null, 'SIGKILL'], [7, null]]);
  });

  it('says in one line when the agent command cannot start, and exits 127', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const r = await run(process.execPath, [BIN, '--db', join(t.dir, 'r.sqlite'), '--', 'no-such-agent-cmd-xyz', '--flag'], { input: '' });
    expect(r.code).toBe(127);
    expect(r.stderr.trim().split('\n')).toEqual(['acp-inspect: cannot start agent "no-such-agent-cmd-xyz": command not found']);
    expect(r.stdout.length).toBe(0);
  });

  it('rejects a bad tap flag in one line', async () => {
    const r = await run(process.execPath, [BIN, '--bogus', '--', 'true'], { input: '' });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/unknown tap option "--bogus"/);
  });

  it('SIGTERM ends the agent and its whole process group, and finishes the recording', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const db = join(t.dir, 'r.sqlite');
    const tap = spawnTap(['--db', db, '--', process.execPath, join(PEERS, 'group-agent.mjs')]);
    let err = '';
    const grandchild = await new Promise<number>((resolve) => {
      tap.stderr!.on('data', (c: Buffer) => {
        err += c.toString();
        const m = /grandchild (\d+)/.exec(err);
        if (m) resolve(Number(m[1]));
      });
    });
    expect(alive(grandchild)).toBe(true);
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((r) => tap.on('exit', (code, signal) => r([code, signal])));
    tap.kill('SIGTERM');
    // The agent died of the SIGTERM passed on to it: the tap ends by the same signal, as the agent would have.
    expect(await exited).toEqual([null, 'SIGTERM']);
    for (let i = 0; i < 50 && alive(grandchild); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alive(grandchild)).toBe(false);
    const list = JSON.parse((await cli(['list', '--json', '--db', db])).stdout.toString());
    expect(list[0]).toMatchObject({ status: 'complete', exitSignal: 'SIGTERM' });
    const rec = await exportTranscript(db);
    expect(rec.items.some((i) => i.dir === 'event' && (i as any).type === 'signal')).toBe(true);
  });

  it('keeps forwarding with one warning when the database cannot be opened', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const aFile = join(t.dir, 'plain-file');
    writeFileSync(aFile, 'x');
    const input = Buffer.from('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}\n'.repeat(100));
    for (const db of [join(t.dir, 'a-folder-not-a-file'), join(aFile, 'sub', 'x.sqlite')]) {
      if (db.endsWith('file')) mkdirSync(db);
      const r = await run(process.execPath, [BIN, '--db', db, '--', process.execPath, ECHO], { input });
      expect(r.code).toBe(0);
      expect(r.stdout.equals(input)).toBe(true);
      const warnings = r.stderr.split('\n').filter((l) => l.startsWith('acp-inspect:'));
      expect(warnings, r.stderr).toHaveLength(1);
      expect(warnings[0]).toMatch(/not recording/);
    }
  });

  it('four taps record concurrently into one database', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const db = join(t.dir, 'shared.sqlite');
    const line = (i: number, k: number) => JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: `s${i}`, k } });
    const runs = [0, 1, 2, 3].map((i) => {
      const input = Array.from({ length: 2000 }, (_, k) => line(i, k)).join('\n') + '\n';
      // Four writers of 2,000 findings each share one database: on a loaded machine one of them can
      // wait out the others' locks for longer than the finish's default patience (6 s), which would
      // be a warning about the machine, not about concurrency.
      const env = { ACP_INSPECT_FINISH_WAIT_MS: '30000' };
      return run(process.execPath, [BIN, '--db', db, '--name', `tap${i}`, '--', process.execPath, ECHO], { input, env }).then((r) => ({ r, input }));
    });
    for (const { r, input } of await Promise.all(runs)) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.toString()).toBe(input);
      // Beside three other writers, on a loaded machine, one may wait for the lock longer than its
      // recorder's 1 s: it says so once ("recording delayed"), loses nothing, and the rows below show it.
      const said = r.stderr.split('\n').filter((l) => l.includes('acp-inspect:') && !/: recording delayed: database .* is locked by another process; forwarding continues$/.test(l));
      expect(said, `the tap said: ${said.join(' | ')}`).toEqual([]);
    }
    const list = JSON.parse((await cli(['list', '--json', '--db', db])).stdout.toString());
    expect(list).toHaveLength(4);
    for (const row of list) expect(row).toMatchObject({ frames: 4000, status: 'complete' });
  });
});
