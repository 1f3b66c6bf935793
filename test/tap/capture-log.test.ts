/**
 * The capture log: what the tap forwards is on the database's disk as it flows, so a tap killed at
 * any moment loses nothing the client had (SIGKILL at seeded random moments of a flood, then a plain
 * `list` and `export`); the tap exits with its agent however much is left to index, and the rest is
 * finished by a detached indexer; two indexers racing for one orphaned log store each frame once,
 * and so does an indexer killed halfway and run again. Real binaries, real pipes, real SQLite.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { seededRandom } from '../helpers.js';
import { AGENT_STDIO, BIN, lockDb, makeTmp, run, start, until, writeAgent, rpc, type Running } from '../reliability/helpers.js';

const tmp = makeTmp();
afterAll(() => tmp.cleanup());
const node = process.execPath;

/**
 * On `flood {n, perTick}`: n numbered 1 KiB notifications, perTick every 10 ms (a steady stream a
 * client can time), then the answer. Exits when stdin ends.
 */
const agent = writeAgent(tmp.dir, 'stream', `${AGENT_STDIO}
const line = (i) => {
  const head = JSON.stringify({ jsonrpc: '2.0', method: 'x/n', params: { i, pad: '' } });
  return head.replace('"pad":""', '"pad":"' + 'z'.repeat(1024 - head.length - 1) + '"') + '\\n';
};
onMessages((m) => {
  if (m.method !== 'flood') { out(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} }) + '\\n'); return; }
  let i = 0;
  const tick = () => {
    let s = '';
    for (let j = 0; j < m.params.perTick && i < m.params.n; j++) s += line(i++);
    out(s);
    if (i < m.params.n) setTimeout(tick, 10);
    else out(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} }) + '\\n');
  };
  tick();
});
`);

/** The lines the client has received, with when each complete line arrived (performance.now()). */
function receiver(r: Running): { lines: string[]; at: number[] } {
  const got = { lines: [] as string[], at: [] as number[] };
  let rest = '';
  r.child.stdout!.on('data', (b: Buffer) => {
    const parts = (rest + b.toString('utf8')).split('\n');
    rest = parts.pop()!;
    const now = performance.now();
    for (const p of parts) { got.lines.push(p); got.at.push(now); }
  });
  return got;
}

/** The a2c frames of recording `id` in `db`, as `export` prints them, and its status line. */
async function exported(db: string, env: NodeJS.ProcessEnv = {}): Promise<{ header: Record<string, unknown>; a2c: string[]; seqs: number[] }> {
  const r = await run(['export', 'latest', '--db', db], { env });
  expect(r.code, r.stderr).toBe(0);
  const lines = r.stdout.toString().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  const items = lines.slice(1);
  return { header: lines[0]!, a2c: items.filter((i) => i.dir === 'a2c').map((i) => i.raw as string), seqs: items.map((_, k) => k) };
}

/** How far the latest recording's capture log is indexed, read straight from the file. */
function captureState(db: string): { capture: string | null; items: number; status: string } {
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return d.prepare(`SELECT capture, item_count AS items, status FROM recordings ORDER BY id DESC LIMIT 1`).get() as { capture: string | null; items: number; status: string };
  } finally {
    d.close();
  }
}

