/**
 * The bridge's recording is durable before the editor has a message: a tap killed (SIGKILL) in the
 * middle of a remote agent's flood leaves in its capture log every line the editor read, byte for
 * byte and in order, and the next opener of the database makes them the recording. The bridge
 * writes the log a batch at a time, so this is what says the batch goes into the log before its
 * messages go to the editor. Real binary, real pipes, the SDK's own server, a real SQLite file.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../helpers.js';
import { rawBridge, startRemoteAgent, testScope } from './helpers.js';

const { defer, scope: setUp } = testScope(afterEach);

describe('the bridge killed mid-stream', () => {
  for (const scheme of ['http', 'ws'] as const) {
    it(`over ${scheme}: the recording holds every line the editor read, byte-exact and in order`, async () => {
      const { db, dir } = setUp();
      const agent = await startRemoteAgent(dir);
      defer(() => agent.stop());
      const target = scheme === 'http' ? agent.url : agent.url.replace(/^http/, 'ws');
      const { child, exited, lines, until, send } = rawBridge(db, target, ['--no-check'], defer);

      send({ id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
      await until((l) => l.startsWith('{"jsonrpc":"2.0","id":0,'));
      send({ id: 1, method: 'session/new', params: { cwd: '/tmp', mcpServers: [] } });
      await until((l) => l.startsWith('{"jsonrpc":"2.0","id":1,'));
      const sessionId = (JSON.parse(lines.find((l) => l.startsWith('{"jsonrpc":"2.0","id":1,'))!) as { result: { sessionId: string } }).result.sessionId;
      send({ id: 2, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'flood 200000' }] } });
      // Killed once the editor has read a good part of the stream, while the rest still flows.
      let updates = 0;
      await until((l) => l.includes('"session/update"') && ++updates === 3000);
      child.kill('SIGKILL');
      await exited;
      expect(lines.some((l) => l.startsWith('{"jsonrpc":"2.0","id":2,'))).toBe(false);

      // The next opener indexes what the killed tap left in its capture log.
      const ex = await cli(['export', 'latest', '--db', db, '--no-redact']);
      expect(ex.code, ex.stderr.toString()).toBe(0);
      const items = ex.stdout.toString().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(items[0]!.status).toBe('interrupted');
      const a2c = items.slice(1).filter((i) => i.dir === 'a2c').map((i) => i.raw as string);
      expect(a2c.length).toBeGreaterThanOrEqual(lines.length);
      expect(a2c.slice(0, lines.length)).toEqual(lines);
    });
  }
});
