#!/usr/bin/env node
// A remote ACP agent on an earlier draft's header model of the Streamable HTTP transport, as Goose's
// pilot has it (block/goose#6741): one /acp endpoint; POST initialize answered 200 with the JSON
// response and the connection's id in an Acp-Session-Id header (not the RFD's Acp-Connection-Id);
// every later request names the connection with that header; other POSTs answered 202; the agent's
// messages on the connection's GET SSE stream; DELETE ends the connection. Written without the SDK,
// from that description. Prints its http:// URL on stdout once listening.
//   --header NAME     the header naming the connection (default Acp-Session-Id; X-Acp-Connection-Id, say);
//                     `none`: no header, the URL names the connection (sandbox-agent's /v1/acp/{server}
//                     has it): every path under /acp/ is a connection of its own
//   --answers post    a request's answer (and the updates before it) in its POST's own SSE body, as
//                     MCP's Streamable HTTP has it, instead of on the GET stream
//   --answers json    a request's answer in its POST's own JSON body (200), the updates on the GET
//                     stream (as sandbox-agent has it)
// Prompts: any text streams two updates, then the turn ends.
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';

const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
};
const header = arg('--header') ?? 'Acp-Session-Id';
const inPost = arg('--answers') === 'post';
const inJson = arg('--answers') === 'json';
const byUrl = header === 'none';
/** Connections by id: the GET stream's response once opened, and what waits for it. */
const conns = new Map();

const event = (msg) => `data: ${JSON.stringify(msg)}\n\n`;
const toStream = (c, msg) => {
  if (c.res) c.res.write(event(msg));
  else c.queue.push(event(msg));
};

/** The agent's messages for a request: what it streams first, then its answer. */
function answer(msg) {
  const out = [];
  if (msg.method === 'session/new') out.push({ jsonrpc: '2.0', id: msg.id, result: { sessionId: `sess-${randomUUID()}` } });
  else if (msg.method === 'session/prompt') {
    const sessionId = msg.params?.sessionId;
    for (const text of ['Hello', ' there.']) {
      out.push({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } });
    }
    out.push({ jsonrpc: '2.0', id: msg.id, result: { stopReason: 'end_turn' } });
  } else out.push({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `Method not found: ${msg.method}` } });
  return out;
}

const server = createServer((req, res) => {
  const path = new URL(req.url ?? '/', 'http://agent').pathname;
  if (byUrl ? !path.startsWith('/acp/') : path !== '/acp') return void res.writeHead(404).end();
  const id = byUrl ? path : req.headers[header.toLowerCase()];
  if (req.method === 'GET') {
    const c = conns.get(id);
    if (!c) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    c.res = res;
    for (const e of c.queue.splice(0)) res.write(e);
    req.on('close', () => { if (c.res === res) c.res = null; });
    return;
  }
  if (req.method === 'DELETE') {
    const c = conns.get(id);
    if (!c) return void res.writeHead(404).end();
    conns.delete(id);
    c.res?.end();
    return void res.writeHead(200).end();
  }
  if (req.method !== 'POST') return void res.writeHead(405).end();
  const body = [];
  req.on('data', (b) => body.push(b));
  req.on('end', () => {
    let msg;
    try { msg = JSON.parse(Buffer.concat(body).toString('utf8')); } catch { return void res.writeHead(400).end(); }
    if (msg.method === 'initialize') {
      const cid = byUrl ? path : randomUUID();
      conns.set(cid, { res: null, queue: [] });
      res.writeHead(200, { 'content-type': 'application/json', ...(byUrl ? {} : { [header]: cid }) });
      return void res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: 1, agentCapabilities: { loadSession: false }, authMethods: [] } }));
    }
    const c = conns.get(id);
    if (!c) return void res.writeHead(404).end();
    const isRequest = typeof msg.method === 'string' && 'id' in msg;
    if (!isRequest) return void res.writeHead(202).end();
    if (inPost) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const m of answer(msg)) res.write(event(m));
      return void res.end();
    }
    if (inJson) {
      const out = answer(msg);
      for (const m of out.slice(0, -1)) toStream(c, m);
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify(out.at(-1)));
    }
    res.writeHead(202).end();
    for (const m of answer(msg)) toStream(c, m);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}/acp\n`);
});
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => process.exit(0));
