/**
 * Transport metadata of a remote agent (see src/remote/), recorded as lifecycle events of type `transport` in the
 * recording's item sequence, beside the frames they carry (a POST's event right after its frame, a
 * streamed message's right before it). Readers that do not know the type skip it, so check, export,
 * show and the UI read a remote recording as they read a stdio one.
 */
import type { EventItem, Frame } from './frame.js';
import { textChunkSessionOf } from './chunk-frame.js';

/** The event type under which transport metadata is recorded. */
export const TRANSPORT_EVENT = 'transport';

/** What happened on the transport. */
export type TransportOp =
  /** The bridge starts talking to the remote agent (url, transport, the headers it sends). */
  | 'connect'
  /** A POST carrying one client message, with the agent's answer status. */
  | 'post'
  /** A DELETE ending the connection. */
  | 'delete'
  /** An SSE GET opened (or refused: see `status`); `reason` is `reopened` for a session's stream opened again after it ended. */
  | 'sse-open'
  /** One event on an SSE stream: the message that follows it came on `stream`. */
  | 'sse-message'
  /** An SSE stream ended (`reason`). */
  | 'sse-close'
  /** The WebSocket upgrade was answered (status 101 and the response's headers). */
  | 'ws-open'
  /** The WebSocket closed (`code`, `reason`). */
  | 'ws-close'
  /**
   * The proxy stopped reading one side of a WebSocket relay: the other side stopped reading, and
   * `bytes` waited for it (past the proxy's cap). `reason` names the side that stopped reading.
   */
  | 'ws-paused'
  /** The proxy reads that side again: what waited went out. */
  | 'ws-resumed'
  /** A transport failure: `message` is the line the tap printed. */
  | 'error'
  /**
   * A request sent on a kept-alive connection that the agent closed unanswered (its keep-alive
   * timeout ended as the request went out), sent once more on a new connection; `message` says how it failed.
   */
  | 'retried'
  /**
   * The tap answered a request itself (the remote agent could not, or refused it with an HTTP
   * `status`: its POST, or its session's stream): the frame that follows is its answer.
   */
  | 'answered-by-tap'
  /**
   * A session's SSE stream ended while a request of the session waited on it: the protocol SDK's
   * client failed that request (the frame that follows is its error), and the connection goes on.
   * `message` says so.
   */
  | 'session-stream-dropped'
  /** A line from the client the tap could not send (not a JSON-RPC message). */
  | 'not-sent';

/** The data of a `transport` event. Fields beyond `op` and `transport` are there when they apply. */
export interface TransportData {
  op: TransportOp;
  transport: 'http' | 'ws';
  url?: string;
  method?: string;
  status?: number;
  /**
   * Which SSE stream: the connection's, a session's (with `sessionId`), or a POST's own answer sent
   * as an event stream (`post`: MCP's Streamable HTTP has it, and earlier drafts of ACP's).
   */
  stream?: 'connection' | 'session' | 'post';
  connectionId?: string | null;
  sessionId?: string | null;
  contentType?: string | null;
  requestHeaders?: Record<string, string>;
  responseHeaders?: Record<string, string>;
  /** The JSON-RPC message this event is about: its id, method, and kind. */
  rpc?: RpcRef;
  /** Bytes of the message (an SSE event's data, a WebSocket message). */
  bytes?: number;
  eventId?: string;
  code?: number;
  reason?: string;
  message?: string;
}

/**
 * The headers that name a connection (lower case, as recorded), the RFD's first. Agents on an earlier
 * draft's header model name it otherwise in their answer to initialize, and their clients send it
 * back so: others with `X-Acp-Connection-Id`, Goose's pilot with `Acp-Session-Id`. Those two name a
 * connection only where an answer to initialize gave it so; otherwise `Acp-Session-Id` names a session.
 * The proxy finds connections by them, and the transport rules read the same order.
 */
export const CONNECTION_HEADERS = ['acp-connection-id', 'x-acp-connection-id', 'acp-session-id'] as const;
export type ConnectionHeader = (typeof CONNECTION_HEADERS)[number];

