#!/usr/bin/env node
// A remote ACP agent for tests: the protocol SDK's own server transport (AcpServer, Streamable HTTP
// and WebSocket on one /acp endpoint, through the SDK's Node adapter) hosting an agent written with
// the SDK, shaped like the SDK's example agent: it streams updates, asks permission, and on demand
// misbehaves. Prints its http:// URL on stdout once listening.
//   --auth TOKEN   requests without "Authorization: Bearer TOKEN" get 401 (HTTP) or a refused upgrade
//   --log FILE     every JSON-RPC message as the agent got and sent it, one JSON line each ({dir, msg})
//   --fault status-200   answer every POST the SDK answers 202 Accepted with 200 OK instead
//   --fault close-reused the first request that comes on a kept-alive connection after its first
//                        is not answered: the connection is closed (as a server whose keep-alive
//                        timeout ends just as its client sends on the idle connection)
//   --fault session-conflict  the first GET of a session's SSE stream is refused 409, as the SDK's server
//                        refuses a second receiver of a stream ("Outbound stream already has an active receiver")
//   --fault session-post-500  the first POST naming a session (Acp-Session-Id: a prompt, say) is answered
//                        500 "boom" (the agent never sees it)
// Prompt texts: "permission" asks permission first; "drop" streams one update and then the process
// dies (every connection and stream drops mid-turn); "drop stream" streams one update and then ends
// that session's SSE stream (the HTTP response, cleanly: the connection and its other streams go on)
// and never answers the turn; "break stream" likewise
// but breaks it (its socket destroyed, the chunked body left unfinished); "flood N" streams N updates of 1 KiB; "ping" ends the
// turn at once (a bare round trip); any other text streams three updates.
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';
import * as acp from '@agentclientprotocol/sdk';
import { AcpServer } from '@agentclientprotocol/sdk/experimental/server';
import { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } from '@agentclientprotocol/sdk/experimental/node';

const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
};
const token = arg('--auth');
const logFile = arg('--log');
const fault = arg('--fault');
const log = (dir, msg) => { if (logFile) appendFileSync(logFile, `${JSON.stringify({ dir, msg })}\n`); };

const sessions = new Map();
/** The update after which a session's SSE stream is ended ("drop stream"). */
const DROP_STREAM_MARK = 'about to drop the stream';
/** The update after which a session's SSE stream is broken ("break stream"). */
const BREAK_STREAM_MARK = 'about to break the stream';
const update = (ctx, sessionId, text) => ctx.client.notify(acp.methods.client.session.update, {
  sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
});

const app = acp
  .agent({ name: 'remote-test-agent' })
  .onRequest(acp.methods.agent.initialize, () => ({ protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: { loadSession: false } }))
  .onRequest(acp.methods.agent.session.new, (ctx) => {
    const sessionId = crypto.randomUUID();
    sessions.set(sessionId, { cwd: ctx.params.cwd });
    return { sessionId };
  })
  .onRequest(acp.methods.agent.session.prompt, async (ctx) => {
    const { sessionId, prompt } = ctx.params;
    const text = prompt.map((b) => (b.type === 'text' ? b.text : '')).join('');
    if (text === 'permission') {
      const answer = await ctx.client.request(acp.methods.client.session.requestPermission, {
        sessionId,
        toolCall: { toolCallId: 'call_1', title: 'Write a file', kind: 'edit', status: 'pending' },
        options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }, { optionId: 'reject', name: 'Reject', kind: 'reject_once' }],
      });
      await update(ctx, sessionId, `permission: ${answer.outcome.outcome === 'selected' ? answer.outcome.optionId : answer.outcome.outcome}`);
      return { stopReason: 'end_turn' };
    }
    if (text === 'drop') {
      await update(ctx, sessionId, 'about to drop');
      setTimeout(() => process.kill(process.pid, 'SIGKILL'), 50);
      await new Promise(() => {});
    }
    if (text === 'drop stream' || text === 'break stream') {
      // The session's SSE response ends (or breaks) once it has written this update (see the server below).
      await update(ctx, sessionId, text === 'drop stream' ? DROP_STREAM_MARK : BREAK_STREAM_MARK);
      await new Promise(() => {});
    }
    if (text === 'ping') return { stopReason: 'end_turn' };
    const flood = /^flood (\d+)$/.exec(text);
    if (flood) {
      const chunk = 'x'.repeat(1024);
      for (let i = 0; i < Number(flood[1]); i++) await update(ctx, sessionId, chunk);
      return { stopReason: 'end_turn' };
    }
    for (const part of ['Hello', ' from', ` ${sessions.get(sessionId)?.cwd ?? 'nowhere'}`]) await update(ctx, sessionId, part);
    return { stopReason: 'end_turn' };
  })
  .onNotification(acp.methods.agent.session.cancel, () => {});

