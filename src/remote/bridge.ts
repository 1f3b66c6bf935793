/**
 * The tap for a remote agent (`acp-inspect -- https://host/acp`, or `ws(s)://`): a stdio↔remote
 * bridge. The editor speaks newline-delimited JSON on stdio as to any agent; the tap speaks the
 * remote transport (Streamable HTTP, or WebSocket) through the protocol SDK's client, with the
 * user's `--header`s. Both directions are recorded as a stdio tap records them, into the same kind
 * of capture log and database: each line the editor sent (its exact bytes) as a c2a frame, each
 * message of the agent as the a2c line the editor was given; beside them the transport's metadata as
 * `transport` events (see transport-event.ts).
 *
 * When the transport fails (an unreachable URL, a TLS error, 401/403, a dropped stream), the tap says
 * so in one line on stderr, records it, answers every request still waiting with a JSON-RPC error the
 * editor understands, and exits 1: nothing waits for an agent that is gone. What the SDK's HTTP client
 * survives, the tap survives too: a session's SSE stream the agent ends while requests of the session
 * wait on it fails those requests (the SDK answers them), and the session's next message opens its
 * stream again; the tap says so in one line and goes on.
 *
 * Not here: the stdio tap's forwarding (tap/run.ts), which this does not touch. A line that is not a
 * JSON object is recorded but not sent: the remote transport carries JSON-RPC messages only.
 */
import { fstatSync } from 'node:fs';
import { Socket } from 'node:net';
import type { Writable } from 'node:stream';
import type { AnyMessage } from '@agentclientprotocol/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';
import type { TapOptions } from '../tap/args.js';
import { LineSplitter } from '../wire/line-splitter.js';
import { redactHeaders, redactUrl } from './headers.js';
import { classifyNetworkError, postKey, watchingFetch, type FailureNote } from './http-watch.js';
import { watchingWebSocket } from './ws-watch.js';
import { rpcRefOfValue, type RpcRef, type TransportData } from '../wire/transport-event.js';
import { RemoteRecording } from './recording.js';
import { HeldMessages, type HeldMessage } from './held.js';
import { asLine, oneLine } from './sse-splitter.js';

/** JSON-RPC's "Internal error", the code the SDK's own clients give a request whose transport failed. */
export const TRANSPORT_FAILED_CODE = -32603;

/** How long the end of the editor's input waits for the remote connection to close (its DELETE) before the tap exits anyway. */
const CLOSE_WAIT_MS = 3000;
/** How long the tap's end waits for a closing WebSocket's close (its code is recorded). */
const WS_CLOSE_WAIT_MS = 500;
/** The most the tap gathers for one write to the editor. */
const BATCH_BYTES = 256 * 1024;
const NEWLINE = Buffer.from('\n');

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const SIGNAL_NUMBERS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

function say(msg: string): void {
  try { process.stderr.write(`${msg.replace(/\s*\n\s*/g, ' ')}\n`); } catch { /* stderr gone */ }
}

/** Our stdout as a non-blocking stream where it is a pipe or socket (see openStdout in tap/run.ts). */
function openStdout(): Writable {
  try {
    const st = fstatSync(1);
    if (st.isFIFO() || st.isSocket()) return new Socket({ fd: 1, readable: false, writable: true });
  } catch { /* fall back */ }
  return process.stdout;
}

/** A JSON-RPC id as a map key (1 and "1" are different ids). */
const idKey = (id: unknown) => JSON.stringify(id);

