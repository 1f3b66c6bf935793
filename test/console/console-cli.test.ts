/** `acp-inspect console` on bad input: one line naming the problem and the fix, no stack trace; an agent that cannot start is shown, not hidden. */
import { afterAll, expect, it } from 'vitest';
import { join } from 'node:path';
import { cli, tempDir } from '../helpers.js';
import { startConsole } from './start-console.js';
import type { ConsoleSnapshot } from '../../src/console/contract.js';

const tmp = tempDir('acp-inspect-console-cli-');
afterAll(() => tmp.cleanup());

it('refuses a missing agent command, a --cwd that is not a folder and a bad port in one line', async () => {
  const db = join(tmp.dir, 'db.sqlite');
  for (const [args, said] of [
    [['console', '--no-open', '--db', db], /^acp-inspect: no agent command; put it after --/],
    [['console', '--no-open', '--db', db, '--cwd', join(tmp.dir, 'nope'), '--', 'node', 'x.js'], /^acp-inspect: --cwd .*nope is not a folder; pass an existing folder/],
    [['console', '--no-open', '--db', db, '--port', '70000', '--', 'node', 'x.js'], /^acp-inspect: --port must be at most 65535/],
  ] as const) {
    const r = await cli([...args]);
    expect(r.code, r.stderr).not.toBe(0);
    expect(r.stderr).toMatch(said);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  }
});

it('shows an agent that cannot start as exited 127, and refuses to send to it with the fix', async () => {
  const c = await startConsole(['--db', join(tmp.dir, 'db.sqlite'), '--cwd', tmp.dir, '--', join(tmp.dir, 'no-such-agent')]);
  try {
    let snap = (await c.api<ConsoleSnapshot>('/api/console')).json;
    for (let i = 0; i < 100 && snap.status.state === 'running'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      snap = (await c.api<ConsoleSnapshot>('/api/console')).json;
    }
    expect(snap.status).toMatchObject({ state: 'exited', exitCode: 127 });
    const sent = await c.api<{ error: string }>('/api/console/request', { method: 'initialize', params: {} });
    expect(sent.status).toBe(409);
    expect(sent.json.error).toBe('the agent is not running; reconnect to start it again');
    expect(c.stderr()).toContain('cannot start agent');
  } finally {
    expect(await c.stop()).toBe(0);
  }
});
