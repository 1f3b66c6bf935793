/**
 * Signals to the tap: SIGTERM/SIGINT/SIGHUP end the agent's whole process group (including a
 * grandchild the agent started) and finish the recording; SIGKILL leaves a consistent database whose
 * recording is marked interrupted on the next open.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { makeTmp, start, writeAgent, withStore, pidAlive, waitGone, run, rpc } from './helpers.js';
import { Store, processStartId, writerAlive } from '../../src/store/store.js';

const tmp = makeTmp();
afterAll(() => tmp.cleanup());

// Starts a grandchild that would outlive the agent, reports both pids on stderr, then echoes stdin.
const agent = writeAgent(tmp.dir, 'grandparent', `
const { spawn } = require('node:child_process');
const gc = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
process.stderr.write('pids ' + process.pid + ' ' + gc.pid + '\\n');
process.stdout.write(${JSON.stringify(rpc({ method: 'hello', params: {} }))} + '\\n');
process.stdin.pipe(process.stdout);
`);

async function pidsOf(r: ReturnType<typeof start>): Promise<{ agent: number; grandchild: number }> {
  const err = await r.waitStderr(/pids \d+ \d+\n/);
  const m = /pids (\d+) (\d+)/.exec(err)!;
  return { agent: Number(m[1]), grandchild: Number(m[2]) };
}

describe('signals to the tap', () => {
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    it(`${sig} ends the agent's whole process group and finishes the recording`, async () => {
      const db = join(tmp.dir, `${sig}.db`);
      const r = start(['--db', db, '--', process.execPath, agent]);
      const pids = await pidsOf(r);
      await r.waitStdout((b) => b.includes('"hello"'));
      r.child.stdin!.write(rpc({ id: 1, method: 'ping' }) + '\n');
      await r.waitStdout((b) => b.includes('"ping"'));
      r.child.kill(sig);
      const res = await r.done;
      await waitGone(pids.agent);
      await waitGone(pids.grandchild);
      expect(pidAlive(pids.grandchild)).toBe(false);
      expect(res.code).not.toBe(0);
      const rec = withStore(db, (s) => s.listRecordings()[0]!);
      expect(rec.status).toBe('complete');
      expect(rec.frames).toBe(3);
      const events = withStore(db, (s) => s.readItems(rec.id).filter((i) => i.dir === 'event').map((i) => (i as { type: string }).type));
      expect(events).toContain('signal');
      expect(events).toContain('exit');
    });
  }

  it('SIGTERM also ends a grandchild that ignores SIGTERM, SIGINT and SIGHUP and holds the pipes open', async () => {
    const stubborn = writeAgent(tmp.dir, 'stubborn', `
const { spawn } = require('node:child_process');
const gc = spawn(process.execPath, ['-e', "for (const s of ['SIGTERM','SIGINT','SIGHUP']) process.on(s, () => {}); setInterval(() => {}, 1000)"], { stdio: ['ignore', 'inherit', 'inherit'] });
process.stderr.write('pids ' + process.pid + ' ' + gc.pid + '\\n');
process.stdin.pipe(process.stdout);
`);
    const db = join(tmp.dir, 'stubborn.db');
    const r = start(['--db', db, '--', process.execPath, stubborn]);
    const pids = await pidsOf(r);
    await new Promise((res) => setTimeout(res, 200)); // let the grandchild install its handlers
    r.child.kill('SIGTERM');
    await r.done;
    await waitGone(pids.agent);
    await waitGone(pids.grandchild);
    expect(withStore(db, (s) => s.listRecordings()[0]!.status)).toBe('complete');
  });

  it('SIGKILL leaves a consistent database; the next open marks the recording interrupted', async () => {
    const db = join(tmp.dir, 'kill9.db');
    const r = start(['--db', db, '--', process.execPath, agent]);
    const pids = await pidsOf(r);
    for (let i = 1; i <= 50; i++) r.child.stdin!.write(rpc({ id: i, method: 'ping' }) + '\n');
    await r.waitStdout((b) => b.includes('"id":50'));
    // Let the recorder store something (it runs at low priority: wait for it), then kill the tap outright.
    for (let i = 0; i < 200; i++) {
      let stored = 0;
      try { stored = withStore(db, (s) => s.listRecordings()[0]?.items ?? 0); } catch { /* not created yet */ }
      if (stored > 0) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    // The running recording names its tap by pid and start time (a later process given the pid is not it).
    const running = withStore(db, (s) => s.runningRecordings());
    expect(running.map((x) => x.host_pid)).toEqual([r.child.pid]);
    expect(JSON.parse(running[0]!.header!).hostStart).toBe(processStartId(r.child.pid!));
    expect(writerAlive(running[0]!)).toBe(true);
    r.child.kill('SIGKILL');
    await r.done;
    // The agent lost its tap; it and its grandchild are not ours to kill any more, but clean up.
    for (const p of [pids.agent, pids.grandchild]) try { process.kill(p, 'SIGKILL'); } catch { /* gone */ }
    const integrity = withStore(db, (s) => s.db.pragma('integrity_check', { simple: true }));
    expect(integrity).toBe('ok');
    // `list` opens the database and marks recordings of dead taps.
    const list = await run(['list', '--json', '--db', db]);
    expect(list.code).toBe(0);
    const rows = JSON.parse(list.stdout.toString()) as { id: number; status: string }[];
    expect(rows[0]!.status).toBe('interrupted');
    const s = Store.open(db);
    try {
      expect(s.getRecording(rows[0]!.id)!.incomplete).toBe(true);
    } finally {
      s.close();
    }
  });
});