describe.concurrent('the capture log', () => {
  it('SIGKILL at seeded random moments of a flood: list and export show every frame the client had a second before, byte-exact, interrupted', async () => {
    const random = seededRandom(28);
    const kills = Array.from({ length: 5 }, () => 1100 + Math.floor(random() * 900));
    await Promise.all(kills.map(async (killAt, k) => {
      const db = join(tmp.dir, `kill-${k}.db`);
      // Without the checker: what is tested here is the capture, and the checker's load would only slow the indexers.
      const r = start(['--db', db, '--no-check', '--', node, agent]);
      const got = receiver(r);
      r.child.stdin!.write(rpc({ id: 1, method: 'flood', params: { n: 100_000, perTick: 40 } }) + '\n');
      // Timed from the flood's first frame at the client (the tap and its agent start slowly on a busy machine).
      await until('the first frame', () => got.lines.length > 0);
      await new Promise((res) => setTimeout(res, killAt));
      const killedAt = performance.now();
      r.child.kill('SIGKILL');
      await r.done;
      const before = got.at.findIndex((t) => t > killedAt - 1000);
      const had = got.lines.slice(0, before === -1 ? got.lines.length : before);
      expect(had.length, `kill ${k} at ${killAt} ms`).toBeGreaterThan(0);
      const list = await run(['list', '--json', '--db', db]);
      expect((JSON.parse(list.stdout.toString()) as { status: string }[])[0]!.status).toBe('interrupted');
      const ex = await exported(db);
      expect(ex.header.status).toBe('interrupted');
      // In order and byte-exact: what was stored is what the client read, and holds at least all it had a second before.
      expect(ex.a2c.length).toBeGreaterThanOrEqual(had.length);
      expect(ex.a2c.slice(0, had.length)).toEqual(had);
      const common = Math.min(ex.a2c.length, got.lines.length);
      expect(ex.a2c.slice(0, common)).toEqual(got.lines.slice(0, common));
    }));
    // Once indexed, no capture log is left.
    await until('capture logs removed', () => kills.every((_, k) => !existsSync(join(tmp.dir, `kill-${k}.db-captures`)) || readdirSync(join(tmp.dir, `kill-${k}.db-captures`)).length === 0));
  });

  for (const how of ['stdin', 'SIGTERM'] as const) {
    it(`${how === 'stdin' ? 'closing stdin' : 'SIGTERM'} right after a flood: the tap exits before the rest is indexed, and the recording becomes complete with every frame`, async () => {
      const db = join(tmp.dir, `exit-${how}.db`);
      // One burst, as fast as the agent writes: more than a recorder indexes in the tap's exit wait.
      const n = 30_000;
      // The default exit wait, not the test suite's longer one.
      const r = start(['--db', db, '--no-check', '--', node, agent], { env: { ACP_INSPECT_FINISH_WAIT_MS: undefined } });
      const got = receiver(r);
      // Another process holds the database's write lock through the flood, so that however fast
      // this machine indexes, the tap cannot have indexed it all when it exits.
      r.child.stdin!.write(rpc({ id: 0, method: 'ping' }) + '\n');
      await until('the recording', () => { try { return captureState(db).capture !== null; } catch { return false; } });
      const lock = lockDb(db);
      await lock.locked;
      r.child.stdin!.write(rpc({ id: 1, method: 'flood', params: { n, perTick: n } }) + '\n');
      await until('the flood', () => got.lines.length >= n + 2);
      if (how === 'stdin') r.child.stdin!.end();
      else r.child.kill('SIGTERM');
      const res = await r.done;
      // The order of events, not milliseconds: at the tap's exit the capture log was not all indexed yet.
      const atExit = captureState(db);
      expect(atExit.capture).not.toBeNull();
      expect(atExit.items).toBeLessThan(n + 2);
      expect(how === 'stdin' ? res.code : res.signal).toBe(how === 'stdin' ? 0 : 'SIGTERM');
      await lock.release();
      // A detached indexer finishes it (nobody runs anything).
      await until('the recording finished', () => captureState(db).capture === null);
      const done = captureState(db);
      expect(done.status).toBe('complete');
      const ex = await exported(db);
      expect(ex.a2c).toEqual(got.lines);
    });
  }

  it('a tap killed before it made the database leaves a capture log that list and index make into the recording', async () => {
    const env = { ACP_INSPECT_NO_DETACHED_INDEXER: '1' };
    const db = join(tmp.dir, 'never-made.db');
    const r = start(['--db', db, '--no-check', '--', node, agent], { env });
    const got = receiver(r);
    r.child.stdin!.write(rpc({ id: 1, method: 'flood', params: { n: 2000, perTick: 2000 } }) + '\n');
    await until('the flood', () => got.lines.length >= 2001);
    r.child.kill('SIGKILL');
    await r.done;
    // As if the kill came before the recorder's first write: only the capture log is left.
    for (const x of ['', '-wal', '-shm']) rmSync(db + x, { force: true });
    expect(readdirSync(`${db}-captures`).length).toBe(1);
    const listed = await run(['list', '--db', db, '--json'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout.toString())).toMatchObject([{ id: 1, status: 'interrupted' }]);
    expect((await run(['index', '--db', db], { env })).code).toBe(0);
    expect((await exported(db, env)).a2c).toEqual(got.lines);
  });

  it('two indexers racing for an orphaned capture log store each frame once; so does one killed halfway and run again', async () => {
    const env = { ACP_INSPECT_NO_DETACHED_INDEXER: '1' };
    // With the checker on: the indexer that resumes a log folds the items already stored into it first.
    const orphan = async (db: string, n: number, check: boolean) => {
      const r = start(['--db', db, ...(check ? [] : ['--no-check']), '--', node, agent], { env });
      const got = receiver(r);
      r.child.stdin!.write(rpc({ id: 1, method: 'flood', params: { n, perTick: 10_000 } }) + '\n');
      await until('the flood', () => got.lines.length >= n + 1);
      r.child.kill('SIGKILL');
      await r.done;
      // A tap killed this early may not have made its recording's row yet: an opener (here `list`,
      // with no indexer started) adopts the orphaned log and makes it.
      expect((await run(['list', '--db', db], { env })).code).toBe(0);
      expect(captureState(db).capture).not.toBeNull();
      return got.lines;
    };
    // Race: two at once.
    const raceDb = join(tmp.dir, 'race.db');
    const raced = await orphan(raceDb, 8000, false);
    const both = await Promise.all([run(['index', '--db', raceDb], { env }), run(['index', '--db', raceDb], { env })]);
    for (const b of both) expect(b.code, b.stderr).toBe(0);
    expect(captureState(raceDb)).toMatchObject({ capture: null, status: 'interrupted' });
    expect((await exported(raceDb, env)).a2c).toEqual(raced);

    // Killed halfway, then run again.
    const haltDb = join(tmp.dir, 'halt.db');
    const halted = await orphan(haltDb, 25_000, true);
    // A copy indexed in one go, to compare with: the same items and the same findings, once each.
    const refDb = join(tmp.dir, 'ref.db');
    for (const x of ['', '-wal']) if (existsSync(haltDb + x)) copyFileSync(haltDb + x, refDb + x);
    cpSync(`${haltDb}-captures`, `${refDb}-captures`, { recursive: true });
    // Killed once some of it is stored. An indexer that finished first (it can, between two looks)
    // killed nothing halfway: the orphaned state is put back from the copy and it runs again.
    let partial = captureState(haltDb);
    for (let attempt = 0; attempt < 5; attempt++) {
      const ix = spawn(node, [BIN, 'index', '--db', haltDb], { stdio: 'ignore', env: { ...process.env, ...env } });
      const exited = new Promise((res) => ix.on('exit', res));
      await until('some of it indexed', () => captureState(haltDb).items > 0, 60_000, 2);
      ix.kill('SIGKILL');
      await exited;
      partial = captureState(haltDb);
      if (partial.capture !== null) break;
      for (const x of ['', '-wal', '-shm']) rmSync(haltDb + x, { force: true });
      for (const x of ['', '-wal']) if (existsSync(refDb + x)) copyFileSync(refDb + x, haltDb + x);
      rmSync(`${haltDb}-captures`, { recursive: true, force: true });
      cpSync(`${refDb}-captures`, `${haltDb}-captures`, { recursive: true });
    }
    expect(partial.capture).not.toBeNull();
    expect((await run(['index', '--db', haltDb], { env })).code).toBe(0);
    const ex = await exported(haltDb, env);
    expect(ex.a2c).toEqual(halted);
    expect((await run(['index', '--db', refDb], { env })).code).toBe(0);
    const counts = (db: string) => {
      const d = new Database(db, { readonly: true });
      try {
        return d.prepare(`SELECT (SELECT count(*) FROM items) AS items, (SELECT count(DISTINCT seq) FROM items) AS seqs, (SELECT max(seq) FROM items) AS last,
          (SELECT count(*) FROM findings) AS findings, (SELECT item_count FROM recordings) AS counted FROM recordings`).get() as Record<string, number>;
      } finally {
        d.close();
      }
    };
    const got = counts(haltDb);
    expect(got.seqs).toBe(got.items);
    expect(got.last).toBe(got.items);
    expect(got.counted).toBe(got.items);
    expect(got).toEqual(counts(refDb));
  });
});
