/**
 * What the bridge gives the editor of a remote agent's notifications: the agent's own bytes, as a
 * stdio tap gives them, in the agent's order among the requests and responses the SDK's client
 * handles. The agent here is a hand-written one (node:http for Streamable HTTP, `ws` for WebSocket),
 * so that it can send what the SDK's own server never writes: spaced JSON, escapes, data split over
 * lines, CR and CRLF line ends, comments, an event cut between writes. The editor is raw pipes.
 */
import { spawn } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { BIN, cli } from '../helpers.js';
import { testScope } from './helpers.js';

const { defer, scope: setUp } = testScope(afterEach);

/** Notifications as an agent may write them; the editor is to get each byte for byte. */
const SPACED = '{"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1", "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "caf\\u00e9 \\"quoted\\""}}}}';
const PLAIN = (n: number) => `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"part ${n}"}}}}`;
const PERMISSION = '{"jsonrpc":"2.0","id":"perm-1","method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t1"},"options":[{"optionId":"ok","name":"OK","kind":"allow_once"}]}}';
const PROMPT_DONE = '{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}';

const INIT = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } };
const NEW = { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/tmp', mcpServers: [] } };
const PROMPT = { jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: 's1', prompt: [{ type: 'text', text: 'hi' }] } };
const ALLOWED = { jsonrpc: '2.0', id: 'perm-1', result: { outcome: { outcome: 'selected', optionId: 'ok' } } };

/** Runs the bridge to `url` as an editor would: sends INIT, NEW, PROMPT in turn, answers the permission request; resolves with every line it read. */
async function editor(db: string, url: string): Promise<{ lines: string[]; code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, '--db', db, '--no-check', '--', url], { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  defer(async () => { child.kill('SIGKILL'); await exited; });
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  const send = (m: object) => child.stdin!.write(`${JSON.stringify(m)}\n`);
  const lines: string[] = [];
  let rest = '';
  child.stdout!.on('data', (b: Buffer) => {
    const parts = (rest + b.toString('utf8')).split('\n');
    rest = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      const id = (JSON.parse(line) as { id?: unknown; method?: string }).id;
      if (id === 0) send(NEW);
      else if (id === 1) send(PROMPT);
      else if (id === 'perm-1') send(ALLOWED);
      else if (id === 2) child.stdin!.end();
    }
  });
  send(INIT);
  // A turn that never ends is a failure, not a hang.
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await exited;
  clearTimeout(timer);
  return { lines, code, stderr };
}

/** A promise and its resolve. */
function later<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** What the editor is to read after `session/new`'s answer: the agent's bytes, in its order. */
const EXPECTED_TURN = [SPACED, PLAIN(1), PLAIN(2), PERMISSION, PLAIN(3), '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"split"}}}}', PROMPT_DONE];

async function recordedA2c(db: string): Promise<string[]> {
  const ex = await cli(['export', 'latest', '--db', db, '--no-redact']);
  expect(ex.code, ex.stderr.toString()).toBe(0);
  return ex.stdout.toString().trim().split('\n').map((l) => JSON.parse(l) as { dir?: string; raw?: string }).filter((i) => i.dir === 'a2c').map((i) => i.raw!.replace(/\n$/, ''));
}

describe('the bridge gives the editor the agent\'s notifications as the agent wrote them', () => {
  it('over Streamable HTTP: spaced JSON, escapes, CRLF, bare CR, comments, data over two lines, an event cut between writes', async () => {
    const { db } = setUp();
    // The SDK's client posts without waiting for its streams to open: what goes on one waits for it.
    const streams = { connection: later<ServerResponse>(), session: later<ServerResponse>() };
    const on = (stream: keyof typeof streams, write: (s: ServerResponse) => void) => void streams[stream].promise.then(write);
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (b: Buffer) => (body += b.toString()));
      req.on('end', () => {
        if (req.method === 'GET') {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          res.flushHeaders();
          streams[req.headers['acp-session-id'] ? 'session' : 'connection'].resolve(res);
          return;
        }
        if (req.method === 'DELETE') {
          res.writeHead(202).end();
          on('session', (st) => st.end());
          on('connection', (st) => st.end());
          return;
        }
        const msg = JSON.parse(body) as { id?: unknown; method?: string };
        if (msg.method === 'initialize') {
          res.writeHead(200, { 'content-type': 'application/json', 'acp-connection-id': 'c1' }).end(JSON.stringify({ jsonrpc: '2.0', id: 0, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } }));
          return;
        }
        res.writeHead(202).end();
        if (msg.method === 'session/new') on('connection', (st) => st.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { sessionId: 's1' } })}\n\n`));
        else if (msg.method === 'session/prompt') {
          on('session', (s) => s.write(`data: ${SPACED}\r\n\r\n: a comment\n\ndata: ${PLAIN(1)}\rid: 7\r\rdata: ${PLAIN(2)}\n\ndata: ${PERMISSION}\n\n`));
        } else if (msg.id === 'perm-1') on('session', (s) => {
          // Data over two lines (compact JSON once joined), an event cut mid-line and between CR and LF.
          s.write(`data: ${PLAIN(3)}\n\ndata: {"jsonrpc":"2.0","method":"session/update",\ndata: "params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"split"}}}}\r\n\r`);
          setTimeout(() => {
            s.write(`\ndata: ${PROMPT_DONE.slice(0, 20)}`);
            setTimeout(() => s.write(`${PROMPT_DONE.slice(20)}\r`), 20);
            setTimeout(() => s.write('\n\r\n'), 40);
          }, 20);
        });
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    defer(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
    const run = await editor(db, `http://127.0.0.1:${(server.address() as AddressInfo).port}/acp`);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.lines.slice(2)).toEqual(EXPECTED_TURN);
    expect(await recordedA2c(db)).toEqual(run.lines);
  });

  it('over WebSocket: each text message as it came, in order among requests and responses', async () => {
    const { db } = setUp();
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((r) => wss.once('listening', () => r()));
    defer(() => new Promise<void>((r) => { for (const c of wss.clients) c.terminate(); wss.close(() => r()); }));
    wss.on('connection', (ws) => {
      ws.on('message', (data) => {
        const msg = JSON.parse(data.toString()) as { id?: unknown; method?: string };
        if (msg.method === 'initialize') ws.send(JSON.stringify({ jsonrpc: '2.0', id: 0, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } }));
        else if (msg.method === 'session/new') ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { sessionId: 's1' } }));
        else if (msg.method === 'session/prompt') for (const m of [SPACED, PLAIN(1), PLAIN(2), PERMISSION]) ws.send(m);
        else if (msg.id === 'perm-1') {
          for (const m of [PLAIN(3), '{"jsonrpc":"2.0","method":"session/update",\n"params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"split"}}}}', PROMPT_DONE]) ws.send(m);
        }
      });
    });
    const run = await editor(db, `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/acp`);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.lines.slice(2)).toEqual(EXPECTED_TURN);
    expect(await recordedA2c(db)).toEqual(run.lines);
  });
});
