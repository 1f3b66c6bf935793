/**
 * A tap whose recorder caught up with a burst just before the session ended does not copy SQLite's
 * log into the database on its way out (that copy took most of its exit): it leaves it to a detached
 * indexer, `acp-inspect index`, which copies it. A tap that lives on after a burst has another
 * process copy the log (`acp-inspect index --log-only`), not the thread that takes its signals.
 * Nothing is lost either way. Real binaries, real pipes, real SQLite.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { makeTmp, rpc, run, start, until, writeChunksAgent } from '../reliability/helpers.js';

const tmp = makeTmp();
afterAll(() => tmp.cleanup());
const node = process.execPath;
const env = { ACP_INSPECT_NO_DETACHED_INDEXER: '1' };
/** 30,000 chunks of about 1 KiB: a burst whose rows fill SQLite's log past what a tap copies on its way out. */
const CHUNKS = 30_000;

const agent = writeChunksAgent(tmp.dir, 'burst', CHUNKS);

const walSize = (db: string) => (existsSync(`${db}-wal`) ? statSync(`${db}-wal`).size : 0);

function counts(db: string): { items: number; status: string } {
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return d.prepare(`SELECT (SELECT count(*) FROM items WHERE dir IN ('c2a', 'a2c')) AS items, (SELECT status FROM recordings) AS status`).get() as { items: number; status: string };
  } finally {
    d.close();
  }
}

describe('a tap that ends right after catching up with a burst', () => {
  it('leaves SQLite\'s log for acp-inspect index to copy, and loses nothing', async () => {
    const db = join(tmp.dir, 'burst.db');
    // The recorder catches up within the exit wait (the suite's is long), and the session ends then.
    const r = await run(['--db', db, '--', node, agent], { env, input: [
      rpc({ id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }) + '\n',
      rpc({ id: 2, method: 'session/new', params: { cwd: '/', mcpServers: [] } }) + '\n',
      rpc({ id: 3, method: 'session/prompt', params: { sessionId: 's1', prompt: [{ type: 'text', text: 'go' }] } }) + '\n',
    ] });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.toString().split('\n').filter(Boolean)).toHaveLength(CHUNKS + 3);
    // Every frame is in SQLite (its log included), the recording finished; the log was not copied.
    expect(counts(db)).toEqual({ items: CHUNKS + 6, status: 'complete' });
    expect(walSize(db)).toBeGreaterThan(16 * 1024 * 1024);
    const ix = await run(['index', '--db', db], { env });
    expect(ix.code, ix.stderr).toBe(0);
    expect(walSize(db)).toBe(0);
    expect(counts(db)).toEqual({ items: CHUNKS + 6, status: 'complete' });
  });
});

/** Pids of processes whose command line holds all of `parts`. */
function processesWith(...parts: string[]): number[] {
  const pids: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const args = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
      if (parts.every((p) => args.includes(p))) pids.push(Number(d));
    } catch { /* gone */ }
  }
  return pids;
}

describe.skipIf(process.platform !== 'linux')('a tap that lives on after a burst', () => {
  it('has another process copy SQLite\'s log and remove its logs, exits at once, and loses nothing', async () => {
    const db = join(tmp.dir, 'alive.db');
    const tap = start(['--db', db, '--', node, agent], { readStdout: false });
    let tail = '';
    tap.child.stdout!.on('data', (b: Buffer) => { tail = (tail + b.toString('latin1')).slice(-256); });
    for (const line of [
      rpc({ id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }),
      rpc({ id: 2, method: 'session/new', params: { cwd: '/', mcpServers: [] } }),
      rpc({ id: 3, method: 'session/prompt', params: { sessionId: 's1', prompt: [{ type: 'text', text: 'go' }] } }),
    ]) tap.child.stdin!.write(line + '\n');
    await until('the burst forwarded', () => tail.includes('"id":3'), 60_000);
    // Once the burst is indexed and the session quiet, its log (more than 16 MiB) is copied by an
    // `index --log-only` of its own, while the tap still runs.
    await until('a process copying the log', () => processesWith('index', '--db', db, '--log-only').length > 0, 30_000, 5);
    await until('the copy done', () => processesWith('index', '--db', db, '--log-only').length === 0, 30_000);
    // And SQLite's log's file emptied, the tap still alive.
    expect(tap.child.exitCode).toBe(null);
    expect(walSize(db)).toBeLessThan(1024 * 1024);
    // The session ends. The tap neither removes its capture log (30 MiB, all indexed) nor SQLite's
    // log's file: the last process to close a removed file frees it, which its exit would wait for.
    // It renames the capture log, and the detached indexer it starts removes both.
    const seen = new Set<string>();
    const watch = setInterval(() => { for (const f of readdirSync(`${db}-captures`)) seen.add(f); }, 2);
    tap.child.stdin!.end();
    const r = await tap.done;
    expect(r.code, r.stderr).toBe(0);
    await until('the logs removed', () => walSize(db) === 0 && readdirSync(`${db}-captures`).length === 0, 30_000);
    clearInterval(watch);
    expect([...seen].some((f) => f.endsWith('.capture.done')), [...seen].join(', ')).toBe(true);
    expect(counts(db)).toEqual({ items: CHUNKS + 6, status: 'complete' });
  });
});
