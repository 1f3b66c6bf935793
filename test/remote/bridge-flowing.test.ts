/**
 * The bridge records a remote agent's message before the editor has it, and its writes to the
 * editor do not wait: a stream the editor reads more slowly than it arrives is recorded ahead of the
 * editor. The recorder counts what the editor has not read yet as traffic still arriving, and leaves
 * it in the capture log until the editor has it all (indexing then competed with the editor reading
 * it). Order of events, not timings: an editor that reads nothing for a while, then everything; the
 * stream is not indexed while it is unread, and is whole once read. Real binary, real pipes, the
 * SDK's own server, a real SQLite file.
 */
import { existsSync, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { waitForIndexers } from '../helpers.js';
import { rawBridge, startRemoteAgent, testScope } from './helpers.js';

const { defer, scope: setUp } = testScope(afterEach);

const UPDATES = 3000;

/** The session/update items stored so far in the latest recording (0 before there is one). */
function storedUpdates(db: string): number {
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return (d.prepare(`SELECT count(*) AS n FROM items WHERE recording_id = (SELECT max(id) FROM recordings) AND method = 'session/update'`).get() as { n: number }).n;
  } finally {
    d.close();
  }
}

describe('the bridge, an editor reading slowly', () => {
  it('leaves the stream unindexed while the editor has not read it, and stores it whole once read', async () => {
    const { db, dir } = setUp();
    const agent = await startRemoteAgent(dir);
    defer(() => agent.stop());
    const { child, exited, lines, until, send } = rawBridge(db, agent.url, [], defer);
    const answer = (id: number) => (l: string) => l.startsWith(`{"jsonrpc":"2.0","id":${id},`);

    send({ id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    await until(answer(0));
    send({ id: 1, method: 'session/new', params: { cwd: '/tmp', mcpServers: [] } });
    await until(answer(1));
    const sessionId = (JSON.parse(lines.find(answer(1))!) as { result: { sessionId: string } }).result.sessionId;

    // The editor stops reading, and the agent streams about 3 MiB: far more than a pipe holds.
    child.stdout!.pause();
    send({ id: 2, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: `flood ${UPDATES}` }] } });
    // Until the agent's log says it sent the turn's answer: the whole stream is in the bridge then.
    const sentAll = async () => {
      for (;;) {
        if (existsSync(agent.log) && readFileSync(agent.log, 'utf8').includes('"stopReason"')) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await sentAll();
    // The recorder looks at the log every 20 ms: a second is fifty looks at a log that no longer grows.
    await new Promise((r) => setTimeout(r, 1000));
    const whileUnread = storedUpdates(db);
    expect(lines.filter((l) => l.includes('"session/update"')).length).toBeLessThan(UPDATES / 2);
    // What the editor never read is not indexed (the start of the stream, before the pipe filled, may be).
    expect(whileUnread).toBeLessThan(UPDATES / 2);

    child.stdout!.resume();
    await until(answer(2));
    expect(lines.filter((l) => l.includes('"session/update"'))).toHaveLength(UPDATES);
    child.stdin!.end();
    expect(await exited).toBe(0);
    waitForIndexers(dir);
    expect(storedUpdates(db)).toBe(UPDATES);
  });
});
