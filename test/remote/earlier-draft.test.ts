/**
 * Remote agents on an earlier draft's header model (Goose's Streamable HTTP pilot names the connection
 * with Acp-Session-Id, others with X-Acp-Connection-Id; neither sends the RFD's Acp-Connection-Id):
 * `acp-inspect proxy` keeps such a connection one recording, records the messages of a POST answered
 * with an event stream, and the transport rules say once that the agent gave no Acp-Connection-Id
 * instead of flagging every request after it. The bridge, which speaks the RFD's model through the
 * protocol SDK's client, refuses such an agent in one line that names the proxy.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { cli, PEERS } from '../helpers.js';
import { parseTranscript } from '../../src/transcript/format.js';
import type { EventItem, Frame, Item } from '../../src/wire/frame.js';
import { initialize, startProxy, startRemoteAgent, testScope, throughBridge } from './helpers.js';

const AGENT = join(PEERS, 'earlier-draft-agent.mjs');
const { defer, scope: setUp } = testScope(afterEach);

type Msg = Record<string, unknown>;

/** The messages of an SSE body's text. */
const eventsOf = (text: string): Msg[] => text.split(/\r?\n\r?\n/).map((b) => b.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n')).filter(Boolean).map((d) => JSON.parse(d) as Msg);

/**
 * A client of the earlier model, written with fetch: initialize, the connection's GET stream (unless
 * answers come in the POSTs' own bodies), a session, a prompt, and DELETE; every message it sent and got.
 */
async function earlierClient(url: string, header: string, answers: 'get' | 'post' | 'json'): Promise<{ sent: Msg[]; received: Msg[]; stopReason: unknown }> {
  const answersInPost = answers === 'post';
  const sent: Msg[] = [];
  const received: Msg[] = [];
  let id = '';
  const named = () => (header === 'none' ? {} : { [header]: id });
  const post = (msg: Msg) => {
    sent.push(msg);
    return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(id ? named() : {}) }, body: JSON.stringify(msg) });
  };
  const init = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
  expect(init.status).toBe(200);
  id = header === 'none' ? 'the URL' : init.headers.get(header) ?? '';
  expect(id).not.toBe('');
  received.push(await init.json() as Msg);

  const waiting = new Map<unknown, (m: Msg) => void>();
  /** The updates got on the GET stream, and a wait for the next (answers in JSON: the answer may come first). */
  let updates = 0;
  let updated = () => {};
  const ac = new AbortController();
  let streamed: Promise<void> = Promise.resolve();
  if (!answersInPost) {
    const get = await fetch(url, { headers: { accept: 'text/event-stream', ...named() }, signal: ac.signal });
    expect(get.status).toBe(200);
    streamed = (async () => {
      const dec = new TextDecoder();
      let text = '';
      try {
        for await (const chunk of get.body as unknown as AsyncIterable<Uint8Array>) {
          text += dec.decode(chunk, { stream: true });
          const end = text.lastIndexOf('\n\n');
          if (end === -1) continue;
          for (const m of eventsOf(text.slice(0, end + 2))) {
            received.push(m);
            waiting.get(m.id)?.(m);
            if (m.method === 'session/update') {
              updates++;
              updated();
            }
          }
          text = text.slice(end + 2);
        }
      } catch { /* aborted at the end */ }
    })();
  }
  const request = async (n: number, method: string, params: Msg): Promise<Msg> => {
    const answered = new Promise<Msg>((r) => waiting.set(n, r));
    const r = await post({ jsonrpc: '2.0', id: n, method, params });
    if (answers === 'json') {
      expect(r.status).toBe(200);
      const m = await r.json() as Msg;
      received.push(m);
      return m;
    }
    if (!answersInPost) {
      expect(r.status).toBe(202);
      await r.arrayBuffer();
      return answered;
    }
    expect(r.status).toBe(200);
    const msgs = eventsOf(await r.text());
    received.push(...msgs);
    return msgs.at(-1)!;
  };
  const s = await request(1, 'session/new', { cwd: '/tmp', mcpServers: [] });
  const sessionId = (s.result as { sessionId: string }).sessionId;
  const p = await request(2, 'session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] });
  while (answers === 'json' && updates < 2) await new Promise<void>((r) => { updated = r; });
  const del = await fetch(url, { method: 'DELETE', headers: named() });
  expect(del.status).toBe(200);
  ac.abort();
  await streamed;
  return { sent, received, stopReason: (p.result as { stopReason?: unknown } | undefined)?.stopReason };
}

