/**
 * `acp-inspect replay --as agent REF --listen HOST:PORT`: a remote recording (made through the
 * bridge from the test agent behind the SDK's server) replayed by the real binary as a mock remote
 * agent, driven by the SDK's own HTTP and WebSocket clients, each connection from the start.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import WebSocket from 'ws';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';
import { BIN, cli } from '../helpers.js';
import { initialize, newSession, prompt, runClient, startRemoteAgent, testScope, throughBridge } from './helpers.js';

const { defer, scope: setUp } = testScope(afterEach);

/** The texts of the agent_message_chunk updates a client got, in order. */
const chunks = (received: unknown[]) => received
  .filter((m): m is { method: string; params: { update: { sessionUpdate: string; content: { text: string } } } } => (m as { method?: string }).method === 'session/update')
  .map((m) => m.params.update.content.text);

describe('replay --as agent --listen: a remote recording as a mock remote agent', () => {
  it('serves the recorded session to the SDK\'s HTTP client and its WebSocket client, each connection from the start', async () => {
    const { db, dir } = setUp();
    const agent = await startRemoteAgent(dir);
    defer(() => agent.stop());
    const script = async (ctx: Parameters<Parameters<typeof runClient>[1]>[0]) => {
      await initialize(ctx);
      const s = await newSession(ctx);
      return { sessionId: s.sessionId, stop: (await prompt(ctx, s.sessionId, 'hello')).stopReason };
    };
    const recorded = await throughBridge(db, agent.url, script);
    expect(recorded.code, recorded.stderr).toBe(0);
    await agent.stop();

    const mock = spawn(process.execPath, [BIN, 'replay', '--as', 'agent', '1', '--db', db, '--listen', '127.0.0.1:0', '--strict'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    mock.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const exited = new Promise<number | null>((r) => mock.once('close', (code) => r(code)));
    defer(async () => { if (mock.exitCode === null) mock.kill('SIGKILL'); await exited; });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      mock.once('close', () => reject(new Error(`replay exited before listening: ${stderr}`)));
      mock.stdout.on('data', (b: Buffer) => {
        out += b.toString();
        if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
      });
    });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/acp$/);

    for (const stream of [createHttpStream(url), createWebSocketStream(url.replace(/^http/, 'ws'), { WebSocket: WebSocket as never })]) {
      const run = await runClient(stream, script);
      expect(run.error).toBeUndefined();
      // The recorded session, as the agent gave it: its session id, its updates, its stop reason.
      expect(run.result).toEqual(recorded.result);
      expect(chunks(run.received)).toEqual(chunks(recorded.received));
      expect(chunks(run.received)).toEqual(['Hello', ' from', ' /tmp']);
    }
    // Each connection matched the recording (--strict: a divergence would exit 1).
    mock.kill('SIGTERM');
    expect(await exited, stderr).toBe(0);
  });

  it('refuses --listen where it does not apply, and a --listen it cannot use, with one line', async () => {
    const { db } = setUp();
    const client = await cli(['replay', '--as', 'client', 'x.jsonl', '--listen', '127.0.0.1:0', '--', 'node', 'agent.js']);
    expect(client.code).toBe(2);
    expect(client.stderr.trim()).toBe('acp-inspect: --listen only applies to replay --as agent');
    const bad = await cli(['replay', '--as', 'agent', 'x.jsonl', '--db', db, '--listen', 'nowhere']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('acp-inspect: --listen needs HOST:PORT (PORT 0 for a free one), got "nowhere"');
  });
});
