/**
 * Bursts of the agent's output. The native forwarder moves the agent's output into the capture log
 * with a kernel copy (splice()), in order with everything else, and the recorder indexes a burst once
 * it is over. Here: three bursts with pauses between them, and the client's requests answered in the
 * middle of each burst. Every byte arrives unchanged, every frame is recorded once, in order, each
 * request before its answer.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { makeTmp, start, withStore, rpc } from '../reliability/helpers.js';
import { PEERS } from '../helpers.js';
import { expectedFlood } from '../peers/flood-agent.mjs';

const tmp = makeTmp();
afterAll(() => tmp.cleanup());
const node = process.execPath;

const COUNT = 12_000; // 12 MiB a burst

/**
 * On `flood {n: COUNT, b}`: COUNT numbered 1 KiB notifications in writes of 256 KiB, answering each
 * `ping` that arrives meanwhile between two writes (so answers land in the middle of the burst), then
 * the answer.
 */
const agent = join(PEERS, 'flood-agent.mjs');
const expectedBurst = (b: number): string => expectedFlood(COUNT, { b });

/** Waits until the recording holds the agent's answer to request `id`. */
async function recorded(db: string, id: number): Promise<void> {
  const answer = `{"jsonrpc":"2.0","id":${id},"result":{}}`;
  for (;;) {
    let found = false;
    try {
      found = withStore(db, (s) => s.db.prepare(`SELECT 1 FROM items WHERE dir = 'a2c' AND raw = ? LIMIT 1`).get(answer) !== undefined);
    } catch { /* not created yet, or busy */ }
    if (found) return;
    await new Promise((res) => setTimeout(res, 50));
  }
}

describe('bursts of the agent output', () => {
  it('are recorded whole and in order, with the requests answered in their middle', async () => {
    const db = join(tmp.dir, 'bursts.db');
    const r = start(['--db', db, '--', node, agent], { readStdout: false, env: { ACP_INSPECT_DEBUG: '1' } });
    const chunks: Buffer[] = [];
    let got = 0;
    const waiters: (() => void)[] = [];
    let tail = '';
    r.child.stdout!.on('data', (b: Buffer) => {
      chunks.push(b);
      got += b.length;
      tail = (tail + b.subarray(-256).toString('latin1')).slice(-256);
      for (const w of waiters.splice(0)) w();
    });
    const until = (pred: () => boolean) => new Promise<void>((res) => { const check = () => (pred() ? res() : waiters.push(check)); check(); });
    const text = () => Buffer.concat(chunks).toString();

    let id = 0;
    const pings: number[] = [];
    for (let b = 0; b < 3; b++) {
      const burstId = ++id;
      r.child.stdin!.write(rpc({ id: burstId, method: 'flood', params: { n: COUNT, b } }) + '\n');
      // Requests while the burst flows: wait until some of it arrived, then ask twice.
      const before = got;
      await until(() => got > before + 2 * 1024 * 1024);
      for (let k = 0; k < 2; k++) {
        const pid = ++id;
        pings.push(pid);
        r.child.stdin!.write(rpc({ id: pid, method: 'ping', params: {} }) + '\n');
      }
      // The burst's answer is the last thing the agent writes for it.
      await until(() => tail.endsWith(`{"jsonrpc":"2.0","id":${burstId},"result":{}}\n`));
      // A pause until the recorder has caught up (the burst's answer is stored, after all of the
      // burst): the next burst then writes the overflow file over from the start.
      await recorded(db, burstId);
    }
    r.child.stdin!.end();
    const res = await r.done;
    expect(res.code, res.stderr).toBe(0);

    // Forwarding: each burst's frames arrived unchanged and in order (answers may sit between them).
    const out = text();
    const answers = out.split('\n').filter((l) => l.startsWith('{"jsonrpc":"2.0","id":'));
    expect(answers).toHaveLength(id);
    const notes = out.split('\n').filter((l) => l.includes('"method":"x/n"')).map((l) => `${l}\n`).join('');
    const expected = [0, 1, 2].map(expectedBurst).join('');
    expect(createHash('sha256').update(notes).digest('hex')).toBe(createHash('sha256').update(expected).digest('hex'));

    withStore(db, (s) => {
      const rec = s.listRecordings()[0]!;
      expect(rec.status).toBe('complete');
      const gaps = s.db.prepare(`SELECT count(*) AS n FROM items WHERE recording_id = ? AND kind = 'gap'`).get(rec.id) as { n: number };
      expect(gaps.n).toBe(0);
      const rows = s.db.prepare(`SELECT dir, raw FROM items WHERE recording_id = ? AND dir IN ('c2a', 'a2c') ORDER BY seq`).all(rec.id) as { dir: string; raw: string }[];
      // Every notification once, in the order sent.
      const seen = rows.filter((x) => x.raw.includes('"method":"x/n"')).map((x) => /"b":(\d+),"i":(\d+)/.exec(x.raw)!.slice(1).map(Number));
      expect(seen).toHaveLength(3 * COUNT);
      let inOrder = true;
      seen.forEach(([b, i], k) => { if (b !== Math.floor(k / COUNT) || i !== k % COUNT) inOrder = false; });
      expect(inOrder).toBe(true);
      // Each request is recorded before its answer, and each answer once.
      for (let k = 1; k <= id; k++) {
        const req = rows.findIndex((x) => x.dir === 'c2a' && x.raw.includes(`"id":${k},`));
        const ans = rows.findIndex((x) => x.dir === 'a2c' && x.raw === `{"jsonrpc":"2.0","id":${k},"result":{}}`);
        expect(req, `request ${k}`).toBeGreaterThanOrEqual(0);
        expect(ans, `answer ${k}`).toBeGreaterThan(req);
      }
      expect(rows.filter((x) => x.dir === 'a2c' && x.raw.startsWith('{"jsonrpc":"2.0","id":'))).toHaveLength(id);
      // The pings were answered in the middle of their burst: more of its notifications follow.
      for (const p of pings) {
        const ans = rows.findIndex((x) => x.raw === `{"jsonrpc":"2.0","id":${p},"result":{}}`);
        expect(rows.slice(ans + 1, ans + 10).some((x) => x.raw.includes('"method":"x/n"')), `answer ${p}`).toBe(true);
      }
    });
  });
});
