/**
 * The reverse proxy for remote clients (`acp-inspect proxy --listen 127.0.0.1:PORT --to URL`): it
 * serves the remote transport's endpoint to a client that already speaks it and forwards every POST,
 * GET (SSE), DELETE and WebSocket upgrade to the agent at URL, and the answers back: status and
 * headers as the agent gave them (hop-by-hop headers aside), bodies streamed chunk by chunk, never
 * buffered whole. Each ACP connection (an `initialize` POST, or a WebSocket) becomes a recording,
 * with the client's messages as c2a lines, the agent's as a2c lines, and the transport's metadata as
 * `transport` events, credentials redacted.
 *
 * Not here: the bridge for a stdio client (bridge.ts). A WebSocket connection is relayed byte for
 * byte after its handshake, its frames read on the side (ws-frames.ts).
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { redactHeaders, redactUrl } from './headers.js';
import { describeNetworkError, sseMessageEvent } from './http-watch.js';
import { RemoteRecording, type RecordingOptions } from './recording.js';
import { SseSplitter, asLine, oneLine, type SseEvent } from './sse-splitter.js';
import { WsFrameReader } from './ws-frames.js';
import { CONNECTION_HEADERS, rpcRefOf, type ConnectionHeader, type TransportData } from '../wire/transport-event.js';

export interface ProxyOptions extends RecordingOptions {
  db?: string;
  host: string;
  port: number;
  /** The remote agent's endpoint (http(s):// or ws(s)://). */
  to: string;
}

export interface RunningProxy {
  /** The endpoint the proxy serves (http://HOST:PORT/PATH). */
  url: string;
  /** Stops listening, ends what is open and finishes every recording. */
  close(): Promise<void>;
}

/** Headers of one hop only (RFC 9110 7.6.1), never forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-authenticate']);
/** Bytes of one side's messages waiting for the other side to read them before the proxy stops reading the first. */
const WS_BUFFER_CAP = 1024 * 1024;
/** How long the proxy keeps a client's idle connection open for its next request (see startProxy). */
const CLIENT_KEEP_ALIVE_MS = 120_000;
/** Not forwarded with a WebSocket handshake (see onUpgrade). */
const WS_SKIP = /^sec-websocket-extensions$/;

function forwardHeaders(headers: IncomingHttpHeaders, host: string, skip?: RegExp): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const named = new Set(String(headers.connection ?? '').toLowerCase().split(',').map((s) => s.trim()));
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || HOP_BY_HOP.has(k) || named.has(k) || skip?.test(k)) continue;
    out[k] = v;
  }
  out.host = host;
  return out;
}

function entries(headers: IncomingHttpHeaders): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(headers)) {
    if (Array.isArray(v)) for (const x of v) out.push([k, x]);
    else if (v !== undefined) out.push([k, String(v)]);
  }
  return out;
}

const one = (v: string | string[] | undefined): string | null => (Array.isArray(v) ? (v[0] ?? null) : (v ?? null));

/** One ACP connection through the proxy, and its recording. */
class ProxiedConnection {
  id: string | null = null;
  /** The header that names it (see CONNECTION_HEADERS in wire/transport-event.ts). */
  idHeader: ConnectionHeader = 'acp-connection-id';
  /** Sessions whose stream the client opened: a later GET for one opens it again (after it ended). */
  readonly openedSessions = new Set<string>();
  /** The agent answered a request on it (2xx): a failure after that does not end it. */
  established = false;
  constructor(readonly recording: RemoteRecording) {}
}