/** Which JSON-RPC message a transport event is about. */
export interface RpcRef {
  id?: string | number | null;
  method?: string;
  /** `params.sessionId`, when the message has one. */
  sessionId?: string;
  kind: 'request' | 'notification' | 'response' | 'other';
}

/**
 * The id, method and kind of a JSON-RPC message's text (`other` when it is not one). The most
 * common message of a stream, a text chunk in the SDK's form, is known without JSON.parse: the
 * bridge's SDK client parses each SSE event again, and the proxy hands it on as it came.
 */
export function rpcRefOf(text: string): RpcRef {
  const sessionId = textChunkSessionOf(text);
  if (sessionId !== null) return { kind: 'notification', method: 'session/update', sessionId };
  let v: unknown;
  try { v = JSON.parse(text); } catch { return { kind: 'other' }; }
  return rpcRefOfValue(v);
}

/** The id, method and kind of a parsed JSON-RPC message. */
export function rpcRefOfValue(v: unknown): RpcRef {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return { kind: 'other' };
  const m = v as Record<string, unknown>;
  const ref: RpcRef = { kind: 'other' };
  const id = m.id;
  if (typeof id === 'string' || typeof id === 'number' || id === null) ref.id = id;
  if (typeof m.method === 'string') {
    ref.method = m.method;
    ref.kind = 'id' in m ? 'request' : 'notification';
    const params = m.params as Record<string, unknown> | null | undefined;
    if (params && typeof params === 'object' && typeof params.sessionId === 'string') ref.sessionId = params.sessionId;
  } else if ('result' in m || 'error' in m) ref.kind = 'response';
  return ref;
}

/** Whether an item is a transport event. */
export function isTransportEvent(item: { dir: string; type?: string }): item is EventItem & { data: TransportData } {
  return item.dir === 'event' && item.type === TRANSPORT_EVENT;
}

/**
 * Whether a transport event is about `frame` (its POST, the SSE event or WebSocket message that
 * carried it): the same JSON-RPC id and kind of message, or for a notification the same method.
 * The recorder puts such an event right beside its frame (after a POST's, before a streamed one's).
 */
export function transportIsAbout(d: TransportData, frame: Pick<Frame, 'kind' | 'id' | 'method'>): boolean {
  const rpc = d.rpc;
  if (!rpc || rpc.kind === 'other') return false;
  const kind = frame.kind === 'result' || frame.kind === 'error' ? 'response' : frame.kind;
  if (rpc.kind !== kind) return false;
  return kind === 'notification' ? rpc.method === frame.method : rpc.id === frame.id;
}

/**
 * What a timeline row shows of how a frame travelled: its POST and the status it got, the SSE
 * stream it came on (the connection's or a session's), the WebSocket, or the tap (which answered
 * itself). `sessionId`: the session a POST named (`Acp-Session-Id`) or whose stream carried it.
 */
export interface TransportCell {
  via: 'POST' | 'SSE' | 'WS' | 'tap';
  status?: number;
  stream?: 'connection' | 'session' | 'post';
  sessionId?: string;
}

/** How far from its frame (in items) the recorder may put a transport event about it. */
export const TRANSPORT_NEAR = 64;

/**
 * The transport cell of a frame from the transport events around it (`near`, with their seqs, in
 * seq order) and the recording's transport (`recording`: a WebSocket carries every frame, so a
 * frame of a WebSocket recording shows it without an event of its own). The recorder puts a
 * POST's event after its frame and a streamed message's before it, but not always right beside it:
 * a stream's events are recorded as they are read, ahead of the frames they carry, and other
 * streams' events come between. So a client's frame takes the nearest POST after it about it, and
 * an agent's the nearest stream event before it about it. Null for a frame nothing says how it
 * travelled (every frame of a stdio recording).
 */
