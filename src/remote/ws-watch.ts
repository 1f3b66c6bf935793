/**
 * The tap's view of the WebSocket transport: a WebSocket constructor for the protocol SDK's
 * WebSocket client (on the `ws` package, since Node 20 has no WebSocket of its own) that records the
 * upgrade (status 101 and the response's headers, credentials redacted) and the close as `transport`
 * events. Every ACP message on it is one text message; the messages themselves are the frames.
 */
import type { IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import type { WebSocketConstructor } from '@agentclientprotocol/sdk/experimental/ws-client';
import { redactHeaders } from './headers.js';
import type { FailureNote, RecordTransport } from './http-watch.js';
import { describeNetworkError } from './http-watch.js';
import type { HeldMessages } from './held.js';
import { rpcRefOf } from '../wire/transport-event.js';

/**
 * A `ws` WebSocket constructor that records its upgrade and close (see the file's comment). With
 * `held`, the agent's notifications are held there for the bridge, and the SDK's client gets
 * placeholders in their place (see held.ts).
 */
export function watchingWebSocket(record: RecordTransport, note: FailureNote, held: HeldMessages | null = null): WebSocketConstructor {
  return class WatchedWebSocket extends WebSocket {
    override emit(event: string | symbol, ...args: unknown[]): boolean {
      if (held && event === 'message' && args[1] === false) {
        const bytes = bytesOf(args[0]);
        // Held as the bytes that came: the bridge writes them out without encoding them again.
        if (bytes !== null && rpcRefOf(bytes.toString('utf8')).kind === 'notification') {
          const placeholder = held.hold(bytes);
          return placeholder === null ? true : super.emit('message', placeholder, false);
        }
        held.barrier();
      }
      return super.emit(event, ...args);
    }

    constructor(url: string, protocols?: string | string[], options?: { headers?: Record<string, string> }) {
      super(url, protocols, options);
      const requestHeaders = redactHeaders(Object.entries(options?.headers ?? {}).map(([k, v]) => [k, String(v)]));
      this.on('upgrade', (res: IncomingMessage) => {
        record({
          op: 'ws-open', transport: 'ws', status: res.statusCode ?? 101,
          connectionId: headerOf(res, 'acp-connection-id'), requestHeaders, responseHeaders: redactHeaders(entriesOf(res)),
        });
      });
      this.on('error', (e: Error) => {
        const status = /Unexpected server response: (\d+)/.exec(e.message);
        if (status) note.status = Number(status[1]);
        else note.error = e;
        record({ op: 'error', transport: 'ws', ...(status ? { status: Number(status[1]) } : {}), requestHeaders, message: status ? e.message : describeNetworkError(e) });
      });
      this.on('close', (code: number, reason: Buffer) => {
        note.wsClose = { code, reason: reason.toString('utf8') };
        record({ op: 'ws-close', transport: 'ws', code, reason: note.wsClose.reason });
      });
    }
  };
}

/** A text message's data as `ws` gives it (a Buffer, or its fragments), as bytes. */
function bytesOf(data: unknown): Buffer | null {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data as Buffer[]);
  if (data instanceof ArrayBuffer) return Buffer.from(data);
  return typeof data === 'string' ? Buffer.from(data) : null;
}

function headerOf(res: IncomingMessage, name: string): string | null {
  const v = res.headers[name];
  return Array.isArray(v) ? (v[0] ?? null) : (v ?? null);
}

function entriesOf(res: IncomingMessage): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(res.headers)) {
    if (Array.isArray(v)) for (const x of v) out.push([k, x]);
    else if (v !== undefined) out.push([k, v]);
  }
  return out;
}
