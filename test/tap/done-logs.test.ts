/**
 * A tap leaves its capture log of 16 MiB or more, all indexed, renamed `….capture.done` for the
 * detached indexer it starts to remove once it is gone (its removal costs the last process holding
 * it). When that indexer did not come (it could not start, or was stopped), the next acp-inspect
 * that opens the database starts one that removes it: not only `acp-inspect index`.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTmp, rpc, run, until, writeChunksAgent } from '../reliability/helpers.js';

const tmp = makeTmp();
afterAll(() => tmp.cleanup());
/** 20,000 chunks of about 1 KiB: a capture log past the 16 MiB a tap leaves for another process to remove. */
const CHUNKS = 20_000;
const agent = writeChunksAgent(tmp.dir, 'burst', CHUNKS);

const doneLogs = (db: string) => readdirSync(`${db}-captures`).filter((f) => f.endsWith('.capture.done'));

describe('an indexed capture log a tap left to remove', () => {
  it('is removed by the indexer the next command starts, when the tap\'s own did not come', async () => {
    const db = join(tmp.dir, 'done.db');
    const r = await run(['--db', db, '--', process.execPath, agent], { env: { ACP_INSPECT_NO_DETACHED_INDEXER: '1' }, input: [
      rpc({ id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }) + '\n',
      rpc({ id: 2, method: 'session/new', params: { cwd: '/', mcpServers: [] } }) + '\n',
      rpc({ id: 3, method: 'session/prompt', params: { sessionId: 's1', prompt: [{ type: 'text', text: 'go' }] } }) + '\n',
    ] });
    expect(r.code, r.stderr).toBe(0);
    expect(doneLogs(db)).toHaveLength(1);
    const listed = await run(['list', '--db', db]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.toString()).toMatch(/complete/);
    await until('the indexed log removed', () => doneLogs(db).length === 0, 30_000, 100);
  });
});
