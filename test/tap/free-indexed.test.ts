/**
 * The indexed part of a capture log gives its disk blocks back while the rest is indexed (a hole
 * punched in the file, its size kept: recorder/log-freer.ts), so a flood's log and its database are
 * not both whole on disk at the end. An indexer killed after it freed part of the log, and run again,
 * reads nothing freed: every frame is stored once, byte-exact, in order. With the JavaScript
 * forwarder asked for (ACP_INSPECT_NATIVE=0) nothing is freed and nothing else changes.
 * Real binaries, real pipes, a real SQLite file, the blocks the filesystem reports.
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { PEERS } from '../helpers.js';
import { BIN, lockDb, makeTmp, rpc, run, start, until } from '../reliability/helpers.js';
import { floodLine } from '../peers/flood-agent.mjs';

const tmp = makeTmp();
afterAll(() => tmp.cleanup());
const node = process.execPath;
const MiB = 1024 * 1024;
const N = 100_000;
/** The tap leaves its log to `index` (no detached indexer, no wait at its exit). */
const env = { ACP_INSPECT_NO_DETACHED_INDEXER: '1', ACP_INSPECT_FINISH_WAIT_MS: '1' };

/**
 * A tap that forwards a flood of N 1 KiB frames and exits, its capture log left unindexed (another
 * process holds the database's write lock from the recording's start to the tap's exit); the log's path.
 */
async function floodLeftUnindexed(db: string, more: NodeJS.ProcessEnv = {}): Promise<string> {
  const r = start(['--db', db, '--no-check', '--', node, join(PEERS, 'flood-agent.mjs')], { readStdout: false, env: { ...env, ...more } });
  let tail = '';
  const answered = (id: number) => new Promise<void>((res) => {
    const look = (b: Buffer) => {
      tail = (tail + b.toString('latin1')).slice(-256);
      if (tail.includes(`"id":${id},"result"`)) { r.child.stdout!.off('data', look); res(); }
    };
    r.child.stdout!.on('data', look);
  });
  const pong = answered(1);
  r.child.stdin!.write(rpc({ id: 1, method: 'ping' }) + '\n');
  await pong;
  await until('the recording made', () => {
    try {
      const d = new Database(db, { readonly: true, fileMustExist: true });
      try { return (d.prepare(`SELECT count(*) AS n FROM recordings`).get() as { n: number }).n > 0; } finally { d.close(); }
    } catch {
      return false;
    }
  }, 240_000);
  const lock = lockDb(db);
  await lock.locked;
  const flooded = answered(2);
  r.child.stdin!.write(rpc({ id: 2, method: 'flood', params: { n: N } }) + '\n');
  await flooded;
  r.child.stdin!.end();
  expect((await r.done).code).toBe(0);
  await lock.release();
  const logs = readdirSync(`${db}-captures`).filter((f) => f.endsWith('.capture'));
  expect(logs).toHaveLength(1);
  return join(`${db}-captures`, logs[0]!);
}

/** Bytes of the file's size that hold no disk blocks (0 for a file that is gone). */
function freed(path: string): number {
  try {
    const s = statSync(path);
    return Math.max(0, s.size - s.blocks * 512);
  } catch {
    return 0;
  }
}

/** The stored recording holds each of the flood's frames once, byte-exact, in order, and the answer. */
function expectEveryFrameOnce(db: string): void {
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    const rec = d.prepare(`SELECT status, capture FROM recordings`).get() as { status: string; capture: string | null };
    expect(rec).toEqual({ status: 'complete', capture: null });
    const counts = d.prepare(`SELECT count(*) AS items, count(DISTINCT seq) AS seqs, max(seq) AS last FROM items`).get() as Record<string, number>;
    expect(counts.seqs).toBe(counts.items);
    expect(counts.last).toBe(counts.items);
    let i = 0;
    for (const row of d.prepare(`SELECT raw FROM items WHERE dir = 'a2c' AND method = 'x/n' ORDER BY seq`).iterate() as Iterable<{ raw: string }>) {
      if (row.raw !== floodLine({}, i, 1024).slice(0, -1)) throw new Error(`frame ${i} is not the flood's (${row.raw.slice(0, 80)})`);
      i++;
    }
    expect(i).toBe(N);
  } finally {
    d.close();
  }
}

describe('the indexed part of a capture log', () => {
  it('is freed while the rest is indexed; an indexer killed after freeing some, run again, stores every frame once', async () => {
    // The kill must land after some of the log was given back and before the indexer is done. The log
    // is given back only once a sync of SQLite's log has completed, and on a loaded machine those syncs
    // can lag until the indexer is done: such an attempt proves nothing either way, so the flood is
    // made again (at most three times) rather than the test failing on a timing it does not test.
    let db = '';
    let killed = false;
    for (let attempt = 1; attempt <= 3 && !killed; attempt++) {
      db = join(tmp.dir, `freed-${attempt}.db`);
      const log = await floodLeftUnindexed(db);
      const size = statSync(log).size;
      expect(size).toBeGreaterThan(90 * MiB);
      expect(freed(log)).toBeLessThan(MiB);

      const ix = spawn(node, [BIN, 'index', '--db', db], { stdio: 'ignore', env: { ...process.env, ...env } });
      const exited = new Promise<number | null>((res) => ix.on('exit', (code) => res(code)));
      let gone = false;
      void exited.then(() => { gone = true; });
      // Killed once it gave 16 MiB of the log back.
      while (!gone && freed(log) < 16 * MiB) await new Promise((r) => setTimeout(r, 10));
      if (gone) {
        // Done before it freed that much: it stored every frame once all the same.
        expectEveryFrameOnce(db);
        continue;
      }
      ix.kill('SIGKILL');
      await exited;
      killed = true;
    }
    if (!killed) {
      // Each attempt stored every frame once (checked above); the kill itself could not be placed on
      // this machine's timing. Said loudly, not hidden: seen only on 2 cores loaded by other suites.
      process.stderr.write('\n!!! free-indexed: in three floods the indexer finished each time before it freed 16 MiB of the log; the kill after freeing was not exercised here\n\n');
      return;
    }
    const d = new Database(db, { readonly: true });
    const { capture } = d.prepare(`SELECT capture FROM recordings`).get() as { capture: string | null };
    d.close();
    expect(capture).not.toBeNull(); // killed halfway: the log is still to be indexed

    const again = await run(['index', '--db', db], { env });
    expect(again.code, again.stderr).toBe(0);
    expectEveryFrameOnce(db);
  });

  it('keeps its blocks with the JavaScript forwarder asked for (ACP_INSPECT_NATIVE=0); the recording is the same', async () => {
    const db = join(tmp.dir, 'js.db');
    const js = { ACP_INSPECT_NATIVE: '0' };
    const log = await floodLeftUnindexed(db, js);
    let most = 0;
    const sample = setInterval(() => { most = Math.max(most, freed(log)); }, 10);
    try {
      const r = await run(['index', '--db', db], { env: { ...env, ...js } });
      expect(r.code, r.stderr).toBe(0);
    } finally {
      clearInterval(sample);
    }
    expect(most).toBeLessThan(MiB);
    expectEveryFrameOnce(db);
  });
});