/** Runs the bridge for `opts.command` (the remote agent's URL) until the editor or the connection ends it. */
export async function runRemoteBridge(opts: TapOptions, startedMs: number): Promise<void> {
  const url = opts.command;
  const shown = redactUrl(url);
  const transport: 'http' | 'ws' = /^wss?:/i.test(url) ? 'ws' : 'http';
  const recording = new RemoteRecording(opts, shown, startedMs, say);
  const record = (data: TransportData) => recording.transport(data);

  // Over HTTP, the POSTs of notifications and responses are counted (see accountFor).
  const note: FailureNote = transport === 'http' ? { posted: new Map() } : {};
  record({ op: 'connect', transport, url: shown, requestHeaders: redactHeaders(Object.entries(opts.headers)) });
  const out = openStdout();
  let clientGone = false;
  /** What was recorded still waits to be written to the editor (see flush); the recorder is told. */
  let flowing = false;
  const setFlowing = (on: boolean): void => {
    if (flowing === on) return;
    flowing = on;
    recording.flowing(on);
  };
  out.on('error', (e: NodeJS.ErrnoException) => {
    if (!clientGone) recording.event('client-stdout-error', { code: e.code ?? null });
    clientGone = true;
    setFlowing(false);
  });

  /** Requests of the editor not answered yet (id, and `params.sessionId`): answered by the tap if the connection fails. */
  const pending = new Map<string, { id: string | number | null; sessionId?: string }>();
  /** Requests the SDK failed as their session's stream ended, by session: said in one line once the burst is in. */
  const droppedBySession = new Map<string, (string | number | null)[]>();
  /** HTTP refusals said already (one line per session refused 409, per status otherwise). */
  const refusalsSaid = new Set<string>();
  let failure: string | null = null;
  let stdinEnded = false;
  /** The tap closes the connection (the editor's input ended and every request of it is answered). */
  let closing = false;
  let ending = false;
  let warnedNotSent = false;

  /**
   * The messages of one turn of the event loop go to the editor in one write of one buffer (at most
   * BATCH_BYTES): a stream of updates then costs a write per burst, not per message. (Corking the
   * stream did not do it: a corked writev of thousands of small buffers costs more than the copy.)
   * Each message is recorded as it comes, with its own time, and its batch goes into the capture log before the editor gets it.
   */
  let batch: Buffer[] = [];
  let batchBytes = 0;
  let flushQueued = false;
  const flush = (): void => {
    flushQueued = false;
    if (batch.length === 0) return;
    const bytes = batch.length === 1 ? batch[0]! : Buffer.concat(batch, batchBytes);
    batch = [];
    batchBytes = 0;
    // In the capture log first (as the stdio tap's native forwarder has it), then to the editor.
    recording.flush();
    if (clientGone) return;
    out.write(bytes, written);
    // Not all of it taken at once: the editor reads more slowly than the agent sends. Until it has
    // read it all, the recorder leaves the stream in the log (a stream of 1 KiB updates indexed as
    // it came cost the editor about a tenth of its speed on two cores).
    if (out.writableLength > 0) setFlowing(true);
  };
  const written = (): void => {
    if (out.writableLength === 0) setFlowing(false);
  };
  /**
   * Writes one message to the editor, recorded as the a2c line it was given. Nothing waits for a
   * full stdout: the SDK's client queues every message it parses, unbounded, whether they are read
   * or not, so waiting here only moved them into its queue (as objects, larger than their bytes),
   * and reading that queue after a wait cost more the longer it grew (see forwardToClient).
   */
  const toClient = (msg: unknown): void => toClientLine(Buffer.from(`${JSON.stringify(msg)}\n`));
  const toClientLine = (line: Buffer): void => {
    recording.lines('a2c', line);
    toBatch(line);
  };
  /** Writes one message's bytes (one line, no newline: see oneLine) to the editor, recorded. */
  const toClientBytes = (bytes: Buffer): void => {
    recording.line('a2c', bytes);
    toBatch(bytes, true);
  };
  const toBatch = (bytes: Buffer, newline = false): void => {
    if (clientGone) return;
    batch.push(bytes);
    if (newline) batch.push(NEWLINE);
    batchBytes += bytes.length + (newline ? 1 : 0);
    if (batchBytes >= BATCH_BYTES) flush();
    else if (!flushQueued) {
      flushQueued = true;
      setImmediate(flush);
    }
  };
  /**
   * The agent's notifications, held past the SDK's client and written as the agent sent them when
   * their placeholder comes out of it (see held.ts).
   */
  const held = new HeldMessages();
  const release = (msgs: HeldMessage[]): void => {
    for (const m of msgs) {
      if (typeof m === 'string') toClientLine(asLine(m));
      else toClientBytes(oneLine(Buffer.from(m.buffer, m.byteOffset, m.byteLength)));
    }
  };

  /** The transport failed: one line, recorded, every waiting request answered, and the tap ends. */
  const fail = (reason: string): void => {
    if (failure !== null || ending) return;
    failure = reason;
    // What the agent sent before the failure reaches the editor before the answers for what it did not.
    release(held.drain());
    say(`acp-inspect: ${reason}`);
    record({ op: 'error', transport, ...(note.status ? { status: note.status } : {}), message: reason });
    for (const { id } of pending.values()) answer(id);
    pending.clear();
    void end(1);
  };
  const answer = (id: string | number | null): void => {
    record({ op: 'answered-by-tap', transport, rpc: { id, kind: 'response' }, message: failure ?? undefined });
    toClient({
      jsonrpc: '2.0', id,
      error: { code: TRANSPORT_FAILED_CODE, message: `acp-inspect: ${failure}`, data: { transport, url: shown, ...(note.status ? { status: note.status } : {}) } },
    });
  };

  const describe = (e: unknown): string => describeFailure(e, note, shown);

  /**
   * The connection, made for the editor's first message (the SDK's WebSocket client connects as it is
   * made; its HTTP client with its first POST): a failure to connect then answers that message.
   */
  let writer: WritableStreamDefaultWriter<AnyMessage> | null = null;
  const connect = (): WritableStreamDefaultWriter<AnyMessage> => {
    if (writer) return writer;
    const stream = transport === 'http'
      ? createHttpStream(url, { fetch: watchingFetch(record, note, globalThis.fetch, held), headers: opts.headers })
      : createWebSocketStream(url, { WebSocket: watchingWebSocket(record, note, held), headers: opts.headers });
    writer = stream.writable.getWriter();
    void forwardToClient(stream.readable.getReader());
    return writer;
  };

  // editor → remote agent
  const splitter = new LineSplitter();
  let paused = false;
  const send = (bytes: Buffer): void => {
    const text = bytes.toString('utf8');
    if (text.trim() === '') return;
    let msg: unknown;
    try { msg = JSON.parse(text); } catch { msg = undefined; }
    if (!msg || typeof msg !== 'object' || Array.isArray(msg)) {
      record({ op: 'not-sent', transport, message: 'not a JSON-RPC message object' });
      if (!warnedNotSent) say('acp-inspect: a line from the editor is not a JSON-RPC message object and cannot be sent to a remote agent; it is recorded, not sent');
      warnedNotSent = true;
      return;
    }
    const ref = rpcRefOfValue(msg);
    if (ref.kind === 'request') {
      if (failure !== null) return answer(ref.id ?? null);
      pending.set(idKey(ref.id), { id: ref.id ?? null, ...(ref.sessionId !== undefined ? { sessionId: ref.sessionId } : {}) });
    }
    if (failure !== null) return;
    const writer = connect();
    const key = note.posted ? postKey(ref) : undefined;
    writer.write(msg as AnyMessage).then(
      key === undefined ? undefined : () => accountFor(key, ref),
      (e: unknown) => { if (!closing) fail(describe(e)); },
    );
    if (!paused && (writer.desiredSize ?? 1) <= 0) {
      // The SDK sends one message at a time: the editor's input waits meanwhile, as a full pipe would make it.
      paused = true;
      process.stdin.pause();
      writer.ready.then(() => { paused = false; if (!ending) process.stdin.resume(); }, () => { /* failed: fail() ends the tap */ });
    }
  };
  process.stdin.on('data', (chunk: Buffer) => {
    recording.lines('c2a', chunk);
    recording.flush();
    for (const line of splitter.push(chunk)) send(line);
  });
  process.stdin.on('error', () => { /* the editor vanished: its 'end' or our exit follows */ });
  process.stdin.on('end', () => {
    const last = splitter.end();
    if (last) send(last);
    recording.clientEnded();
    stdinEnded = true;
    closeWhenAnswered();
  });

  /**
   * Once the editor's input ended, the connection is closed when every request it sent is answered
   * (as an agent on stdio answers what it read before its input ended): the SDK ends it (HTTP: its
   * DELETE; WebSocket: a close), and the readable ends with it.
   */
  function closeWhenAnswered(): void {
    if (!stdinEnded || pending.size > 0 || closing || ending) return;
    closing = true;
    if (!writer) return void end(0);
    writer.close().catch(() => { /* already failed or closed */ });
    setTimeout(() => void end(failure === null ? 0 : 1), CLOSE_WAIT_MS);
  }

  // remote agent → editor
  async function forwardToClient(reader: ReadableStreamDefaultReader<AnyMessage>): Promise<void> {
    try {
      for (;;) {
        const r = await reader.read();
        if (r.done) break;
        if (held.is(r.value)) {
          release(held.take());
          continue;
        }
        const ref = rpcRefOfValue(r.value);
        if (ref.kind === 'response') {
          const request = pending.get(idKey(ref.id));
          pending.delete(idKey(ref.id));
          if (request?.sessionId !== undefined && isSessionStreamClosed(r.value)) sessionStreamDropped(request.sessionId, request.id);
          else if (request !== undefined) {
            const refused = httpRefusalOf(r.value);
            if (refused) requestRefused(request, refused);
          }
        }
        toClient(r.value);
        if (ref.kind === 'response') closeWhenAnswered();
      }
      if (closing) void end(failure === null ? 0 : 1);
      else fail(describeClose(note, shown));
    } catch (e) {
      if (closing && failure === null) void end(0);
      else fail(describe(e));
    }
  }

  /**
   * The SDK's HTTP client failed a request because its session's SSE stream ended (the agent ended
   * it; a broken one ends the connection): recorded before the error goes to the editor, and said in
   * one line per stream's end, once every request it failed is in (the SDK fails them all at once).
   */
  function sessionStreamDropped(sessionId: string, id: string | number | null): void {
    let ids = droppedBySession.get(sessionId);
    if (!ids) {
      ids = [];
      droppedBySession.set(sessionId, ids);
      setImmediate(() => {
        droppedBySession.delete(sessionId);
        const n = ids!.length;
        say(`acp-inspect: the remote agent at ${shown} ended the event stream of session ${sessionId} mid-turn: ${n} request${n === 1 ? '' : 's'} waiting on it failed; the connection goes on (the session's next message opens its stream again)`);
      });
    }
    ids.push(id);
    record({ op: 'session-stream-dropped', transport, sessionId, rpc: { id, kind: 'response' }, message: `the event stream of session ${sessionId} ended while this request waited on it` });
  }

  /**
   * The SDK's HTTP client has handled a notification or a response of the editor (it handles one
   * message at a time, in order, each with one POST or none): one of its POSTs is taken off the count,
   * and when there was none, it was discarded unsent. The SDK does that to the notifications and
   * responses of a session refused 409, until the editor loads or resumes it again (its requests get
   * an error, recorded as the tap's answers): recorded, and said once per session.
   */
  function accountFor(key: string, ref: RpcRef): void {
    const posted = note.posted!;
    const n = posted.get(key) ?? 0;
    if (n > 1) return void posted.set(key, n - 1);
    if (n === 1) return void posted.delete(key);
    const what = ref.kind === 'notification' ? `${ref.method ?? 'a'} notification` : `response to the agent's request ${JSON.stringify(ref.id ?? null)}`;
    const of = ref.sessionId !== undefined ? ` of session ${ref.sessionId}` : '';
    record({ op: 'not-sent', transport, ...(ref.sessionId !== undefined ? { sessionId: ref.sessionId } : {}), rpc: ref, message: `the SDK's client discarded the editor's ${what}${of}: its session was refused 409, and is not loaded or resumed again` });
    const said = `dropped ${ref.sessionId ?? ''}`;
    if (refusalsSaid.has(said)) return;
    refusalsSaid.add(said);
    say(`acp-inspect: the SDK's client discarded the editor's ${what}${of} without sending it (it discards a session's notifications and responses after a 409, until the editor loads or resumes it again); the remote agent never got it; recorded as not sent`);
  }

  /**
   * The SDK's HTTP client answered a request itself with an HTTP refusal: its POST, or its session's
   * stream, got an error status. Recorded before the error goes to the editor (the frame that follows
   * is the tap's answer, not the agent's), and said once per session refused 409 (the SDK fails that
   * session's requests until it is loaded or resumed again) or per status otherwise.
   */
  function requestRefused(request: { id: string | number | null; sessionId?: string }, refused: { status: number; body: string; message: string }): void {
    const conflict = refused.status === 409 && request.sessionId !== undefined;
    record({ op: 'answered-by-tap', transport, status: refused.status, ...(request.sessionId !== undefined ? { sessionId: request.sessionId } : {}), rpc: { id: request.id, kind: 'response' }, message: refused.message });
    const key = conflict ? `409 ${request.sessionId}` : String(refused.status);
    if (refusalsSaid.has(key)) return;
    refusalsSaid.add(key);
    const body = refused.body ? ` ("${refused.body.length > 200 ? `${refused.body.slice(0, 200)}…` : refused.body}")` : '';
    say(conflict
      ? `acp-inspect: the remote agent at ${shown} refused session ${request.sessionId} with 409 Conflict${body}: another receiver holds its event stream; the SDK's client fails that session's requests until the editor loads or resumes it again; the connection goes on`
      : `acp-inspect: the remote agent at ${shown} answered a request with HTTP ${refused.status}${body}; the request failed, the connection goes on`);
  }

  for (const sig of SIGNALS) {
    process.on(sig, () => {
      recording.event('signal', { signal: sig });
      if (ending) return;
      // End the remote connection (its DELETE) for at most CLOSE_WAIT_MS, then the tap.
      const closed = writer ? writer.close().catch(() => undefined) : Promise.resolve();
      void Promise.race([closed, new Promise((r) => setTimeout(r, CLOSE_WAIT_MS))]).then(() => end(128 + SIGNAL_NUMBERS[sig]!, sig));
    });
  }

  async function end(code: number, signal: string | null = null): Promise<void> {
    if (ending) return;
    ending = true;
    release(held.drain());
    flush();
    process.stdin.pause();
    // A WebSocket the SDK closed reports its close a moment later: recorded before the recording ends.
    for (let waited = 0; writer && transport === 'ws' && !note.wsClose && waited < WS_CLOSE_WAIT_MS; waited += 10) await new Promise((r) => setTimeout(r, 10));
    const stored = await recording.finish(code, signal);
    // What was written to the editor reaches it before the tap exits.
    if (!clientGone && out !== process.stdout) {
      await new Promise<void>((r) => {
        out.end(r);
        setTimeout(r, 2000).unref();
      });
    }
    recording.quiesce(stored);
    process.exit(code);
  }
}

