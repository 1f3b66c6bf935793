/** Small helpers shared by the rules. */
import type { ModelState, PendingRequest, SessionState } from '../model.js';
import { obj, pendingKey, str } from '../model.js';
import { CONVERSATION_UPDATES } from '../../spec/transitions.js';

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

/**
 * A conversation update (message chunks, tool calls, plans: CONVERSATION_UPDATES) of a known
 * session: the session and the update's kind; undefined for any other update or session.
 */
export function conversationUpdate(s: ModelState, params: Record<string, unknown> | undefined): { s: SessionState; kind: string } | undefined {
  const session = sessionOf(s, params);
  const { kind } = updateOf(params);
  if (!session || kind === undefined || !CONVERSATION_UPDATES.has(kind)) return undefined;
  return { s: session, kind };
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

const CONTENT_TYPES: ReadonlySet<string> = new Set(['text', 'image', 'audio', 'resource_link', 'resource']);

/**
 * The spec section a schema problem belongs to, from the problem's path (`params.prompt[0].text: ...`)
 * and the value there: content blocks 2.6, diffs/commands/costs/env 2.7, MCP servers 2.8,
 * elicitation 2.9, session update payloads 2.10, terminal results 2.11, providers 2.12, auth methods
 * 2.5, implementation info 2.4, capabilities 2.3; otherwise `fallback` (the method table).
 */
export function schemaSection(method: string | undefined, problem: string | undefined, root: unknown, fallback: string): string {
  if (method === 'elicitation/create') return '2.9';
  if (method?.startsWith('providers/')) return '2.12';
  if (method === 'terminal/output' || method === 'terminal/wait_for_exit') {
    if (problem?.startsWith('result')) return '2.11';
  }
  if (!problem) return fallback;
  const path = problem.slice(0, problem.indexOf(':') < 0 ? problem.length : problem.indexOf(':'));
  if (/\bmcpServers\b/.test(path)) return '2.8';
  if (/\bauthMethods\b/.test(path)) return '2.5';
  if (/\b(clientInfo|agentInfo)\b/.test(path)) return '2.4';
  if (/Capabilities\b/.test(path)) return '2.3';
  if (/\b(availableCommands|cost)\b/.test(path) || /\benv\[/.test(path)) return '2.7';
  // Walk the value along the path; the deepest object with a content or diff `type` decides.
  const segs = path.split(/[.[\]]+/).filter(Boolean);
  let v: unknown = root;
  let found: string | undefined;
  for (const k of segs) {
    const o = obj(v);
    if (o && typeof o.type === 'string') {
      if (CONTENT_TYPES.has(o.type)) found = '2.6';
      else if (o.type === 'diff') found = '2.7';
    }
    if (v === null || typeof v !== 'object') break;
    v = (v as Record<string, unknown>)[k];
  }
  const last = obj(v);
  if (last && typeof last.type === 'string') {
    if (CONTENT_TYPES.has(last.type)) found = '2.6';
    else if (last.type === 'diff') found = '2.7';
  }
  if (found) return found;
  if (/\b(prompt|annotations|resource)\b/.test(path)) return '2.6';
  if (method === 'session/update' && /^params\.update\b/.test(path)) return '2.10';
  return fallback;
}

/** UNSTABLE methods whose SDK schema and spec.md disagree (only info for their shape problems). */
export const SHAPE_DISPUTED: ReadonlySet<string> = new Set(['mcp/message', 'mcp/connect', 'mcp/disconnect']);
