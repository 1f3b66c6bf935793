/**
 * `acp-inspect proxy`: the SDK's HTTP and WebSocket clients talk to the real binary, which forwards
 * to the SDK's own server hosting the test agent; each connection becomes a recording in a real
 * SQLite file.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';
import { cli } from '../helpers.js';
import { parseTranscript } from '../../src/transcript/format.js';
import type { EventItem, Frame, Item } from '../../src/wire/frame.js';
import { agentBehindProxy, agentLog, closedPort, initialize, newSession, prompt, runClient, startProxy, testScope } from './helpers.js';

const { defer, scope: setUp } = testScope(afterEach);

async function recordings(db: string): Promise<Item[][]> {
  const list = await cli(['list', '--json', '--db', db]);
  expect(list.code, list.stderr).toBe(0);
  const rows = (JSON.parse(list.stdout.toString()) as { id: number }[]).sort((a, b) => a.id - b.id);
  const out: Item[][] = [];
  for (const r of rows) {
    const e = await cli(['export', String(r.id), '--db', db, '--no-redact']);
    expect(e.code, e.stderr).toBe(0);
    out.push(parseTranscript(e.stdout.toString()).items);
  }
  return out;
}

const frames = (items: Item[], dir: 'c2a' | 'a2c') => items.filter((i): i is Frame => i.dir === dir).map((f) => f.json);
const transport = (items: Item[]) => items.filter((i): i is EventItem => i.dir === 'event' && i.type === 'transport').map((e) => e.data as Record<string, any>);
const sorted = (msgs: unknown[]) => msgs.map((m) => JSON.stringify(m)).sort();

describe('acp-inspect proxy between a remote client and a remote agent', () => {
  for (const scheme of ['http', 'ws'] as const) {
    it(`forwards the SDK's ${scheme === 'http' ? 'HTTP' : 'WebSocket'} client unchanged, two sessions to the end, and records the connection`, async () => {
      const { db, dir } = setUp();
      const { agent, proxy } = await agentBehindProxy(db, dir, defer, ['--auth', 'pr0xy-s3cret']);
      expect(proxy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/acp$/);

      const headers = { Authorization: 'Bearer pr0xy-s3cret' };
      const stream = scheme === 'http'
        ? createHttpStream(proxy.url, { headers })
        : createWebSocketStream(proxy.url.replace(/^http/, 'ws'), { headers, WebSocket: WebSocket as never });
      const run = await runClient(stream, async (ctx) => {
        await initialize(ctx);
        const [a, b] = [await newSession(ctx), await newSession(ctx)];
        const [ra, rb] = await Promise.all([prompt(ctx, a.sessionId, 'hello'), prompt(ctx, b.sessionId, 'permission')]);
        return [ra.stopReason, rb.stopReason];
      });
      expect(run.error).toBeUndefined();
      expect(run.result).toEqual(['end_turn', 'end_turn']);
      // The client's connection ends (HTTP: its DELETE) before the proxy stops.
      await new Promise((r) => setTimeout(r, 300));
      expect(await proxy.stop()).toBe(0);

      const seen = agentLog(agent);
      expect(seen.in).toEqual(run.sent);
      expect(sorted(seen.out)).toEqual(sorted(run.received));
      const recs = await recordings(db);
      expect(recs).toHaveLength(1);
      const items = recs[0]!;
      expect(frames(items, 'c2a')).toEqual(run.sent);
      expect(sorted(frames(items, 'a2c'))).toEqual(sorted(run.received));
      const meta = transport(items);
      if (scheme === 'http') {
        const posts = meta.filter((m) => m.op === 'post');
        expect(posts[0]).toMatchObject({ status: 200, rpc: { method: 'initialize' }, requestHeaders: { authorization: '<redacted>' } });
        expect(posts.slice(1).every((p) => p.status === 202)).toBe(true);
        expect(meta.filter((m) => m.op === 'sse-open').map((m) => m.stream).sort()).toEqual(['connection', 'session', 'session']);
        expect(meta.some((m) => m.op === 'delete' && m.status === 202)).toBe(true);
      } else {
        expect(meta.find((m) => m.op === 'ws-open')).toMatchObject({ status: 101, connectionId: expect.any(String), requestHeaders: { authorization: '<redacted>' } });
        expect(meta.some((m) => m.op === 'ws-close')).toBe(true);
      }
      expect(readFileSync(db).includes('pr0xy-s3cret')).toBe(false);
      // The protocol rules and the transport rules find nothing wrong with the SDK on both ends.
      const check = await cli(['check', '1', '--db', db, '--json']);
      const findings = check.stdout.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { rule: string; severity: string });
      expect(findings.filter((f) => f.severity === 'error' || f.rule.startsWith('transport-')), check.stdout.toString()).toEqual([]);
    });
  }

  it('a session stream the agent ends mid-turn: the SDK\'s client reopens it through the proxy, recorded as opened again, no transport rule flags it', async () => {
    const { db, dir } = setUp();
    const { agent, proxy } = await agentBehindProxy(db, dir, defer);
    const run = await runClient(createHttpStream(proxy.url), async (ctx) => {
      await initialize(ctx);
      const s = await newSession(ctx);
      let dropped: unknown;
      try { await prompt(ctx, s.sessionId, 'drop stream'); } catch (e) { dropped = e; }
      return { dropped, again: (await prompt(ctx, s.sessionId, 'hello')).stopReason };
    });
    expect(run.error).toBeUndefined();
    expect(run.result?.dropped).toMatchObject({ code: -32603 });
    expect(run.result?.again).toBe('end_turn');
    await new Promise((r) => setTimeout(r, 300));
    expect(await proxy.stop()).toBe(0);
    const items = (await recordings(db))[0]!;
    const session = transport(items).filter((m) => m.stream === 'session' && (m.op === 'sse-open' || m.op === 'sse-close'));
    expect(session.map((m) => [m.op, m.reason])).toEqual([['sse-open', undefined], ['sse-close', 'ended by the agent'], ['sse-open', 'reopened'], ['sse-close', 'closed by the client']]);
    const check = await cli(['check', '1', '--db', db, '--json']);
    const findings = check.stdout.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { rule: string; severity: string });
    expect(findings.filter((f) => f.rule.startsWith('transport-')), check.stdout.toString()).toEqual([]);
    // The SDK's client failed the first turn itself when its stream ended (that error never crossed
    // the wire): the second prompt is no prompt while a turn runs, and nothing is an error.
    expect(findings.filter((f) => f.severity === 'error').map((f) => f.rule), check.stdout.toString()).toEqual([]);
  });

  it('a client that sends the wrong Acp-Session-Id is flagged at its POST', async () => {
    const { db, dir } = setUp();
    const { proxy } = await agentBehindProxy(db, dir, defer);
    // A hand-written client: the SDK's would never send it.
    const post = (body: unknown, headers: Record<string, string> = {}) => fetch(proxy.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const init = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: 'hand', version: '1' } } });
    const conn = { 'acp-connection-id': init.headers.get('acp-connection-id')! };
    await init.text();
    const events = (await fetch(proxy.url, { headers: { accept: 'text/event-stream', ...conn } })).body!.getReader();
    await (await post({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/tmp', mcpServers: [] } }, conn)).text();
    let text = '';
    while (!/"id":1,/.test(text)) text += new TextDecoder().decode((await events.read()).value);
    const sessionId = /"sessionId":"([^"]+)"/.exec(text)![1]!;
    const wrong = await post({ jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'hi' }] } }, { ...conn, 'acp-session-id': 'not-the-session' });
    await wrong.text();
    await events.cancel();
    await (await fetch(proxy.url, { method: 'DELETE', headers: conn })).text();
    expect(await proxy.stop()).toBe(0);

    const [items] = await recordings(db);
    const check = await cli(['check', '1', '--db', db, '--json']);
    const found = check.stdout.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { rule: string; seq: number; message: string }).filter((f) => f.rule.startsWith('transport-'));
    expect(found.map((f) => [f.rule, f.message])).toEqual([['transport-session-header', `POST of session/prompt for session ${sessionId} with Acp-Session-Id not-the-session`]]);
    const event = items!.find((i) => i.seq === found[0]!.seq) as EventItem;
    expect(event.data).toMatchObject({ op: 'post', rpc: { id: 2, method: 'session/prompt' }, sessionId: 'not-the-session' });
  });

  it('stops reading the agent while a WebSocket client does not read (memory bounded), and reads on once it does', async () => {
    const { db, dir } = setUp();
    const { agent, proxy } = await agentBehindProxy(db, dir, defer);
    const ws = new WebSocket(proxy.url.replace(/^http/, 'ws'));
    defer(() => { ws.terminate(); });
    const FLOOD = 30_000; // 30 MiB of 1 KiB updates: more than the loopback connection's buffers hold
    let updates = 0;
    let done!: () => void;
    const turnEnded = new Promise<void>((r) => { done = r; });
    const answers = new Map<number, any>();
    let answered!: (id: number) => void;
    ws.on('message', (data) => {
      const msg = JSON.parse(data.toString());
      if (msg.method === 'session/update') updates++;
      else if (msg.id === 2) done();
      else if (msg.id !== undefined) { answers.set(msg.id, msg); answered(msg.id); }
    });
    const request = (id: number, method: string, params: unknown) => new Promise<any>((r) => {
      answered = (got) => { if (got === id) r(answers.get(id)); };
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
    await new Promise((r) => ws.once('open', r));
    await request(0, 'initialize', { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: 'slow-reader', version: '1' } });
    const { result: { sessionId } } = await request(1, 'session/new', { cwd: '/tmp', mcpServers: [] });
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: `flood ${FLOOD}` }] } }));
    // The client stops reading; the proxy must notice (its recording says so) before the client reads again.
    ws.pause();
    const recorded = async (): Promise<Item[]> => {
      const e = await cli(['export', '1', '--db', db, '--no-redact']);
      return e.code === 0 ? parseTranscript(e.stdout.toString()).items : [];
    };
    let items: Item[] = [];
    for (let i = 0; i < 300 && !transport(items).some((m) => m.op === 'ws-paused'); i++) {
      await new Promise((r) => setTimeout(r, 200));
      items = await recorded();
    }
    const paused = transport(items).find((m) => m.op === 'ws-paused');
    expect(paused, 'the proxy never paused the agent').toMatchObject({ transport: 'ws', reason: 'the client stopped reading' });
    expect(paused!.bytes).toBeGreaterThan(1024 * 1024);
    ws.resume();
    await turnEnded;
    expect(updates).toBe(FLOOD);
    ws.close();
    await new Promise((r) => ws.once('close', r));
    expect(await proxy.stop()).toBe(0);

    // In the recording: the pause, then only what the proxy had already read from the agent (far
    // from the whole flood) until it resumed; every update relayed in the end.
    items = (await recordings(db))[0]!;
    const seqOf = (op: string) => items.find((i) => i.dir === 'event' && i.type === 'transport' && (i as EventItem).data.op === op)!.seq;
    const [pausedAt, resumedAt] = [seqOf('ws-paused'), seqOf('ws-resumed')];
    expect(resumedAt).toBeGreaterThan(pausedAt);
    const whilePaused = items.filter((i) => i.dir === 'a2c' && i.seq > pausedAt && i.seq < resumedAt).length;
    expect(whilePaused).toBeLessThan(FLOOD / 10);
    expect(items.filter((i) => i.dir === 'a2c').length).toBe(FLOOD + 3);
  });

  it('passes a refusal through as the agent gave it (401), and records it', async () => {
    const { db, dir } = setUp();
    const { proxy } = await agentBehindProxy(db, dir, defer, ['--auth', 'right']);
    const res = await fetch(proxy.url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer wrong' }, body: '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}' });
    expect(res.status).toBe(401);
    expect(await res.text()).toBe('Unauthorized');
    expect(await proxy.stop()).toBe(0);
    const [items] = await recordings(db);
    expect(transport(items!).find((m) => m.op === 'post')).toMatchObject({ status: 401, rpc: { method: 'initialize' } });
  });

  it('answers 502 with one line when the agent cannot be reached, and records why', async () => {
    const { db } = setUp();
    const proxy = await startProxy(db, `http://127.0.0.1:${await closedPort()}/acp`);
    defer(() => proxy.stop());
    const res = await fetch(proxy.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}' });
    expect(res.status).toBe(502);
    expect((await res.text()).trim()).toMatch(/^acp-inspect proxy: cannot reach the remote agent at http:\/\/127\.0\.0\.1:\d+\/acp: connection refused/);
    expect(await proxy.stop()).toBe(0);
    const [items] = await recordings(db);
    expect(transport(items!).some((m) => m.op === 'error' && /connection refused/.test(m.message))).toBe(true);
  });

  it('refuses a --listen it cannot use, and a --to that is not a URL, with one line', async () => {
    const bad = await cli(['proxy', '--listen', 'nowhere', '--to', 'http://127.0.0.1:1/acp']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('acp-inspect: --listen needs HOST:PORT (PORT 0 for a free one), got "nowhere"');
    const to = await cli(['proxy', '--listen', '127.0.0.1:0', '--to', 'my-agent']);
    expect(to.code).toBe(2);
    expect(to.stderr.trim()).toBe('acp-inspect: --to needs the remote agent\'s http(s):// or ws(s):// URL, got "my-agent"');
  });
});