/** The agent, with every message it gets and sends logged (--log). */
const agent = {
  connect(stream, options) {
    const inbound = new TransformStream({ transform(msg, c) { log('in', msg); c.enqueue(msg); } });
    const outbound = new TransformStream({ transform(msg, c) { log('out', msg); c.enqueue(msg); } });
    void stream.readable.pipeTo(inbound.writable).catch(() => {});
    void outbound.readable.pipeTo(stream.writable).catch(() => {});
    return app.connect({ readable: inbound.readable, writable: outbound.writable }, options);
  },
};

const server = new AcpServer({ agent });
const handle = createNodeHttpHandler(server);
const wss = new WebSocketServer({ noServer: true });
const upgrade = createNodeWebSocketUpgradeHandler(server, wss);
const authorized = (req) => token === undefined || req.headers.authorization === `Bearer ${token}`;
const isAcp = (req) => new URL(req.url ?? '/', 'http://localhost').pathname === '/acp';

/** Requests seen per connection, and whether close-reused has closed one yet. */
const served = new WeakMap();
let closedReused = false;
/** Whether session-conflict has refused a session's stream yet. */
let conflicted = false;
/** Whether session-post-500 has refused a POST yet. */
let refusedPrompt = false;

const http = createServer((req, res) => {
  const n = served.get(req.socket) ?? 0;
  served.set(req.socket, n + 1);
  if (fault === 'close-reused' && n > 0 && !closedReused) {
    closedReused = true;
    req.socket.destroy();
    return;
  }
  if (!isAcp(req)) { res.writeHead(404).end('Not Found'); return; }
  if (!authorized(req)) { res.writeHead(401, { 'Content-Type': 'text/plain' }).end('Unauthorized'); return; }
  if (fault === 'session-conflict' && req.method === 'GET' && req.headers['acp-session-id'] && !conflicted) {
    conflicted = true;
    res.writeHead(409, { 'Content-Type': 'text/plain' }).end('Outbound stream already has an active receiver');
    return;
  }
  if (fault === 'session-post-500' && req.method === 'POST' && req.headers['acp-session-id'] && !refusedPrompt) {
    refusedPrompt = true;
    req.resume();
    req.on('end', () => res.writeHead(500, { 'Content-Type': 'text/plain' }).end('boom'));
    return;
  }
  if (req.method === 'GET' && req.headers['acp-session-id']) endStreamAfterMark(res);
  if (fault === 'status-200' && req.method === 'POST') {
    const writeHead = res.writeHead;
    res.writeHead = function (status, ...rest) { return writeHead.call(this, status === 202 ? 200 : status, ...rest); };
  }
  handle(req, res);
});
/** A session's SSE response ends just after it wrote the "drop stream" update, and breaks after the "break stream" one. */
function endStreamAfterMark(res) {
  const write = res.write;
  res.write = function (chunk, ...rest) {
    const ok = write.call(this, chunk, ...rest);
    const text = Buffer.from(chunk).toString('utf8');
    if (text.includes(DROP_STREAM_MARK)) res.end();
    else if (text.includes(BREAK_STREAM_MARK)) res.socket?.end(() => res.socket?.destroy());
    return ok;
  };
}
http.on('upgrade', (req, socket, head) => {
  if (!isAcp(req) || !authorized(req)) {
    socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    return;
  }
  upgrade(req, socket, head);
});
http.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${http.address().port}/acp\n`);
});
const stop = () => { http.closeAllConnections?.(); http.close(() => process.exit(0)); setTimeout(() => process.exit(0), 500).unref(); };
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// Started in a process group of its own (the tests end it by group), so a test run killed from outside
// could not end it: it ends itself once the process that started it is gone.
const parent = process.ppid;
setInterval(() => { if (process.ppid !== parent) stop(); }, 500).unref();