async function recordingsOf(db: string): Promise<Item[][]> {
  const list = await cli(['list', '--json', '--db', db]);
  expect(list.code, list.stderr).toBe(0);
  const out: Item[][] = [];
  for (const r of (JSON.parse(list.stdout.toString()) as { id: number }[]).sort((a, b) => a.id - b.id)) {
    const e = await cli(['export', String(r.id), '--db', db, '--no-redact']);
    expect(e.code, e.stderr).toBe(0);
    out.push(parseTranscript(e.stdout.toString()).items);
  }
  return out;
}
const sorted = (msgs: unknown[]) => msgs.map((m) => JSON.stringify(m)).sort();

describe('a remote agent on an earlier draft\'s header model', () => {
  const where = { get: 'on the GET stream', post: 'in the POSTs\' own event streams', json: 'in the POSTs\' JSON bodies' };
  for (const [header, answers] of [['Acp-Session-Id', 'get'], ['X-Acp-Connection-Id', 'get'], ['Acp-Session-Id', 'post'], ['none', 'json']] as const) {
    it(`through the proxy: connection named by ${header === 'none' ? 'its URL alone' : header}, answers ${where[answers]}: one recording, every message, one finding for the missing Acp-Connection-Id`, async () => {
      const { db, dir } = setUp();
      const agent = await startRemoteAgent(dir, ['--header', header, ...(answers !== 'get' ? ['--answers', answers] : [])], AGENT);
      defer(() => agent.stop());
      // Named by its URL: the agent's endpoint is a path of the connection's own.
      const to = header === 'none' ? agent.url.replace(/\/acp$/, '/acp/server-1') : agent.url;
      const proxy = await startProxy(db, to);
      defer(() => proxy.stop());
      const run = await earlierClient(proxy.url, header, answers);
      expect(run.stopReason).toBe('end_turn');
      expect(await proxy.stop()).toBe(0);

      // One connection, one recording (not one per request), holding every message both ways.
      const recs = await recordingsOf(db);
      expect(recs).toHaveLength(1);
      const items = recs[0]!;
      expect(items.filter((i): i is Frame => i.dir === 'c2a').map((f) => f.json)).toEqual(run.sent);
      expect(sorted(items.filter((i): i is Frame => i.dir === 'a2c').map((f) => f.json))).toEqual(sorted(run.received));
      const meta = items.filter((i): i is EventItem => i.dir === 'event' && i.type === 'transport').map((e) => e.data as Record<string, unknown>);
      if (answers === 'post') expect(meta.filter((m) => m.op === 'sse-message').every((m) => m.stream === 'post')).toBe(true);
      else expect(meta.filter((m) => m.op === 'sse-message').every((m) => m.stream === 'connection')).toBe(true);

      const check = await cli(['check', '1', '--db', db, '--json']);
      const findings = check.stdout.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { rule: string; severity: string; message: string; seq: number });
      // Said once, at initialize's answer; not at each request after it, nor as a session header error.
      const missing = findings.filter((f) => f.rule === 'transport-connection-id-missing');
      expect(missing, check.stdout.toString()).toHaveLength(1);
      if (header === 'none') expect(missing[0]!.message).not.toContain('the agent names the connection with');
      else expect(missing[0]!.message).toContain(`the agent names the connection with ${header}`);
      expect(findings.filter((f) => f.severity === 'error' && f.rule !== 'transport-connection-id-missing'), check.stdout.toString()).toEqual([]);
      expect(findings.filter((f) => f.rule === 'transport-session-header' || f.rule === 'transport-wrong-stream')).toEqual([]);
    });
  }

  it('the bridge refuses it in one line naming the proxy, answers the editor\'s initialize with an error, and exits 1', async () => {
    const { db, dir } = setUp();
    const agent = await startRemoteAgent(dir, [], AGENT);
    defer(() => agent.stop());
    const run = await throughBridge(db, agent.url, (ctx) => initialize(ctx));
    expect(run.code).toBe(1);
    expect(run.error).toBeDefined();
    const lines = run.stderr.trim().split('\n');
    expect(lines, run.stderr).toHaveLength(1);
    expect(lines[0]).toContain('answered initialize without the Acp-Connection-Id header');
    expect(lines[0]).toContain('acp-inspect proxy');
  });
});
