/**
 * The mock agent as a remote agent (`acp-inspect replay --as agent REF --listen HOST:PORT`): the
 * protocol SDK's own server transport (`AcpServer`, Streamable HTTP and WebSocket on one endpoint,
 * `/acp`) in front of the same replayer as on stdio. Each ACP connection a client opens replays the
 * recording from its start, so a remote client gets a fixture it can connect to as often as it likes.
 *
 * The replayer speaks lines (agent-stdio.ts): each message the SDK hands over goes in as one line,
 * and each line it sends goes out as one message. A line that is not a JSON object (a recorded
 * malformed line, `--inject-malformed`) cannot travel on the remote transport: it is said on stderr
 * and skipped.
 */
import { createServer, type Server } from 'node:http';
import { PassThrough } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';
import { AcpServer } from '@agentclientprotocol/sdk/experimental/server';
import { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } from '@agentclientprotocol/sdk/experimental/node';
import type { Recording } from '../transcript/format.js';
import { LineSplitter } from '../wire/line-splitter.js';
import type { AgentReplayerOptions, AgentReplaySummary } from './agent-replayer.js';
import { serveMockAgent } from './agent-stdio.js';

/** The path the mock remote agent serves (the RFD's endpoint). */
export const MOCK_AGENT_PATH = '/acp';

export interface MockRemoteAgent {
  /** http://HOST:PORT/acp (WebSocket clients: the same URL as ws://). */
  url: string;
  /** Stops listening and ends every connection; resolves with each connection's replay summary. */
  close(): Promise<AgentReplaySummary[]>;
}

/** Serves `recording` as a remote agent on HOST:PORT; resolves once it listens. */
export function serveMockRemoteAgent(recording: Recording, listen: { host: string; port: number }, log: (text: string) => void, opts: AgentReplayerOptions = {}): Promise<MockRemoteAgent> {
  const runs: Promise<AgentReplaySummary>[] = [];
  let warnedNotJson = false;
  const agent = {
    connect(stream: Stream): void {
      const input = new PassThrough();
      const output = new PassThrough();
      runs.push(serveMockAgent(recording, { input, output, log }, opts).done);
      // client → replayer: each message as a line.
      void (async () => {
        const reader = stream.readable.getReader();
        try {
          for (;;) {
            const r = await reader.read();
            if (r.done) break;
            input.write(`${JSON.stringify(r.value)}\n`);
          }
        } catch { /* the connection ended */ }
        input.end();
      })();
      // replayer → client: each line as a message.
      const writer = stream.writable.getWriter();
      const splitter = new LineSplitter();
      const send = (line: Buffer): void => {
        let msg: unknown;
        try { msg = JSON.parse(line.toString('utf8')); } catch { msg = undefined; }
        if (!msg || typeof msg !== 'object' || Array.isArray(msg)) {
          if (!warnedNotJson) log('replay: a line that is not a JSON-RPC message object cannot be sent over the remote transport; skipped');
          warnedNotJson = true;
          return;
        }
        writer.write(msg as AnyMessage).catch(() => { /* the connection ended */ });
      };
      output.on('data', (chunk: Buffer) => { for (const line of splitter.push(chunk)) send(line); });
      output.on('end', () => {
        const last = splitter.end();
        if (last) send(last);
        writer.close().catch(() => { /* already closed */ });
      });
    },
  };
  const acp = new AcpServer({ agent });
  const handle = createNodeHttpHandler(acp);
  const wss = new WebSocketServer({ noServer: true });
  const upgrade = createNodeWebSocketUpgradeHandler(acp, wss);
  const served = (url: string | undefined) => new URL(url ?? '/', 'http://mock').pathname === MOCK_AGENT_PATH;
  const server: Server = createServer((req, res) => {
    if (!served(req.url)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`acp-inspect replay: not found; the ACP endpoint is ${MOCK_AGENT_PATH}\n`);
      return;
    }
    handle(req, res);
  });
  server.on('upgrade', (req, socket, head) => {
    if (!served(req.url)) {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    upgrade(req, socket, head);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      const { port } = server.address() as { port: number };
      const host = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
      resolve({
        url: `http://${host}:${port}${MOCK_AGENT_PATH}`,
        close: async () => {
          await acp.close().catch(() => undefined);
          await new Promise<void>((r) => {
            server.close(() => r());
            server.closeAllConnections();
          });
          for (const c of wss.clients) c.terminate();
          return Promise.all(runs);
        },
      });
    });
  });
}
