/**
 * The tap's view of the Streamable HTTP transport: a `fetch` for the protocol SDK's HTTP client that
 * fetches as it would and records each exchange's metadata (method, status, stream, connection and
 * session ids, headers with credentials redacted) as `transport` events. SSE bodies are handed on
 * chunk by chunk as they arrive (never buffered whole); each event on them is noted, with the stream
 * it came on, before the SDK parses it and the tap forwards its message.
 */
import { redactHeaders } from './headers.js';
import { rpcRefOf, type RpcRef, type TransportData } from '../wire/transport-event.js';
import type { HeldMessages } from './held.js';
import { SseSplitter, sseOf, type SseEvent } from './sse-splitter.js';

/** Where the watchers record: one transport event's data. */
export type RecordTransport = (data: TransportData) => void;

/** The last failure a watcher saw (its status, or the network error), for the tap's one-line message. */
export interface FailureNote {
  status?: number;
  statusText?: string;
  error?: unknown;
  /** How the WebSocket closed, once it did. */
  wsClose?: { code: number; reason: string };
  /**
   * When set, the POSTs of notifications and responses made and not yet accounted for, by postKey:
   * the bridge takes one off for each such message the SDK's client has handled, and one it finds
   * none for was discarded without a POST (see the bridge's `accountFor`).
   */
  posted?: Map<string, number>;
}

/** A notification's or response's key in FailureNote.posted (undefined for a request or anything else). */
export function postKey(rpc: RpcRef): string | undefined {
  if (rpc.kind === 'notification') return `n ${rpc.method ?? ''} ${rpc.sessionId ?? ''}`;
  if (rpc.kind === 'response') return `r ${JSON.stringify(rpc.id ?? null)}`;
  return undefined;
}

const CONNECTION_ID = 'acp-connection-id';
const SESSION_ID = 'acp-session-id';

/**
 * A `fetch` that records what it does (see the file's comment); `note` keeps the last failure. With
 * `held`, the notifications on the SSE streams are held there for the bridge, and the SDK's client
 * gets placeholders in their place (see held.ts).
 */