export function transportCellOf(frame: Pick<Frame, 'seq' | 'dir' | 'kind' | 'id' | 'method' | 'sessionId'>, near: readonly { seq: number; data: TransportData }[], recording: 'http' | 'ws' | null): TransportCell | null {
  const d = transportEventOf(frame, near);
  if (d?.op === 'post') return { via: 'POST', ...(d.status !== undefined ? { status: d.status } : {}), ...(d.sessionId ? { sessionId: d.sessionId } : {}) };
  if (d?.op === 'answered-by-tap') return { via: 'tap' };
  if (d?.op === 'sse-message') return { via: 'SSE', ...(d.stream ? { stream: d.stream } : {}), ...(d.stream === 'session' && d.sessionId ? { sessionId: d.sessionId } : {}) };
  return recording === 'ws' ? { via: 'WS' } : null;
}

/**
 * The transport event about a frame among those around it (see transportCellOf): a client's
 * frame's POST (the nearest after it), an agent's frame's stream event or the tap's answer (the
 * nearest before it); null when none is within TRANSPORT_NEAR items.
 */
export function transportEventOf(frame: Pick<Frame, 'seq' | 'dir' | 'kind' | 'id' | 'method' | 'sessionId'>, near: readonly { seq: number; data: TransportData }[]): TransportData | null {
  const about = (d: TransportData) => transportIsAbout(d, frame) && (frame.kind !== 'notification' || d.rpc?.sessionId === frame.sessionId);
  if (frame.dir === 'c2a') {
    for (const e of near) {
      if (e.seq > frame.seq && e.seq <= frame.seq + TRANSPORT_NEAR && e.data.op === 'post' && about(e.data)) return e.data;
    }
  } else {
    for (let i = near.length - 1; i >= 0; i--) {
      const e = near[i]!;
      if (e.seq < frame.seq && e.seq >= frame.seq - TRANSPORT_NEAR && (e.data.op === 'sse-message' || e.data.op === 'answered-by-tap') && about(e.data)) return e.data;
    }
  }
  return null;
}

/** A transport event in a few words, for a timeline's line: `POST 202 session/prompt #2 session s1`. */
export function describeTransport(d: TransportData): string {
  const rpc = d.rpc ? `${d.rpc.method ?? d.rpc.kind}${d.rpc.id !== undefined ? ` #${JSON.stringify(d.rpc.id)}` : ''}` : '';
  const stream = `${d.stream ?? ''} stream${d.stream === 'session' && d.sessionId ? ` ${d.sessionId}` : ''}`;
  const words = (...w: (string | number | undefined | null | false)[]) => w.filter((x) => x !== undefined && x !== null && x !== false && x !== '').join(' ');
  switch (d.op) {
    case 'connect': return words('connect', d.transport === 'ws' ? 'WebSocket' : 'HTTP', d.url);
    case 'post': return words('POST', d.status, rpc, d.sessionId && `session ${d.sessionId}`);
    case 'delete': return words('DELETE', d.status);
    case 'sse-open': return words('GET', d.status, stream, d.reason && `(${d.reason})`);
    case 'sse-message': return words('SSE', stream, '→', rpc);
    case 'sse-close': return words('SSE', stream, 'closed:', d.reason);
    case 'ws-open': return words('WebSocket', d.status, d.connectionId && `connection ${d.connectionId}`);
    case 'ws-close': return words('WebSocket closed', d.code, d.reason);
    case 'ws-paused': return words('WebSocket paused:', d.reason, d.bytes !== undefined && `(${d.bytes} bytes waiting)`);
    case 'ws-resumed': return words('WebSocket resumed:', d.reason);
    case 'error': return words('error', d.status, d.message);
    case 'answered-by-tap': return words('answered by the tap', rpc, d.status && `(HTTP ${d.status}${d.sessionId ? ` for session ${d.sessionId}` : ''})`);
    case 'session-stream-dropped': return words('session stream', d.sessionId, 'ended: request', d.rpc?.id !== undefined && `#${JSON.stringify(d.rpc.id)}`, 'failed');
    case 'not-sent': return words('not sent:', d.message);
    default: return JSON.stringify(d);
  }
}
