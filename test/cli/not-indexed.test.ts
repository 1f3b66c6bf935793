/**
 * A recording whose capture log nobody indexes (no indexer may start, and none was run) is not read
 * in part: `export`, `check` and `show` wait while indexing advances, then, once it made no progress
 * for 15 s, refuse with exit 2 and one line saying how much waits and what finishes it. After
 * `acp-inspect index`, the same commands read every frame.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { lockDb, makeTmp, rpc, run } from '../reliability/helpers.js';

const tmp = makeTmp();
afterAll(() => tmp.cleanup());
const env = { ACP_INSPECT_NO_DETACHED_INDEXER: '1' };
const N = 20_000;

describe('a recording whose capture log is not indexed', () => {
  it('is refused with exit 2 rather than read in part, and read whole once indexed', async () => {
    const db = join(tmp.dir, 'left.db');
    const echo = join(tmp.dir, 'echo.cjs');
    (await import('node:fs')).writeFileSync(echo, `let b='';process.stdin.on('data',(d)=>{b+=d;let i;while((i=b.indexOf('\\n'))!==-1){const m=JSON.parse(b.slice(0,i));b=b.slice(i+1);process.stdout.write(JSON.stringify({jsonrpc:'2.0',id:m.id,result:{}})+'\\n');}});`);
    const input = Array.from({ length: N }, (_, i) => rpc({ id: i + 1, method: 'ping', params: { pad: 'p'.repeat(200) } }) + '\n').join('');
    // Another process holds the database's lock through the session, and no indexer may start: the log is left.
    await run(['--db', db, '--', process.execPath, echo], { input: '' });
    const lock = lockDb(db);
    await lock.locked;
    try {
      const tap = await run(['--db', db, '--', process.execPath, echo], { input, env: { ...env, ACP_INSPECT_FINISH_WAIT_MS: undefined } });
      expect(tap.code).toBe(0);
    } finally {
      await lock.release();
    }
    const exp = await run(['export', 'latest', '--db', db], { env });
    expect(exp.code).toBe(2);
    const said = exp.stderr.trim().split('\n');
    expect(said.at(-1)).toMatch(/^acp-inspect: recording 2 cannot be read whole: its indexing made no progress for 15 s \(\d+\.\d MiB of its capture log waiting\); run `acp-inspect index --db .*`, then read it again$/);
    expect(exp.stdout.toString()).toBe('');
    expect((await run(['index', '--db', db], { env })).code).toBe(0);
    const whole = await run(['export', 'latest', '--db', db], { env });
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stdout.toString().split('\n').filter((l) => l.includes('"dir":"c2a"'))).toHaveLength(N);
  });
});
