/**
 * `acp-inspect index` exits 0 only when every capture log whose tap is gone is indexed: a log it
 * leaves is one line and exit 2 (see database-faults.test.ts for a page limit). A log a live tap
 * writes is that tap's to index, not a failure; one another indexer holds is waited for while that
 * one gets on, and left, said, when it indexes nothing more (a detached indexer leaves it at once).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_STDIO, lockDb, makeTmp, rpc, run, start, tapLines, withStore, writeAgent } from '../reliability/helpers.js';
import { Store, processIdentity } from '../../src/store/store.js';

const tmp = makeTmp();
afterAll(() => tmp.cleanup());
const node = process.execPath;
const env = { ACP_INSPECT_NO_DETACHED_INDEXER: '1' };

/** Answers each request with an empty result. */
const echo = writeAgent(tmp.dir, 'echo', `${AGENT_STDIO}
onMessages((m) => out(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} }) + '\\n'));
`);
const requests = (n: number) => Array.from({ length: n }, (_, i) => rpc({ id: i + 1, method: 'ping', params: { pad: 'p'.repeat(200) } }) + '\n').join('');
const logs = (db: string) => readdirSync(`${db}-captures`).filter((f) => f.endsWith('.capture'));

/** A database beside which a log of 2000 requests and their answers waits, its tap gone; its log's name. */
async function orphan(db: string): Promise<string[]> {
  // The database locked through the session, so that the tap's recorder indexes none of it.
  await run(['--db', db, '--', node, echo], { input: '', env });
  const lock = lockDb(db);
  await lock.locked;
  try {
    expect((await run(['--db', db, '--', node, echo], { input: requests(2000), env: { ...env, ACP_INSPECT_FINISH_WAIT_MS: '1' } })).code).toBe(0);
  } finally {
    await lock.release();
  }
  expect(logs(db)).toHaveLength(1);
  // An opener makes its recording (the tap could not: the database was locked).
  expect((await run(['list', '--db', db], { env })).code).toBe(0);
  return logs(db);
}

describe('acp-inspect index', () => {
  it('leaves a live tap its own log: exit 0, nothing said; the tap finishes its recording', async () => {
    const db = join(tmp.dir, 'live.db');
    const tap = start(['--db', db, '--', node, echo], { env });
    tap.child.stdin!.write(rpc({ id: 1, method: 'ping', params: {} }) + '\n');
    await tap.waitStdout((b) => b.includes('"id":1,'));
    const made = () => { try { return withStore(db, (s) => s.listRecordings().length) > 0; } catch { return false; /* not made yet */ } };
    for (let i = 0; i < 600 && !made(); i++) await new Promise((r) => setTimeout(r, 50));
    expect(logs(db)).toHaveLength(1);
    const ix = await run(['index', '--db', db], { env });
    expect(ix.code, ix.stderr.toString()).toBe(0);
    expect(ix.stderr.toString()).toBe('');
    expect(logs(db)).toHaveLength(1);
    tap.child.stdin!.end();
    expect((await tap.done).code).toBe(0);
    expect(withStore(db, (s) => s.listRecordings()[0])).toMatchObject({ status: 'complete', frames: 2 });
  });

  it('says of each log it could not take (the database locked past its wait) why and how far it is: exit 2', async () => {
    const db = join(tmp.dir, 'locked.db');
    const [log] = await orphan(db);
    const lock = lockDb(db);
    await lock.locked;
    let locked: Awaited<ReturnType<typeof run>>;
    try {
      locked = await run(['index', '--db', db], { env });
    } finally {
      await lock.release();
    }
    expect(locked.code, locked.stderr.toString()).toBe(2);
    expect(tapLines(locked.stderr.toString())).toEqual([expect.stringMatching(new RegExp(`^acp-inspect: recording \\d+: cannot take it: database .*locked\\.db is locked by another process; 0\\.0 MiB of \\d+\\.\\d MiB indexed, the rest kept in its capture log ${log!.replace(/\./g, '\\.')}; run \`acp-inspect index --db .*\` again$`))]);
    expect(logs(db)).toEqual([log]);
    expect((await run(['index', '--db', db], { env })).code).toBe(0);
    expect(logs(db)).toEqual([]);
  });

  it('leaves a log another indexer holds without indexing more for 15 s: exit 2 and its line; once let go, it finishes it: exit 0', async () => {
    const db = join(tmp.dir, 'held.db');
    const [log] = await orphan(db);
    // This process takes it, as an indexer that went no further would (alive, waiting on something).
    const s = Store.open(db);
    let id: number;
    try {
      id = s.claimCapture(log!, processIdentity(), false, () => { throw new Error('its recording is there'); })!.id;
    } finally {
      s.close();
    }
    const held = await run(['index', '--db', db], { env });
    expect(held.code, held.stderr.toString()).toBe(2);
    const said = tapLines(held.stderr.toString());
    expect(said).toEqual([expect.stringMatching(new RegExp(`^acp-inspect: recording ${id}: another indexer \\(pid ${process.pid}\\) holds it and indexed nothing more for 15 s; \\d+\\.\\d MiB of \\d+\\.\\d MiB indexed, the rest kept in its capture log ${log!.replace(/\./g, '\\.')}; let it end, then run \`acp-inspect index --db .*\` again$`))]);
    expect(logs(db)).toEqual([log]);
    // A detached indexer (started by a tap or a command, its exit read by nobody) leaves it to its
    // holder at once, quietly: it does not wait on other indexers.
    const detached = await run(['index', '--db', db, '--detached'], { env });
    expect(detached.code, detached.stderr.toString()).toBe(0);
    expect(detached.stderr.toString()).toBe('');
    expect(logs(db)).toEqual([log]);
    // Let go (as that indexer's end would): the next index takes it and finishes it.
    const s2 = Store.open(db);
    try { s2.releaseCapture(id); } finally { s2.close(); }
    const done = await run(['index', '--db', db], { env });
    expect(done.code, done.stderr.toString()).toBe(0);
    expect(done.stderr.toString()).toBe('');
    expect(logs(db)).toEqual([]);
    expect(withStore(db, (st) => st.listRecordings().find((r) => r.id === id))).toMatchObject({ status: 'complete', frames: 4000 });
  });
});