/**
 * The HTTP refusal in an error the SDK's HTTP client answers a request with when its POST or its
 * session's stream got an error status (transports/http-stream.js, enqueueRequestError: -32603, the
 * HttpResponseError's message, `data: { status, body }`), null for any other message.
 */
function httpRefusalOf(msg: unknown): { status: number; body: string; message: string } | null {
  const error = (msg as { error?: { code?: unknown; message?: unknown; data?: unknown } } | null)?.error;
  if (error?.code !== TRANSPORT_FAILED_CODE || typeof error.message !== 'string' || !error.message.startsWith('ACP ')) return null;
  const data = error.data as { status?: unknown; body?: unknown } | null | undefined;
  if (typeof data?.status !== 'number') return null;
  const body = typeof data.body === 'string' ? data.body : data.body === undefined || data.body === null ? '' : JSON.stringify(data.body);
  return { status: data.status, body, message: error.message };
}

/**
 * Whether a message is the error the SDK's HTTP client answers a request with when its session's SSE
 * stream ended (transports/http-stream.js, handleSseEof: "ACP session SSE stream closed", -32603).
 */
function isSessionStreamClosed(msg: unknown): boolean {
  const error = (msg as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return error?.code === TRANSPORT_FAILED_CODE && error.message === 'ACP session SSE stream closed';
}

/** The one line for a connection the remote agent's side ended (the SDK's readable ended without an error). */
export function describeClose(note: FailureNote, url: string): string {
  const ws = note.wsClose;
  // 1006: the WebSocket ended without a close frame (the connection broke).
  if (ws?.code === 1006) return `the connection to the remote agent at ${url} dropped (WebSocket closed without a close frame, 1006)`;
  return `the remote agent at ${url} closed the connection${ws ? ` (WebSocket close ${ws.code}${ws.reason ? `: ${ws.reason}` : ''})` : ''}`;
}

/**
 * The one line the tap prints for a failed remote connection: what happened, where, and what to do
 * about it where there is something to do.
 */
export function describeFailure(e: unknown, note: FailureNote, url: string): string {
  const status = note.status ?? (e as { status?: unknown } | null)?.status;
  if (status === 401 || status === 403) {
    return `the remote agent at ${url} refused the credentials (HTTP ${status}${note.statusText ? ` ${note.statusText}` : ''}); give them with --header 'Authorization: Bearer …'`;
  }
  if (status === 404 || status === 410) return `no ACP connection at ${url} (HTTP ${status}): check the URL, or the agent ended the connection`;
  if (typeof status === 'number') return `the remote agent at ${url} answered HTTP ${status}${note.statusText ? ` ${note.statusText}` : ''}`;
  const c = classifyNetworkError(note.error ?? e);
  switch (c.kind) {
    case 'refused': return `cannot reach the remote agent at ${url}: ${c.reason}`;
    case 'dns': return `cannot reach the remote agent at ${url}: ${c.reason}`;
    case 'tls': return `TLS error with the remote agent at ${url}: ${c.reason} (for a private CA, point NODE_EXTRA_CA_CERTS at its certificate)`;
    case 'dropped': return `the connection to the remote agent at ${url} dropped: ${c.reason}`;
    default: break;
  }
  const err = (note.error ?? e) as Error | null;
  // fetch's own failure ("fetch failed") says why in its cause: a request that never got an answer.
  if (err?.message === 'fetch failed') return `cannot reach the remote agent at ${url}: ${c.reason}`;
  const message = ((e as Error | null)?.message ?? String(e)).replace(/\s+/g, ' ').trim();
  if (/SSE stream closed/.test(message)) return `the remote agent at ${url} closed its event stream (${message})`;
  // The SDK's client needs the RFD's connection header; an agent on an earlier draft's model lacks it.
  if (/missing Acp-Connection-Id/.test(message)) {
    return `the remote agent at ${url} answered initialize without the Acp-Connection-Id header of the transport's RFD (an agent on an earlier draft's header model, such as Goose's pilot naming the connection with Acp-Session-Id); the bridge speaks the RFD's model; record such an agent with \`acp-inspect proxy\` between it and a client that speaks its model`;
  }
  return `the remote agent at ${url} failed: ${message}`;
}
