/**
 * A flood while another process holds the database's write lock. The recorder cannot write, so it
 * takes nothing more into memory: the backlog waits in its spill file and the forwarder's overflow
 * file, and is recorded in order once the lock goes away. Forwarding never waits for any of it.
 * If the lock outlasts the session, the tap still exits (with the agent's exit code) and says what
 * was not recorded.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PEERS } from '../helpers.js';
import { expectedFlood } from '../peers/flood-agent.mjs';
import { makeTmp, run, start, withStore, rpc, lockDb, tapLines, type Running } from './helpers.js';

const tmp = makeTmp();
afterAll(() => tmp.cleanup());
const node = process.execPath;

/** On `flood {n}`: n numbered 1 KiB notifications in writes of 256 KiB, then the answer; `ping` is answered at once. */
const agent = join(PEERS, 'flood-agent.mjs');

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** The tap's peak RSS so far (VmHWM, MiB), or NaN where /proc has none. */
function peakMiB(pid: number): number {
  try {
    return Number(/^VmHWM:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
  } catch {
    return NaN;
  }
}

/** Starts the tap on the flooding agent, collecting stdout without decoding it chunk by chunk. */
function startTap(db: string, env: NodeJS.ProcessEnv = {}): { r: Running; got: () => number; text: () => string; until: (pred: () => boolean) => Promise<void>; answered: (id: number) => boolean } {
  const r = start(['--db', db, '--', node, agent], { readStdout: false, env });
  const chunks: Buffer[] = [];
  let got = 0;
  let tail = '';
  const waiters: (() => void)[] = [];
  r.child.stdout!.on('data', (b: Buffer) => {
    chunks.push(b);
    got += b.length;
    tail = (tail + b.subarray(-512).toString('latin1')).slice(-512);
    for (const w of waiters.splice(0)) w();
  });
  const until = (pred: () => boolean) => new Promise<void>((res) => { const check = () => (pred() ? res() : waiters.push(check)); check(); });
  return { r, got: () => got, text: () => Buffer.concat(chunks).toString(), until, answered: (id) => tail.includes(`{"jsonrpc":"2.0","id":${id},"result":{}}\n`) };
}

/** Waits until the tap's recording exists (the recorder opens the database at low priority). */
async function recordingExists(db: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    let n = 0;
    try { n = withStore(db, (s) => s.listRecordings().length); } catch { /* not created yet */ }
    if (n > 0) return;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error('the recording was never created');
}

/** A tap whose recording exists (its first request answered), with another process holding the database's lock. */
async function lockedTap(db: string, env: NodeJS.ProcessEnv = {}): Promise<ReturnType<typeof startTap> & { lock: ReturnType<typeof lockDb> }> {
  const tap = startTap(db, env);
  tap.r.child.stdin!.write(rpc({ id: 1, method: 'ping' }) + '\n');
  await tap.until(() => tap.answered(1));
  await recordingExists(db);
  const lock = lockDb(db);
  await lock.locked;
  return { ...tap, lock };
}

describe('a flood while the database is locked', () => {
  it('is recorded whole, in order and byte-exact once the lock goes away, without piling up in the tap\'s memory', async () => {
    const N = 48 * 1024; // 48 MiB
    const db = join(tmp.dir, 'locked-flood.db');
    const tap = await lockedTap(db);
    const { r, lock } = tap;
    let lockedPeak = 0;
    const sample = setInterval(() => { lockedPeak = Math.max(lockedPeak, peakMiB(r.child.pid!) || 0); }, 50);
    r.child.stdin!.write(rpc({ id: 2, method: 'flood', params: { n: N } }) + '\n');
    await tap.until(() => tap.answered(2));
    // The session goes on while the lock is held: requests are answered (nothing waits for the recorder).
    for (let id = 3; id <= 5; id++) {
      r.child.stdin!.write(rpc({ id, method: 'ping' }) + '\n');
      await tap.until(() => tap.answered(id));
    }
    // Held past the recorder's busy timeout (1 s), so its writes really fail and are retried.
    await r.waitStderr(/locked/);
    await new Promise((res) => setTimeout(res, 3000));
    clearInterval(sample);
    lockedPeak = Math.max(lockedPeak, peakMiB(r.child.pid!) || 0);
    await lock.release();
    r.child.stdin!.end();
    const res = await r.done;
    expect(res.code, res.stderr).toBe(0);
    expect(tapLines(res.stderr)).toHaveLength(1);

    // Forwarding: every byte, in order.
    const out = tap.text();
    const notes = out.split('\n').filter((l) => l.includes('"method":"x/n"')).map((l) => `${l}\n`).join('');
    expect(sha(notes)).toBe(sha(expectedFlood(N)));

    // Recording: every frame once, in order, byte-exact, nothing marked lost.
    withStore(db, (s) => {
      const rec = s.listRecordings()[0]!;
      expect(rec.status).toBe('complete');
      expect(rec.frames).toBe(2 * 5 + N);
      const gaps = s.db.prepare(`SELECT count(*) AS n FROM items WHERE recording_id = ? AND kind = 'gap'`).get(rec.id) as { n: number };
      expect(gaps.n).toBe(0);
      const raws = (s.db.prepare(`SELECT raw FROM items WHERE recording_id = ? AND dir = 'a2c' ORDER BY seq`).all(rec.id) as { raw: string }[])
        .map((x) => x.raw).filter((x) => x.includes('"method":"x/n"'));
      expect(raws).toHaveLength(N);
      expect(sha(raws.map((x) => `${x}\n`).join(''))).toBe(sha(expectedFlood(N)));
    });

    // Memory: the backlog stayed on disk. Held in memory, 48 MiB of frames would take the tap well
    // past this (its peak through an unlocked flood of this size is about 60-90 MiB).
    if (Number.isFinite(lockedPeak) && lockedPeak > 0) expect(lockedPeak).toBeLessThan(100);
  });

  it('locked past the session\'s end: the tap exits with the agent\'s exit code at once, and the recording is finished once the lock goes', async () => {
    const N = 8 * 1024; // 8 MiB
    const db = join(tmp.dir, 'locked-flood-end.db');
    // The default exit wait, not the test suite's longer one.
    const tap = await lockedTap(db, { ACP_INSPECT_FINISH_WAIT_MS: undefined });
    const { r, lock } = tap;
    try {
      r.child.stdin!.write(rpc({ id: 2, method: 'flood', params: { n: N } }) + '\n');
      await tap.until(() => tap.answered(2));
      // Before, the recorder retried its write (waiting out the busy timeout) for each item of the
      // backlog, and the tap's exit waited for it as long as it advanced: hours for these 8 MiB.
      r.child.stdin!.end();
      const res = await r.done;
      expect(res.code, res.stderr).toBe(0);
      expect(res.stderr).not.toMatch(/FATAL|stack trace|Aborted/i);
      const lines = tapLines(res.stderr);
      // At most a word that the recording is delayed: nothing is lost.
      expect(lines.length, res.stderr).toBeLessThanOrEqual(2);
      expect(lines.join('\n')).not.toMatch(/incomplete|not recorded/);
      const notes = tap.text().split('\n').filter((l) => l.includes('"method":"x/n"')).map((l) => `${l}\n`).join('');
      expect(sha(notes)).toBe(sha(expectedFlood(N)));
    } finally {
      await lock.release();
    }
    // Nothing lost: the capture log kept it, and the next command that opens the database has it indexed.
    const ex = await run(['export', 'latest', '--db', db]);
    expect(ex.code, ex.stderr).toBe(0);
    const items = ex.stdout.toString().trim().split('\n').map((l) => JSON.parse(l) as { status?: string; dir?: string; raw?: string });
    expect(items[0]!.status).toBe('complete');
    const stored = items.filter((i) => i.dir === 'a2c' && i.raw!.includes('"method":"x/n"')).map((i) => `${i.raw}\n`).join('');
    expect(sha(stored)).toBe(sha(expectedFlood(N)));
  });
});
