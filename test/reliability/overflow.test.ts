/**
 * The recorder stalls in the middle of a flood (here: its database is locked by another process, so
 * each write waits out the busy timeout) while the agent writes 48 MiB. The forwarding thread must
 * neither wait nor drop: every record goes, in order, into the capture log, and the recording ends
 * complete, with every frame and no gap.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { makeTmp, start, writeAgent, withStore, rpc, lockDb } from './helpers.js';

const tmp = makeTmp();
afterAll(() => tmp.cleanup());
const node = process.execPath;

const FRAME = 1024;
const COUNT = 48 * 1024;

/** Answers `ping`; on `flood` writes COUNT numbered 1 KiB notifications, then the answer. */
const flooder = writeAgent(tmp.dir, 'flooder', `
const FRAME = ${FRAME}, COUNT = ${COUNT};
const line = (i) => {
  const head = JSON.stringify({ jsonrpc: '2.0', method: 'x/n', params: { i, pad: '' } });
  return head.replace('"pad":""', '"pad":"' + 'z'.repeat(FRAME - head.length - 1) + '"') + '\\n';
};
let buf = '';
process.stdin.on('data', (b) => {
  buf += b;
  let k;
  while ((k = buf.indexOf('\\n')) !== -1) {
    const m = JSON.parse(buf.slice(0, k)); buf = buf.slice(k + 1);
    if (m.method === 'flood') {
      let out = '';
      for (let i = 0; i < COUNT; i++) {
        out += line(i);
        if (out.length >= 1 << 20) { process.stdout.write(out); out = ''; }
      }
      process.stdout.write(out);
    }
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} }) + '\\n');
  }
});
`);

describe('a recorder that stalls during a flood', () => {
  it('overflows past the ring in order: every frame recorded, no gap, forwarding byte-exact', async () => {
    const db = join(tmp.dir, 'overflow.db');
    const r = start(['--db', db, '--', node, flooder], { readStdout: false });
    let got = 0;
    const hash = createHash('sha256');
    const waiters: (() => void)[] = [];
    r.child.stdout!.on('data', (b: Buffer) => { got += b.length; hash.update(b); for (const w of waiters.splice(0)) w(); });
    const until = (n: number) => new Promise<void>((res) => { const check = () => (got >= n ? res() : waiters.push(check)); check(); });

    const ping = rpc({ id: 1, method: 'ping', params: {} }) + '\n';
    r.child.stdin!.write(ping);
    const answer1 = JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }) + '\n';
    await until(answer1.length);
    for (let i = 0; i < 200; i++) {
      let n = 0;
      try { n = withStore(db, (s) => s.listRecordings().length); } catch { /* not created yet */ }
      if (n > 0) break;
      await new Promise((res) => setTimeout(res, 50));
    }
    const lock = lockDb(db);
    await lock.locked;
    // A frame the recorder must now write: its next write waits out the busy timeout (2 s).
    r.child.stdin!.write(rpc({ id: 2, method: 'ping', params: {} }) + '\n');
    const answer2 = JSON.stringify({ jsonrpc: '2.0', id: 2, result: {} }) + '\n';
    await until(answer1.length + answer2.length);
    await new Promise((res) => setTimeout(res, 100));
    r.child.stdin!.write(rpc({ id: 3, method: 'flood', params: {} }) + '\n');
    let expected = '';
    {
      const head = (i: number) => JSON.stringify({ jsonrpc: '2.0', method: 'x/n', params: { i, pad: '' } });
      const parts: string[] = [answer1, answer2];
      for (let i = 0; i < COUNT; i++) parts.push(head(i).replace('"pad":""', `"pad":"${'z'.repeat(FRAME - head(i).length - 1)}"`) + '\n');
      parts.push(JSON.stringify({ jsonrpc: '2.0', id: 3, result: {} }) + '\n');
      expected = parts.join('');
    }
    await until(expected.length);
    await lock.release();
    r.child.stdin!.end();
    const res = await r.done;
    expect(res.code).toBe(0);
    expect(got).toBe(expected.length);
    expect(hash.digest('hex')).toBe(createHash('sha256').update(expected).digest('hex'));

    withStore(db, (s) => {
      const rec = s.listRecordings()[0]!;
      expect(rec.status).toBe('complete');
      const gaps = s.db.prepare(`SELECT count(*) AS n FROM items WHERE recording_id = ? AND kind = 'gap'`).get(rec.id) as { n: number };
      expect(gaps.n).toBe(0);
      // Every notification, in the order it was sent.
      const rows = s.db.prepare(`SELECT raw FROM items WHERE recording_id = ? AND method = 'x/n' ORDER BY seq`).all(rec.id) as { raw: string }[];
      expect(rows).toHaveLength(COUNT);
      let inOrder = true;
      rows.forEach((row, i) => { if (!row.raw.startsWith(`{"jsonrpc":"2.0","method":"x/n","params":{"i":${i},`)) inOrder = false; });
      expect(inOrder).toBe(true);
      expect(rec.frames).toBe(COUNT + 6);
    });
  });
});
