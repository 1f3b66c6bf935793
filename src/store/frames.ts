/**
 * A stored recording's frames for comparing two recordings (the Compare view, `acp-inspect diff`):
 * only the protocol frames (no stderr lines, no events, which a comparison never reads), each row
 * fetched as an array, with only the columns a comparison reads (not the latency, nor the bytes of
 * a line that was not UTF-8). The fields are those `readItems` gives (`itemOf`'s reading), built
 * without its intermediate objects. The first recording's frames parse their JSON when it is read
 * (`LazyJsonFrame`), so a comparison need not hold every parsed frame at once.
 */
import type { Direction, Frame, FrameKind, RpcId } from '../wire/frame.js';
import type { Recording } from '../transcript/format.js';
import { classify, sessionIdOf } from '../wire/parse.js';
import { utf8Length } from '../wire/make-frame.js';
import { LazyJsonFrame, parseOrUndefined } from '../replay/lazy-frame.js';
import type { Store } from './store.js';

type Row = [number, number, string, string | null, string | null, string | null, number | null, string | null, number | null, string, string | null, number | null];

const FRAMES = `SELECT seq, t, dir, kind, method, rpc_id, reply_to, session_id, size, raw, parse_error, truncated
  FROM items WHERE recording_id = ? AND dir IN ('c2a', 'a2c') ORDER BY seq`;

/** Whether a stored line is read as JSON (not when it was stored as "not JSON"), as `itemOf` decides. */
function parsesJson(kind: string | null, parseError: string | null): boolean {
  return kind !== 'invalid' || parseError === null || !parseError.startsWith('not JSON');
}

/** The JSON-RPC id from its stored JSON text (numbers without JSON.parse). */
function idOf(s: string): RpcId {
  const c = s.charCodeAt(0);
  return c === 45 || (c >= 48 && c <= 57) ? Number(s) : (JSON.parse(s) as RpcId);
}

const KINDS: Record<string, FrameKind> = { request: 'request', notification: 'notification', result: 'result', error: 'error', invalid: 'invalid' };

/** The frame of a row, JSON parsed (as `itemOf` builds it, but for the fields a comparison never reads). */
function frameOf(r: Row): Frame {
  const [seq, t, dir, kind, method, rpcId, replyTo, sessionId, size, raw, parseError, truncated] = r;
  const json = parsesJson(kind, parseError) ? parseOrUndefined(raw) : undefined;
  const f: Frame = { seq, t, dir: dir as Direction, raw, size: size ?? utf8Length(raw), kind: (kind as FrameKind) ?? 'invalid' };
  if (json !== undefined) f.json = json;
  if (method !== null) f.method = method;
  else if (json !== undefined) {
    const m = classify(json).method;
    if (m) f.method = m;
  }
  if (rpcId !== null) f.id = idOf(rpcId);
  if (replyTo !== null) f.replyTo = replyTo;
  if (sessionId !== null) f.sessionId = sessionId;
  else {
    const sid = sessionIdOf(json);
    if (sid) f.sessionId = sid;
  }
  if (parseError !== null) f.parseError = parseError;
  if (truncated) f.truncated = true;
  return f;
}

/** Whether a line read as JSON could hold `key` (its name occurs, or a `\u` escape could spell it). */
function mayHold(parse: boolean, raw: string, key: string): boolean {
  return parse && (raw.includes(key) || raw.includes('\\u'));
}

/** The one copy of `s` in `names`. */
function intern(names: Map<string, string>, s: string): string {
  const v = names.get(s);
  if (v !== undefined) return v;
  names.set(s, s);
  return s;
}

/**
 * The same frame with its JSON parsed lazily. The line is parsed now only where the frame's fields
 * need it: its `sessionUpdate` kind, and a method or session id the columns lack that the text could
 * hold. Names repeated on every frame (methods, session ids) are shared, not held once per frame.
 */
function lazyFrameOf(r: Row, names: Map<string, string>): LazyJsonFrame {
  const [seq, t, dir, kind, method, rpcId, replyTo, sessionId, size, raw, parseError, truncated] = r;
  const parse = parsesJson(kind, parseError);
  const now = (method === null && mayHold(parse, raw, 'method')) || (sessionId === null && mayHold(parse, raw, 'sessionId')) ? { value: parseOrUndefined(raw) } : undefined;
  // A line stored as a JSON-RPC message and not cut was parsed when it was stored: it is well-formed.
  const wellFormed = kind !== null && kind !== 'invalid' && !truncated;
  const f = new LazyJsonFrame(seq, t, dir === 'c2a' ? 'c2a' : 'a2c', raw, size ?? utf8Length(raw), kind === null ? 'invalid' : (KINDS[kind] ?? (kind as FrameKind)), parse, now, wellFormed);
  if (method !== null) f.method = intern(names, method);
  else if (now?.value !== undefined) {
    const m = classify(now.value).method;
    if (m) f.method = m;
  }
  if (rpcId !== null) f.id = idOf(rpcId);
  if (replyTo !== null) f.replyTo = replyTo;
  if (sessionId !== null) f.sessionId = intern(names, sessionId);
  else if (now !== undefined) {
    const sid = sessionIdOf(now.value);
    if (sid) f.sessionId = sid;
  }
  if (parseError !== null) f.parseError = parseError;
  if (truncated) f.truncated = true;
  return f;
}

/** The c2a and a2c items of recording `id` in seq order, their JSON parsed when read (see `LazyJsonFrame`). */
export function readFrames(store: Store, id: number): Frame[] {
  const names = new Map<string, string>();
  const out: Frame[] = [];
  for (const r of store.db.prepare(FRAMES).raw(true).iterate(id) as IterableIterator<Row>) out.push(lazyFrameOf(r, names));
  return out;
}

/** The same frames one at a time, parsed (nothing is held but the frame being read; the connection is busy until the end). */
export function* iterateFrames(store: Store, id: number): Generator<Frame> {
  for (const r of store.db.prepare(FRAMES).raw(true).iterate(id) as IterableIterator<Row>) yield frameOf(r);
}

/** Recording `id` with its frames only (header as stored), for comparing. */
export function loadFramesOf(store: Store, id: number): Recording {
  return { header: store.headerOf(id), items: readFrames(store, id) };
}
