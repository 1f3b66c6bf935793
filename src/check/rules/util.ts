/** Small helpers shared by the rules. */
import type { ModelState, PendingRequest, SessionState } from '../model.js';
import { obj, pendingKey, str } from '../model.js';

export { at, obj, str } from '../model.js';

/** The client's capabilities as sent in `initialize` (empty when none). */
export function clientCaps(s: ModelState): Record<string, unknown> {
  return s.client.capabilities ?? {};
}
/** The agent's capabilities from the `initialize` result (empty when none). */
export function agentCaps(s: ModelState): Record<string, unknown> {
  return s.agent.capabilities ?? {};
}
/** True when a capability member is a non-null object (the `{}` advertisement style). */
export function present(v: unknown): boolean {
  return v !== null && typeof v === 'object';
}

/** Absolute path: POSIX `/...`, Windows `C:\...` or `C:/...`, or UNC `\\server\...`. */
export function isAbsolutePath(p: string): boolean {
  return p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');
}

/** The session a frame's params name, when known. */
export function sessionOf(s: ModelState, params: Record<string, unknown> | undefined): SessionState | undefined {
  const sid = str(params?.sessionId);
  return sid !== undefined ? s.sessions[sid] : undefined;
}

/** `params.update` of a session/update and its `sessionUpdate` kind. */
export function updateOf(params: Record<string, unknown> | undefined): { u: Record<string, unknown> | undefined; kind: string | undefined } {
  const u = obj(params?.update);
  return { u, kind: str(u?.sessionUpdate) };
}

/** Short quote of a value for messages. */
export function quote(v: unknown, max = 60): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v) ?? String(v);
  return JSON.stringify(s.length > max ? `${s.slice(0, max)}…` : s);
}

export function who(dir: 'c2a' | 'a2c'): string {
  return dir === 'c2a' ? 'client' : 'agent';
}

/** The error object of an error response, when it is an object. */
export function errorOf(msg: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  return obj(msg?.error);
}

/** For a `$/cancel_request`: the id it names and the request of that id in flight from the sender (`mine`) or from the other side (`theirs`). */
export function cancelTarget(s: ModelState, dir: 'c2a' | 'a2c', params: Record<string, unknown> | undefined): { rid: string | number | null; mine?: PendingRequest; theirs?: PendingRequest } | undefined {
  const rid = params?.requestId;
  if (typeof rid !== 'string' && typeof rid !== 'number' && rid !== null) return undefined;
  return { rid, mine: s.pending[pendingKey(dir, rid)], theirs: s.pending[pendingKey(dir === 'c2a' ? 'a2c' : 'c2a', rid)] };
}