export function watchingFetch(record: RecordTransport, note: FailureNote, fetchImpl: typeof fetch = globalThis.fetch, held: HeldMessages | null = null): typeof fetch {
  /** Sessions whose stream was opened: a later GET for one opens it again (after it ended). */
  const opened = new Set<string>();
  return async (input, init) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    const reqHeaders = new Headers(init?.headers);
    const connectionId = reqHeaders.get(CONNECTION_ID);
    const sessionId = reqHeaders.get(SESSION_ID);
    const isSse = method === 'GET';
    const stream = isSse ? (sessionId ? 'session' : 'connection') : undefined;
    const rpc = method === 'POST' && typeof init?.body === 'string' ? rpcRefOf(init.body) : undefined;
    const key = rpc && note.posted ? postKey(rpc) : undefined;
    if (key !== undefined) note.posted!.set(key, (note.posted!.get(key) ?? 0) + 1);
    let res: Response;
    try {
      res = await fetchRetryingClosed(fetchImpl, input, init, (e) => record({ op: 'retried', transport: 'http', method, ...(stream ? { stream } : {}), sessionId, ...(rpc ? { rpc } : {}), message: `the agent closed the connection before answering (${describeNetworkError(e)})` }));
    } catch (e) {
      if (init?.signal?.aborted) throw e;
      note.error = e;
      record({ op: 'error', transport: 'http', method, ...(stream ? { stream } : {}), sessionId, ...(rpc ? { rpc } : {}), message: describeNetworkError(e) });
      throw e;
    }
    const data: TransportData = {
      op: isSse ? 'sse-open' : method === 'DELETE' ? 'delete' : 'post',
      transport: 'http',
      method,
      status: res.status,
      ...(stream ? { stream } : {}),
      connectionId: connectionId ?? res.headers.get(CONNECTION_ID),
      sessionId,
      contentType: res.headers.get('content-type'),
      requestHeaders: redactHeaders(reqHeaders),
      responseHeaders: redactHeaders(res.headers),
    };
    if (rpc) data.rpc = rpc;
    if (isSse && sessionId && res.ok && opened.has(sessionId)) data.reason = 'reopened';
    record(data);
    if (isSse && sessionId && res.ok) opened.add(sessionId);
    if (!res.ok) {
      note.status = res.status;
      note.statusText = res.statusText;
    }
    if (!isSse || !res.ok || !res.body) return res;
    const watched = watchSse(res.body, { stream: stream!, connectionId, sessionId }, record, init?.signal ?? null, note, held);
    return new Response(watched, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/**
 * fetch, sent once more when the agent closed the connection without a byte of an answer: fetch
 * keeps an idle connection for the agent's Keep-Alive hint less 2 s, and an agent that closes it as
 * a request goes out (its keep-alive timeout ends; a busy event loop overruns the 2 s) fails that
 * request with "other side closed". fetch does not say whether the connection was a kept-alive one,
 * so any such failure is tried once more (fetch opens a new connection in place of a closed one);
 * when that fails too, the first failure is what is thrown. Only a request whose body can be sent
 * twice (a string, or none: what the SDK's client sends) is tried again.
 */
async function fetchRetryingClosed(fetchImpl: typeof fetch, input: Parameters<typeof fetch>[0], init: RequestInit | undefined, retrying: (e: unknown) => void): Promise<Response> {
  try {
    return await fetchImpl(input, init);
  } catch (e) {
    const body = init?.body;
    if (init?.signal?.aborted || !closedUnanswered(e) || (body !== undefined && body !== null && typeof body !== 'string')) throw e;
    retrying(e);
    try {
      return await fetchImpl(input, init);
    } catch {
      throw e;
    }
  }
}

/** Whether fetch failed because the other side closed the connection before its answer began. */
function closedUnanswered(e: unknown): boolean {
  const code = (e as { cause?: { code?: string } } | null)?.cause?.code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET';
}

/** Which SSE stream a body is (the proxy's: also a POST's own event stream). */
interface StreamRef { stream: 'connection' | 'session' | 'post'; connectionId: string | null; sessionId: string | null }

/** The `sse-message` event of SSE event `ev`, whose message is `rpc`, on stream `ref` (the bridge's and the proxy's). */
export function sseMessageEvent(ref: StreamRef, ev: SseEvent, rpc: RpcRef = rpcRefOf(ev.data)): TransportData {
  return { op: 'sse-message', transport: 'http', ...ref, rpc, bytes: Buffer.byteLength(ev.data), ...(ev.id !== undefined ? { eventId: ev.id } : {}) };
}

/**
 * Hands `body` on chunk by chunk, noting each SSE event in it (`sse-message`, with its message's
 * id and method) and how the stream ended (`sse-close`: the agent ended it, the tap closed it, or it
 * broke). With `held`, what is handed on is the stream's events written again, each notification's
 * held instead and a run of them written as one placeholder (see held.ts); comments and partial
 * events are not handed on (the SDK's client skips the ones and waits for the rest of the others).
 */
function watchSse(body: ReadableStream<Uint8Array>, ref: StreamRef, record: RecordTransport, signal: AbortSignal | null, note: FailureNote, held: HeldMessages | null): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const sse = new SseSplitter();
  const encoder = new TextEncoder();
  let closed = false;
  const close = (reason: string, message?: string) => {
    if (closed) return;
    closed = true;
    record({ op: 'sse-close', transport: 'http', ...ref, reason, ...(message ? { message } : {}) });
  };
  /** Notes each event; with `held`, returns what the SDK's client is to read in their place. */
  const noted = (events: SseEvent[]): string => {
    let out = '';
    for (const ev of events) {
      const rpc = rpcRefOf(ev.data);
      record(sseMessageEvent(ref, ev, rpc));
      if (!held) continue;
      if (rpc.kind === 'notification') {
        const placeholder = held.hold(ev.data);
        if (placeholder !== null) out += sseOf(placeholder);
      } else {
        held.barrier();
        out += sseOf(ev.data);
      }
    }
    return out;
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        let r: ReadableStreamReadResult<Uint8Array>;
        try {
          r = await reader.read();
        } catch (e) {
          if (signal?.aborted) close('closed by the tap');
          else {
            note.error = e;
            close('broken', describeNetworkError(e));
          }
          controller.error(e);
          return;
        }
        if (r.done) {
          const last = noted(sse.end());
          if (last !== '') controller.enqueue(encoder.encode(last));
          close('ended by the agent');
          controller.close();
          return;
        }
        const out = noted(sse.push(r.value));
        if (!held) return controller.enqueue(r.value);
        // Nothing whole to hand on yet (a partial event, a comment): read on.
        if (out !== '') return controller.enqueue(encoder.encode(out));
      }
    },
    cancel(reason) {
      close('closed by the tap');
      return reader.cancel(reason);
    },
  });
}

/** TLS failures Node reports by code (OpenSSL's verification results and Node's own). */
const TLS_CODE = /CERT|SSL|TLS|UNABLE_TO_VERIFY|SELF_SIGNED|ERR_TLS/i;

/** Classifies a network error from fetch or a WebSocket: `tls`, `refused`, `dns`, `dropped` or `other`, and a short reason. */
export function classifyNetworkError(e: unknown): { kind: 'tls' | 'refused' | 'dns' | 'dropped' | 'other'; reason: string } {
  const err = e as { code?: string; message?: string; cause?: { code?: string; message?: string } } | null;
  const code = err?.cause?.code ?? err?.code ?? '';
  const message = (err?.cause?.message ?? err?.message ?? String(e)).replace(/\s+/g, ' ').trim();
  if (TLS_CODE.test(code) || /certificate|SSL routines|TLS/i.test(message)) {
    // OpenSSL's own lines ("…:SSL routines:ssl3_get_record:wrong version number:file:line:") say it in one field.
    const ssl = /SSL routines:[^:]*:([^:]+)/.exec(message);
    return { kind: 'tls', reason: ssl ? ssl[1]!.trim() : message };
  }
  if (code === 'ECONNREFUSED') return { kind: 'refused', reason: `connection refused (${message.replace(/^connect /, '')})` };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { kind: 'dns', reason: `host not found (${message})` };
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE' || /other side closed|terminated|socket hang up/i.test(message)) return { kind: 'dropped', reason: message };
  return { kind: 'other', reason: code && !message.includes(code) ? `${message} (${code})` : message };
}

/** A network error as a short phrase for the recording. */
export function describeNetworkError(e: unknown): string {
  return classifyNetworkError(e).reason;
}
