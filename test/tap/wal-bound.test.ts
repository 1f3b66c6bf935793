/**
 * SQLite's write-ahead log stays bounded while a flood's backlog is indexed: it is copied into the
 * database every 128 MiB written, backlog or not (before, not until the backlog was caught up: 378 MB
 * for 200k frames). Sampled throughout a 300 MiB flood and its indexing, by the tap and the detached
 * indexer it leaves the rest to; nothing is lost.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PEERS } from '../helpers.js';
import { makeTmp, rpc, start, until, withStore } from '../reliability/helpers.js';

const tmp = makeTmp();
afterAll(() => tmp.cleanup());
const N = 300_000;
const MiB = 1024 * 1024;

const size = (p: string) => { try { return statSync(p).size; } catch { return 0; } };

describe('SQLite\'s log through a flood and its indexing', () => {
  it('stays within 256 MiB, and every frame is stored', async () => {
    const db = join(tmp.dir, 'wal.db');
    let peak = 0;
    const sample = setInterval(() => { peak = Math.max(peak, size(`${db}-wal`)); }, 20);
    try {
      // The tap's own exit wait: it leaves the rest of the flood to the detached indexer, as in use.
      const r = start(['--db', db, '--no-check', '--', process.execPath, join(PEERS, 'flood-agent.mjs')], { readStdout: false, env: { ACP_INSPECT_FINISH_WAIT_MS: undefined } });
      let tail = '';
      r.child.stdout!.on('data', (b: Buffer) => { tail = (tail + b.toString('latin1')).slice(-256); if (tail.includes('"id":1,"result"')) r.child.stdin!.end(); });
      r.child.stdin!.write(rpc({ id: 1, method: 'flood', params: { n: N } }) + '\n');
      expect((await r.done).code).toBe(0);
      await until('the flood indexed', () => readdirSync(`${db}-captures`).length === 0, 300_000, 100);
    } finally {
      clearInterval(sample);
    }
    expect(peak).toBeGreaterThan(16 * MiB); // it was sampled while it held the flood
    expect(peak).toBeLessThanOrEqual(256 * MiB);
    withStore(db, (s) => expect(s.listRecordings()[0]).toMatchObject({ status: 'complete', frames: N + 2 }));
  });
});
