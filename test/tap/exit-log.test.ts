/**
 * A tap whose recorder caught up with a burst just before the session ended does not copy SQLite's
 * log into the database on its way out (that copy took most of its exit): it leaves it to a detached
 * indexer, `acp-inspect index`, which copies it. Nothing is lost either way. Real binaries, real
 * pipes, real SQLite.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { makeTmp, rpc, run, writeChunksAgent } from '../reliability/helpers.js';

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
