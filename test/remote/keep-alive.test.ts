/**
 * Kept-alive connections, where a server closing an idle connection races the client reusing it:
 * - the proxy keeps a client's idle connection open past node's default 5 s, for a client that
 *   reuses it later without reading the Keep-Alive hint (as Go's and OkHttp's clients do);
 * - the proxy and the bridge send a request once more when the agent closed its kept-alive
 *   connection unanswered just as the request went out (the test agent's `--fault close-reused`),
 *   and record that they did; the session goes on.
 * Real binary, the SDK's own server and clients, a real SQLite file.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { cli } from '../helpers.js';
import { parseTranscript } from '../../src/transcript/format.js';
import type { EventItem, Item } from '../../src/wire/frame.js';
import { agentBehindProxy, initialize, newSession, prompt, runClient, startRemoteAgent, testScope, throughBridge } from './helpers.js';

const { defer, scope: setUp } = testScope(afterEach);

async function recordings(db: string): Promise<Item[][]> {
  const list = await cli(['list', '--json', '--db', db]);
  expect(list.code, list.stderr.toString()).toBe(0);
  const out: Item[][] = [];
  for (const r of JSON.parse(list.stdout.toString()) as { id: number }[]) {
    const e = await cli(['export', String(r.id), '--db', db, '--no-redact']);
    expect(e.code, e.stderr.toString()).toBe(0);
    out.push(parseTranscript(e.stdout.toString()).items);
  }
  return out;
}

const transport = (items: Item[]) => items.filter((i): i is EventItem => i.dir === 'event' && i.type === 'transport').map((e) => e.data as Record<string, any>);

/** One request on `socket` and the whole answer (a body of known length, or chunked). */
function exchange(socket: import('node:net').Socket, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = '';
    const onData = (b: Buffer) => {
      got += b.toString();
      const head = got.indexOf('\r\n\r\n');
      const len = /content-length: (\d+)/i.exec(got)?.[1];
      const whole = len !== undefined ? got.length >= head + 4 + Number(len) : got.endsWith('\r\n0\r\n\r\n');
      if (head !== -1 && whole) done(() => resolve(got));
    };
    const onEnd = () => done(() => reject(new Error(`the proxy closed the connection (got ${JSON.stringify(got)})`)));
    const done = (f: () => void) => { socket.off('data', onData); socket.off('end', onEnd); socket.off('close', onEnd); socket.off('error', onEnd); f(); };
    if (socket.readableEnded || socket.destroyed) return onEnd();
    socket.on('data', onData);
    socket.on('end', onEnd);
    socket.on('close', onEnd);
    socket.on('error', onEnd);
    socket.write(request);
  });
}

describe('kept-alive connections', () => {
  it('the proxy keeps a client\'s idle connection past 5 s: a request on it 7 s later is answered', async () => {
    const { db, dir } = setUp();
    const { proxy } = await agentBehindProxy(db, dir, defer);
    const { hostname, port } = new URL(proxy.url);
    const socket = connect(Number(port), hostname);
    defer(() => { socket.destroy(); });
    await new Promise<void>((r, j) => socket.once('connect', r).once('error', j));
    const request = `GET /elsewhere HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`;
    expect(await exchange(socket, request)).toMatch(/^HTTP\/1\.1 404 /);
    // Past node's default keep-alive timeout (5 s, and the second node 20 adds to it), as a client
    // that ignores the Keep-Alive hint may wait.
    await new Promise((r) => setTimeout(r, 7000));
    expect(await exchange(socket, request)).toMatch(/^HTTP\/1\.1 404 /);
  });

  it('the proxy sends a request again when the agent closed its kept-alive connection unanswered, and records it', async () => {
    const { db, dir } = setUp();
    const { proxy } = await agentBehindProxy(db, dir, defer, ['--fault', 'close-reused']);
    const run = await runClient(createHttpStream(proxy.url), async (ctx) => {
      await initialize(ctx);
      const s = await newSession(ctx);
      return (await prompt(ctx, s.sessionId, 'hello')).stopReason;
    });
    expect(run.error).toBeUndefined();
    expect(run.result).toBe('end_turn');
    await new Promise((r) => setTimeout(r, 300));
    expect(await proxy.stop()).toBe(0);
    const meta = (await recordings(db)).flatMap(transport);
    const retried = meta.filter((m) => m.op === 'retried');
    expect(retried, JSON.stringify(meta)).toHaveLength(1);
    expect(retried[0]!.message).toMatch(/closed a kept-alive connection/);
    expect(meta.some((m) => m.op === 'error' || m.status === 502)).toBe(false);
  });

  it('the bridge sends a request again when the agent closed its kept-alive connection unanswered, and records it', async () => {
    const { db, dir } = setUp();
    const agent = await startRemoteAgent(dir, ['--fault', 'close-reused']);
    defer(() => agent.stop());
    const run = await throughBridge(db, agent.url, async (ctx) => {
      await initialize(ctx);
      const s = await newSession(ctx);
      return (await prompt(ctx, s.sessionId, 'hello')).stopReason;
    });
    expect(run.error).toBeUndefined();
    expect(run.result).toBe('end_turn');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    const [items] = await recordings(db);
    const meta = transport(items!);
    const retried = meta.filter((m) => m.op === 'retried');
    expect(retried, JSON.stringify(meta)).toHaveLength(1);
    expect(retried[0]!.message).toMatch(/closed the connection before answering/);
    expect(meta.some((m) => m.op === 'error')).toBe(false);
  });
});
