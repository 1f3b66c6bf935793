/**
 * What unknown-field and unstable-field share: the field names of each frame (the schema verdict's
 * `fields`, see spec/fields.ts) are tallied by method and path, and each path is reported once, at
 * the end of the recording, at the frame it was first seen on, with how many frames carried it.
 */
import type { EndContext, FrameContext } from '../rule.js';
import { SHAPE_DISPUTED, obj } from './util.js';

interface Seen {
  seq: number;
  count: number;
  method: string;
  path: string;
}

export function tallyFields(c: FrameContext, unstable: boolean): void {
  // The names are those of the v1 schema: on a connection that negotiated another version they say nothing.
  const v = c.method === 'initialize' && c.frame.kind === 'result' ? obj(c.msg?.result)?.protocolVersion : c.state.protocolVersion ?? c.state.requestedVersion;
  if (v !== undefined && v !== 1) return;
  const fields = c.schema()?.fields;
  // Where spec.md and the SDK's schema disagree on a method's fields, the schema's names are no guide.
  if (fields === undefined || c.method === undefined || SHAPE_DISPUTED.has(c.method)) return;
  for (const f of fields) if (f.unstable === unstable) tally(c, c.method, f.path);
}

function tally(c: FrameContext, method: string, path: string): void {
  const memory = c.memory<Seen>();
  const key = `${method} ${path}`;
  const seen = memory.get(key);
  if (seen) seen.count++;
  else memory.set(key, { seq: c.frame.seq, count: 1, method, path });
}

/**
 * Members of the message itself beyond JSON-RPC's (`jsonrpc`, `id`, `method`, `params`, `result`,
 * `error`; part 4) and of an error object beyond `code`, `message`, `data` (part 7). Whatever the
 * protocol version: these are the wire's names.
 */
export function tallyEnvelope(c: FrameContext): void {
  const m = c.msg;
  if (m === undefined) return;
  const method = c.method ?? `(${c.frame.kind})`;
  for (const k in m) {
    if (k !== 'jsonrpc' && k !== 'id' && k !== 'method' && k !== 'params' && k !== 'result' && k !== 'error' && k.charCodeAt(0) !== UNDERSCORE) tally(c, method, `message.${k}`);
  }
  if (c.frame.kind !== 'error') return;
  const e = obj(m.error);
  if (e) for (const k in e) if (k !== 'code' && k !== 'message' && k !== 'data' && k.charCodeAt(0) !== UNDERSCORE) tally(c, method, `error.${k}`);
}

const UNDERSCORE = 95;

export function reportFields(c: EndContext, say: (method: string, path: string) => string): void {
  for (const s of c.memory<Seen>().values()) {
    c.report(`${say(s.method, s.path)} (${s.count === 1 ? 'once' : `${s.count} frames`}, first at #${s.seq})`, { seq: s.seq });
  }
}
