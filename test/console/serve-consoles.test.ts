/** `serve` lists the consoles running on its database (without their tokens), and forgets one that ended. */
import { afterAll, expect, it } from 'vitest';
import { join } from 'node:path';
import { PEERS, tempDir } from '../helpers.js';
import { startConsole } from './start-console.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { Store } from '../../src/store/store.js';
import type { ConsoleSnapshot, RunningConsoleInfo } from '../../src/console/contract.js';

const tmp = tempDir('acp-inspect-console-list-');
let srv: RunningServer | undefined;
afterAll(async () => {
  await srv?.close();
  tmp.cleanup();
});

it('lists a running console with its command and recording, and not once it has ended', async () => {
  const db = join(tmp.dir, 'db.sqlite');
  Store.open(db).close();
  srv = await startServer({ dbPath: db, port: 0 });
  const list = async () => {
    const res = await fetch(`http://127.0.0.1:${srv!.port}/api/consoles`, { headers: { Authorization: `Bearer ${srv!.token}` } });
    return (await res.json()) as RunningConsoleInfo[];
  };
  expect(await list()).toEqual([]);
  const agent = join(PEERS, 'console-agent.mjs');
  const c = await startConsole(['--db', db, '--cwd', tmp.dir, '--', process.execPath, agent]);
  try {
    let status = (await c.api<ConsoleSnapshot>('/api/console')).json.status;
    for (let i = 0; i < 100 && status.recordingId === null; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await c.api<ConsoleSnapshot>('/api/console')).json.status;
    }
    let listed = await list();
    for (let i = 0; i < 50 && listed[0]?.recordingId !== status.recordingId; i++) {
      await new Promise((r) => setTimeout(r, 100));
      listed = await list();
    }
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ pid: c.child.pid, command: [process.execPath, agent], cwd: tmp.dir, recordingId: status.recordingId, address: `${c.origin}/console` });
    expect(JSON.stringify(listed)).not.toContain(c.token);
  } finally {
    expect(await c.stop()).toBe(0);
  }
  expect(await list()).toEqual([]);
});