/** Starts the proxy; resolves once it listens. `say` prints its one-line messages. */
export function startProxy(opts: ProxyOptions, say: (msg: string) => void): Promise<RunningProxy> {
  const upstream = new URL(opts.to.replace(/^ws/i, 'http'));
  const shown = redactUrl(opts.to);
  const path = upstream.pathname;
  const connections = new Map<string, ProxiedConnection>();
  /** The last connection begun by a request that named none (see onRequest). */
  let unnamed: ProxiedConnection | null = null;
  const open = new Set<ProxiedConnection>();
  const finishing: { c: ProxiedConnection; stored: Promise<boolean> }[] = [];

  const begin = (): ProxiedConnection => {
    const c = new ProxiedConnection(new RemoteRecording(opts, shown, Date.now(), say));
    c.recording.transport({ op: 'connect', transport: 'http', url: shown });
    open.add(c);
    return c;
  };
  const end = (c: ProxiedConnection, code = 0): void => {
    if (!open.delete(c)) return;
    if (c.id) connections.delete(c.id);
    finishing.push({ c, stored: c.recording.finish(code) });
  };
  const isOpen = (c: ProxiedConnection): boolean => open.has(c);
  const served = (req: IncomingMessage) => new URL(req.url ?? '/', 'http://proxy').pathname === path;
  /** The connection a request names by any of CONNECTION_HEADERS, when the proxy knows it by that header. */
  const connectionOf = (req: IncomingMessage): ProxiedConnection | undefined => {
    for (const h of CONNECTION_HEADERS) {
      const id = one(req.headers[h]);
      const c = id ? connections.get(id) : undefined;
      if (c && c.idHeader === h) return c;
    }
    return undefined;
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    if (!served(req)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`acp-inspect proxy: not found; the ACP endpoint is ${path}\n`);
      return;
    }
    const method = (req.method ?? 'GET').toUpperCase();
    let conn = connectionOf(req);
    // A request that names no connection belongs to the open one its agent named by no header: an
    // agent whose URL names the connection (sandbox-agent's `/v1/acp/{server}`) has every request
    // come without one. Else (an initialize, as the RFD has it) it begins a connection.
    const named = CONNECTION_HEADERS.some((h) => one(req.headers[h]));
    if (!conn && !named && unnamed && isOpen(unnamed) && !unnamed.id) conn = unnamed;
    if (!conn) {
      conn = begin();
      const id = one(req.headers['acp-connection-id']);
      if (id) {
        conn.id = id;
        connections.set(id, conn);
      }
      if (!named) unnamed = conn;
    }
    const c = conn;
    const connectionId = one(req.headers[c.idHeader]);
    // Where Acp-Session-Id names the connection (an earlier draft's model), a request has no session header.
    const sessionId = c.idHeader === 'acp-session-id' ? null : one(req.headers['acp-session-id']);
    const rec = c.recording;
    const isSse = method === 'GET';
    const stream: 'connection' | 'session' | undefined = isSse ? (sessionId ? 'session' : 'connection') : undefined;
    const target = new URL(upstream);
    target.search = new URL(req.url ?? '/', 'http://proxy').search;
    const send = upstream.protocol === 'https:' ? httpsRequest : httpRequest;
    const upHeaders = forwardHeaders(req.headers, upstream.host);
    req.socket.setNoDelay(true);

    // client → agent: streamed on; a copy of the body is the message recorded (and sent again by a retry).
    const body: Buffer[] = [];
    let bodyEnded = false;
    req.on('data', (b: Buffer) => body.push(b));
    let rpc: TransportData['rpc'];
    req.on('end', () => {
      bodyEnded = true;
      if (method !== 'POST' || body.length === 0) return;
      const bytes = Buffer.concat(body);
      rpc = rpcRefOf(bytes.toString('utf8'));
      rec.line('c2a', oneLine(bytes));
    });

    /**
     * The request to the agent. On a kept-alive connection the agent may close just as the request
     * goes out (its keep-alive timeout ended: node's agent keeps an idle connection a second less
     * than the agent's hint, which a busy event loop can overrun); the request then fails unanswered
     * with ECONNRESET, and is sent once more, on a connection of its own (node's documented remedy,
     * see `request.reusedSocket`).
     */
    const open = (retry: boolean) => {
      const up = send(target, { method, headers: upHeaders, ...(retry ? { agent: false } : {}) });
      // Each message goes on as it comes: Nagle's algorithm would hold a small write back for the previous one's ACK.
      up.setNoDelay(true);
      if (retry && body.length > 0) up.write(Buffer.concat(body));
      if (retry && bodyEnded) up.end();
      else req.pipe(up);
      up.on('response', (ures) => answered(ures));
      up.on('error', (e: NodeJS.ErrnoException) => {
        if (!retry && up.reusedSocket && e.code === 'ECONNRESET' && !res.headersSent) {
          req.unpipe(up);
          rec.transport({ op: 'retried', transport: 'http', method, ...(stream ? { stream } : {}), sessionId, message: `the agent closed a kept-alive connection as the request went out (${describeNetworkError(e)})` });
          open(true);
          return;
        }
        failed(e);
      });
    };

    const answered = (ures: IncomingMessage): void => {
      const status = ures.statusCode ?? 502;
      // The connection's id: the RFD's header, or in the answer to initialize an earlier draft's.
      const initialized = method === 'POST' && status < 300 && rpc?.method === 'initialize';
      const idHeader = c.id ? c.idHeader : CONNECTION_HEADERS.find((h) => (h === 'acp-connection-id' || initialized) && one(ures.headers[h]));
      const newId = idHeader ? one(ures.headers[idHeader]) : null;
      if (newId && !c.id) {
        c.id = newId;
        c.idHeader = idHeader!;
        connections.set(newId, c);
      }
      rec.transport({
        op: isSse ? 'sse-open' : method === 'DELETE' ? 'delete' : 'post', transport: 'http', method, status,
        ...(stream ? { stream } : {}), connectionId: connectionId ?? newId, sessionId, contentType: one(ures.headers['content-type']),
        requestHeaders: redactHeaders(entries(req.headers)), responseHeaders: redactHeaders(entries(ures.headers)), ...(rpc ? { rpc } : {}),
        ...(isSse && sessionId && status < 300 && c.openedSessions.has(sessionId) ? { reason: 'reopened' } : {}),
      });
      if (isSse && sessionId && status < 300) c.openedSessions.add(sessionId);
      if (status < 300) c.established = true;
      const headers: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(ures.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) headers[k] = v;
      res.writeHead(status, ures.statusMessage, headers);
      // An SSE stream's now, not with the first chunk of its body: it opens (and its client goes on)
      // before its first event. Any other answer's go with its body, in one write: a write of their
      // own cost a POST's round trip about 0.3 ms more on a loaded machine.
      if (isSse) res.flushHeaders();
      const json = /application\/json/i.test(one(ures.headers['content-type']) ?? '');
      // A POST answered with an event stream (MCP's Streamable HTTP, and earlier drafts of ACP's) carries messages too.
      const postStream = method === 'POST' && status < 300 && /text\/event-stream/i.test(one(ures.headers['content-type']) ?? '');
      const events = (isSse && status < 300) || postStream ? new SseSplitter() : null;
      const on = postStream ? 'post' : stream!;
      const copy: Buffer[] = [];
      const note = (evs: SseEvent[]): void => {
        for (const ev of evs) {
          rec.transport(sseMessageEvent({ stream: on, connectionId, sessionId }, ev));
          rec.lines('a2c', asLine(ev.data));
        }
      };
      ures.on('data', (b: Buffer) => {
        if (events) note(events.push(b));
        else if (json && status < 300) copy.push(b);
      });
      ures.pipe(res);
      ures.on('end', () => {
        // An event the stream ends without its blank line (the SDK's client takes it).
        if (events) note(events.end());
        // A JSON answer in the POST's own body (initialize's) is a message of the agent's too.
        if (copy.length > 0) rec.line('a2c', oneLine(Buffer.concat(copy)));
        if (events) rec.transport({ op: 'sse-close', transport: 'http', stream: on, connectionId, sessionId, reason: 'ended by the agent' });
        if (method === 'DELETE' && status < 300) end(c);
        // An initialize the agent refused leaves no connection.
        if (method === 'POST' && !c.id && !c.established && status >= 300) end(c, 1);
      });
      ures.on('error', (e) => {
        if (events) rec.transport({ op: 'sse-close', transport: 'http', stream: on, connectionId, sessionId, reason: 'broken', message: describeNetworkError(e) });
        res.destroy();
      });
      res.on('close', () => {
        if (!ures.complete) {
          if (events) rec.transport({ op: 'sse-close', transport: 'http', stream: on, connectionId, sessionId, reason: 'closed by the client' });
          ures.destroy();
        }
      });
    };
    const failed = (e: Error): void => {
      const reason = describeNetworkError(e);
      rec.transport({ op: 'error', transport: 'http', method, ...(stream ? { stream } : {}), sessionId, message: `cannot reach the remote agent at ${shown}: ${reason}` });
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end(`acp-inspect proxy: cannot reach the remote agent at ${shown}: ${reason}\n`);
      else res.destroy();
      if (!c.id && !c.established) end(c, 1);
    };
    open(false);
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (!served(req)) {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    const c = begin();
    const rec = c.recording;
    const requestHeaders = redactHeaders(entries(req.headers));
    const target = new URL(upstream);
    target.search = new URL(req.url ?? '/', 'http://proxy').search;
    // The handshake goes to the agent as the client made it (its key, version and subprotocols: the
    // agent's accept answers the client's key), without extensions: a compressed frame could not be
    // recorded (the proxy's WebSocket ends did not offer compression either).
    const headers: Record<string, string | string[]> = { ...forwardHeaders(req.headers, upstream.host, WS_SKIP), connection: 'Upgrade', upgrade: one(req.headers.upgrade) ?? 'websocket' };
    const up = (upstream.protocol === 'https:' ? httpsRequest : httpRequest)(target, { method: 'GET', headers, agent: false });
    /** The client's upgrade was answered (refused, relayed, or failed). */
    let answered = false;
    socket.once('close', () => {
      if (answered) return;
      answered = true;
      rec.transport({ op: 'ws-close', transport: 'ws', code: 1006, reason: 'closed by the client before the agent answered its upgrade' });
      up.destroy();
      end(c, 1);
    });
    up.on('upgrade', (ures, agent: Socket, agentHead: Buffer) => {
      if (answered) return void agent.destroy();
      answered = true;
      const id = one(ures.headers['acp-connection-id']);
      c.id = id;
      rec.transport({ op: 'ws-open', transport: 'ws', status: ures.statusCode ?? 101, connectionId: id, requestHeaders, responseHeaders: redactHeaders(entries(ures.headers)) });
      // The agent's 101 as it gave it (its accept, subprotocol and the rest: Acp-Connection-Id, cookies).
      const lines = [`HTTP/1.1 ${ures.statusCode ?? 101} ${ures.statusMessage ?? 'Switching Protocols'}`];
      for (let i = 0; i + 1 < ures.rawHeaders.length; i += 2) lines.push(`${ures.rawHeaders[i]}: ${ures.rawHeaders[i + 1]}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      relay(c, socket as Socket, agent, head, agentHead);
    });
    up.on('response', (ures) => {
      // The agent refused the upgrade: the client gets its answer as it was (status, headers, body).
      if (answered) return void ures.destroy();
      answered = true;
      const status = ures.statusCode ?? 502;
      rec.transport({ op: 'error', transport: 'ws', status, requestHeaders, responseHeaders: redactHeaders(entries(ures.headers)), message: `the remote agent at ${shown} refused the WebSocket upgrade (HTTP ${status})` });
      const head = [`HTTP/1.1 ${status} ${ures.statusMessage ?? ''}`];
      for (const [k, v] of entries(ures.headers)) if (!HOP_BY_HOP.has(k)) head.push(`${k}: ${v}`);
      socket.write(`${head.join('\r\n')}\r\nConnection: close\r\n\r\n`);
      ures.pipe(socket);
      end(c, 1);
    });
    up.on('error', (e) => {
      if (answered) return;
      answered = true;
      const reason = describeNetworkError(e);
      rec.transport({ op: 'error', transport: 'ws', requestHeaders, message: `cannot reach the remote agent at ${shown}: ${reason}` });
      socket.end(`HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nacp-inspect proxy: cannot reach the remote agent at ${shown}: ${reason}\n`);
      end(c, 1);
    });
    up.end();
  };

  /**
   * Relays a WebSocket connection byte for byte both ways (each chunk written on as it was read, a
   * copy read for its messages, each recorded: see ws-frames.ts); a socket's end or failure ends the
   * other. A side that stops reading does not make the proxy queue the other's bytes without end:
   * past WS_BUFFER_CAP bytes waiting for it, the proxy stops reading the other side (which then
   * waits, as a full TCP connection makes it), and reads it again once what waited went out.
   */
  const relay = (c: ProxiedConnection, client: Socket, agent: Socket, clientHead: Buffer, agentHead: Buffer): void => {
    const rec = c.recording;
    let open = 2;
    const forward = (from: Socket, to: Socket, dir: 'c2a' | 'a2c', head: Buffer): void => {
      const who = dir === 'c2a' ? 'client' : 'agent';
      const reader = dir === 'c2a' ? 'agent' : 'client';
      let closed = false;
      const frames = new WsFrameReader({
        text: (bytes, end) => (end ? rec.line(dir, bytes) : rec.lines(dir, bytes)),
        binary: () => {
          if (dir === 'c2a') rec.transport({ op: 'not-sent', transport: 'ws', message: 'a binary WebSocket message from the client (forwarded, not a JSON-RPC message)' });
        },
        close: (code, reason) => {
          closed = true;
          rec.transport({ op: 'ws-close', transport: 'ws', code: code ?? 1005, reason: `closed by the ${who}${reason.length ? `: ${reason}` : ''}` });
        },
        broken: (why) => rec.transport({ op: 'error', transport: 'ws', message: `the ${who} sent what is not a WebSocket frame (${why}): relayed as it was, its messages no longer recorded` }),
      });
      let paused = false;
      let flowing = false;
      const take = (b: Buffer): void => {
        to.write(b);
        frames.push(b);
        if (!paused && to.writableLength > WS_BUFFER_CAP) {
          paused = true;
          from.pause();
          rec.transport({ op: 'ws-paused', transport: 'ws', bytes: to.writableLength, reason: `the ${reader} stopped reading` });
        }
        // What the client has not read yet is still flowing, and the recorder leaves it be (see
        // Guard.flowing); a client that stopped reading altogether stopped the flow (and the
        // recording shows it).
        if (dir === 'a2c' && flowing !== (!paused && to.writableNeedDrain)) {
          flowing = !flowing;
          rec.flowing(flowing);
        }
      };
      to.on('drain', () => {
        if (flowing) {
          flowing = false;
          rec.flowing(false);
        }
        if (paused) {
          paused = false;
          from.resume();
          rec.transport({ op: 'ws-resumed', transport: 'ws', reason: `the ${reader} read what waited for it` });
        }
      });
      from.setNoDelay(true);
      if (head.length > 0) take(head);
      from.on('data', take);
      from.on('end', () => to.end());
      from.on('error', () => { /* its close follows */ });
      from.on('close', (hadError: boolean) => {
        if (!closed) rec.transport({ op: 'ws-close', transport: 'ws', code: 1006, reason: `the ${who}'s connection ${hadError ? 'failed' : 'ended'} without a close frame` });
        if (hadError) to.destroy();
        else to.end();
        if (--open === 0) {
          if (flowing) rec.flowing(false);
          end(c);
        }
      });
    };
    forward(client, agent, 'c2a', clientHead);
    forward(agent, client, 'a2c', agentHead);
  };

  const server: Server = createServer(onRequest);
  // A client keeps an idle connection for its next request as long as it likes (Go 90 s, OkHttp 5 min;
  // fetch as long as the Keep-Alive hint says, less 2 s): node's default of 5 s closes connections such
  // a client is about to reuse, which fails its request ("other side closed").
  server.keepAliveTimeout = CLIENT_KEEP_ALIVE_MS;
  server.headersTimeout = CLIENT_KEEP_ALIVE_MS + 1000;
  server.on('upgrade', onUpgrade);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      const addr = server.address() as { port: number };
      const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
      resolve({
        url: `http://${host}:${addr.port}${path}`,
        close: async () => {
          await new Promise<void>((r) => {
            server.close(() => r());
            server.closeAllConnections();
          });
          for (const c of [...open]) end(c);
          for (const f of finishing) f.c.recording.quiesce(await f.stored);
        },
      });
    });
  });
}
