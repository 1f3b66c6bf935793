/**
 * Faults of the agent and the client, through the real binary and real pipes: the agent exits
 * mid-frame, crashes, is killed, never starts; the client closes stdin early or stops reading.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { makeTmp, run, start, writeAgent, withStore, tapLines, rpc, BIN } from './helpers.js';
import type { Frame } from '../../src/wire/frame.js';

const tmp = makeTmp();
afterAll(() => tmp.cleanup());
const node = process.execPath;

describe('agent faults', () => {
  it('agent exits mid-frame: the partial line is forwarded and recorded, exit code passed on', async () => {
    const db = join(tmp.dir, 'midframe.db');
    const agent = writeAgent(tmp.dir, 'midframe', `
process.stdout.write(${JSON.stringify(rpc({ method: 'a' }))} + '\\n{"jsonrpc":"2.0","method":"cut', () => process.exit(3));
`);
    const res = await run(['--db', db, '--', node, agent]);
    expect(res.code).toBe(3);
    expect(res.stdout.toString()).toBe(`${rpc({ method: 'a' })}\n{"jsonrpc":"2.0","method":"cut`);
    const frames = withStore(db, (s) => s.readItems(s.resolveRef('latest')).filter((i) => i.dir === 'a2c') as Frame[]);
    expect(frames.map((f) => f.raw)).toEqual([rpc({ method: 'a' }), '{"jsonrpc":"2.0","method":"cut']);
    expect(frames[1]!.kind).toBe('invalid');
    expect(withStore(db, (s) => s.listRecordings()[0]!.exitCode)).toBe(3);
  });

  it('agent crashes (uncaught exception): its stderr passes through, exit 1, recording complete', async () => {
    const db = join(tmp.dir, 'crash.db');
    const agent = writeAgent(tmp.dir, 'crash', `
process.stdin.once('data', () => { throw new Error('agent exploded'); });
`);
    const res = await run(['--db', db, '--', node, agent], { input: rpc({ id: 0, method: 'initialize', params: {} }) + '\n' });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('agent exploded');
    expect(tapLines(res.stderr)).toEqual([]);
    const rec = withStore(db, (s) => s.listRecordings()[0]!);
    expect(rec.status).toBe('complete');
    expect(rec.exitCode).toBe(1);
    const stderrItems = withStore(db, (s) => s.readItems(rec.id).filter((i) => i.dir === 'stderr').map((i) => i.raw).join('\n'));
    expect(stderrItems).toContain('agent exploded');
  });

  it('agent killed by a signal: the tap ends by the same signal and records it', async () => {
    const db = join(tmp.dir, 'killed.db');
    const agent = writeAgent(tmp.dir, 'killed', `
process.stdout.write(${JSON.stringify(rpc({ method: 'a' }))} + '\\n', () => process.kill(process.pid, 'SIGKILL'));
`);
    const res = await run(['--db', db, '--', node, agent]);
    expect([res.code, res.signal]).toEqual([null, 'SIGKILL']);
    expect(res.stdout.toString()).toBe(rpc({ method: 'a' }) + '\n');
    const rec = withStore(db, (s) => s.listRecordings()[0]!);
    expect(rec.exitSignal).toBe('SIGKILL');
    expect(rec.frames).toBe(1);
  });

  it('agent never starts: exit 127 and one line naming the command', async () => {
    const db = join(tmp.dir, 'nostart.db');
    const res = await run(['--db', db, '--', 'no-such-agent-command-xyz', '--flag']);
    expect(res.code).toBe(127);
    expect(res.stdout.length).toBe(0);
    const lines = res.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^acp-inspect: .*no-such-agent-command-xyz/);
  });

  it('agent not executable: exit 127 and one line', async () => {
    const file = join(tmp.dir, 'not-exec.sh');
    writeFileSync(file, '#!/bin/sh\necho hi\n', { mode: 0o644 });
    const res = await run(['--db', join(tmp.dir, 'noexec.db'), '--', file]);
    expect(res.code).toBe(127);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('client closes stdin early: the agent sees EOF, its remaining output still arrives, exit code passed on', async () => {
    const db = join(tmp.dir, 'stdin-early.db');
    const agent = writeAgent(tmp.dir, 'drain', `
let n = 0;
process.stdin.on('data', (b) => { n += b.length; });
process.stdin.on('end', () => {
  // Keep talking after the client hung up its side.
  let i = 0;
  const tick = () => {
    if (i === 20) return process.exit(5);
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'late', params: { i: i++, n } }) + '\\n', tick);
  };
  tick();
});
`);
    const res = await run(['--db', db, '--', node, agent], { input: rpc({ id: 1, method: 'x' }) + '\n' });
    expect(res.code).toBe(5);
    const lines = res.stdout.toString().trim().split('\n');
    expect(lines).toHaveLength(20);
    expect(JSON.parse(lines[19]!).params).toEqual({ i: 19, n: rpc({ id: 1, method: 'x' }).length + 1 });
    const rec = withStore(db, (s) => s.listRecordings()[0]!);
    expect(rec.frames).toBe(21);
    expect(rec.status).toBe('complete');
  });

  it('agent closes its stdin but keeps talking while the client keeps writing: no crash, all agent output arrives', async () => {
    const db = join(tmp.dir, 'agent-closes-stdin.db');
    const agent = writeAgent(tmp.dir, 'closes-stdin', `
require('node:fs').closeSync(0);
let i = 0;
const t = setInterval(() => {
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'tick', params: { i } }) + '\\n');
  if (++i === 10) clearInterval(t);
}, 20);
`);
    const r = start(['--db', db, '--', node, agent]);
    const timer = setInterval(() => r.child.stdin!.write(rpc({ id: 1, method: 'x' }) + '\n'), 5);
    const res = await r.done;
    clearInterval(timer);
    expect(res.code).toBe(0);
    expect(res.stdout.toString().trim().split('\n')).toHaveLength(10);
    expect(tapLines(res.stderr)).toEqual([]);
    const events = withStore(db, (s) => s.readItems(s.resolveRef('latest')).filter((i) => i.dir === 'event').map((i) => (i as { type: string }).type));
    expect(events).toContain('agent-stdin-error');
    expect(withStore(db, (s) => s.listRecordings()[0]!.status)).toBe('complete');
  });

  it('client closes its end of stdout (EPIPE) while the agent keeps talking: the tap keeps recording and exits with the agent', async () => {
    const db = join(tmp.dir, 'client-closes-stdout.db');
    const agent = writeAgent(tmp.dir, 'chatty', `
let i = 0;
const t = setInterval(() => {
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'tick', params: { i } }) + '\\n');
  if (++i === 20) clearInterval(t);
}, 10);
process.stdin.resume();
`);
    const r = start(['--db', db, '--', node, agent], { readStdout: false });
    r.child.stdout!.once('data', () => r.child.stdout!.destroy());
    await new Promise((res) => setTimeout(res, 800)); // let the agent talk into the closed pipe
    r.child.stdin!.end();
    const res = await r.done;
    expect(res.code).toBe(0);
    expect(tapLines(res.stderr)).toEqual([]);
    const rec = withStore(db, (s) => s.listRecordings()[0]!);
    expect(rec.frames).toBe(20);
    expect(rec.status).toBe('complete');
  });

  it('client closes the stderr of the tap while the agent logs there: the session goes on, everything recorded', async () => {
    const db = join(tmp.dir, 'client-closes-stderr.db');
    const agent = writeAgent(tmp.dir, 'logs', `
let i = 0;
const t = setInterval(() => {
  process.stderr.write('log line ' + i + '\\n');
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'tick', params: { i } }) + '\\n');
  if (++i === 30) clearInterval(t);
}, 10);
`);
    // Before the fix the EPIPE on stderr was an uncaught error: exit 1 after the first line.
    const r = start(['--db', db, '--', node, agent], { input: '' });
    r.child.stderr!.once('data', () => r.child.stderr!.destroy());
    const res = await r.done;
    expect(res.code).toBe(0);
    expect(res.stdout.toString().trim().split('\n')).toHaveLength(30);
    const rec = withStore(db, (s) => s.listRecordings()[0]!);
    expect(rec.status).toBe('complete');
    expect(rec.frames).toBe(30);
    expect(withStore(db, (s) => s.readItems(rec.id).filter((i) => i.dir === 'stderr'))).toHaveLength(30);
  });

  it('agent exits while a slow client has not read its last output yet: all of it still arrives', async () => {
    const db = join(tmp.dir, 'slow-client.db');
    const agent = writeAgent(tmp.dir, 'burst', `
const fs = require('node:fs');
const line = JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { p: 'y'.repeat(1000) } }) + '\\n';
const b = Buffer.from(line.repeat(300));
let o = 0;
while (o < b.length) { try { o += fs.writeSync(1, b, o); } catch (e) { if (e.code !== 'EAGAIN') throw e; } }
`);
    const out = join(tmp.dir, 'slow-client.out');
    // A real pipe to a client that starts reading only after a while (longer than any grace period).
    const sh = `"${process.execPath}" "${BIN}" --db "${db}" -- "${node}" "${agent}" < /dev/null | (sleep 3; cat > "${out}")`;
    const res = await new Promise<number | null>((resolve) => spawn('sh', ['-c', sh], { stdio: 'ignore' }).on('close', resolve));
    expect(res).toBe(0);
    const line = JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { p: 'y'.repeat(1000) } }) + '\n';
    expect(readFileSync(out, 'utf8')).toBe(line.repeat(300));
    expect(withStore(db, (s) => s.listRecordings()[0]!.frames)).toBe(300);
  });

  it('client stops reading stdout: tap memory stays bounded and client→agent keeps flowing', async () => {
    const db = join(tmp.dir, 'noread.db');
    // The agent floods stdout (as fast as the pipe takes it) and acknowledges every stdin line on stderr.
    const agent = writeAgent(tmp.dir, 'flood', `
// A socket over fd 1: non-blocking writes (Node makes stdout pipes blocking on Linux).
const out = new (require('node:net').Socket)({ fd: 1, readable: false, writable: true });
const line = JSON.stringify({ jsonrpc: '2.0', method: 'flood', params: { pad: 'x'.repeat(64 * 1024) } }) + '\\n';
let written = 0;
let stop = false;
const TOTAL = 400 * 1024 * 1024;
function pump() {
  while (written < TOTAL && !stop) {
    written += line.length;
    if (!out.write(line)) { out.once('drain', pump); return; }
  }
}
pump();
let buf = '';
process.stdin.on('data', (b) => {
  buf += b;
  let i;
  while ((i = buf.indexOf('\\n')) !== -1) {
    const msg = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    process.stderr.write('ack ' + msg.id + ' written ' + written + '\\n');
  }
});
process.stdin.on('end', () => {
  stop = true;
  process.stderr.write('total ' + written + '\\n');
  out.end(() => process.exit(0));
});
`);
    const r = start(['--db', db, '--', node, agent], { readStdout: false });
    // The client never reads; still, each request reaches the agent.
    for (let id = 1; id <= 5; id++) {
      r.child.stdin!.write(rpc({ id, method: 'ping' }) + '\n');
      await r.waitStderr(`ack ${id} written`);
    }
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${r.child.pid}/status`, 'utf8'))![1]);
    const written = Number(/ack 5 written (\d+)/.exec(r.stderrSoFar())![1]);
    // The agent was held back by backpressure (it wanted 400 MB) and the tap did not buffer it.
    expect(written).toBeLessThan(64 * 1024 * 1024);
    expect(rssKb).toBeLessThan(250 * 1024);
    // Now the client reads: everything the agent wrote arrives, then the session ends normally.
    let got = 0;
    r.child.stdout!.on('data', (b: Buffer) => { got += b.length; });
    r.child.stdin!.end();
    const res = await r.done;
    expect(res.code).toBe(0);
    const total = Number(/total (\d+)/.exec(res.stderr)![1]);
    expect(got).toBe(total);
    expect(total).toBeGreaterThanOrEqual(written);
  });
});
