/**
 * Classifies one raw line as a JSON-RPC message. Pure and total: never throws, whatever the input.
 * Anything that is not a JSON-RPC object becomes kind `invalid` with a `parseError` saying why;
 * rule checks (missing `"jsonrpc"`, result and error together, ...) belong to the checker.
 */
import type { ParsedFrame, RpcId } from './frame.js';

export function parseLine(raw: string): ParsedFrame {
  if (raw.trim() === '') return { kind: 'invalid', parseError: 'blank line' };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (e) {
    return { kind: 'invalid', parseError: `not JSON: ${(e as Error).message}` };
  }
  return classify(json);
}

/** Classifies an already parsed JSON value. */
export function classify(json: unknown): ParsedFrame {
  if (Array.isArray(json)) {
    return { kind: 'invalid', json, parseError: 'JSON array (a JSON-RPC batch); ACP does not support batches' };
  }
  if (json === null || typeof json !== 'object') {
    return { kind: 'invalid', json, parseError: `JSON ${json === null ? 'null' : typeof json}, not a JSON-RPC object` };
  }
  const o = json as Record<string, unknown>;
  const id = isRpcId(o.id) ? (o.id as RpcId) : undefined;
  if (typeof o.method === 'string') {
    if ('id' in o) return { kind: 'request', method: o.method, id, json };
    return { kind: 'notification', method: o.method, json };
  }
  if ('method' in o) return { kind: 'invalid', json, id, parseError: '"method" is not a string' };
  if ('error' in o) return { kind: 'error', id, json };
  if ('result' in o) return { kind: 'result', id, json };
  return { kind: 'invalid', json, id, parseError: 'neither a request, a notification nor a response' };
}

function isRpcId(v: unknown): boolean {
  return typeof v === 'string' || typeof v === 'number' || v === null;
}

/** A stable key for an id: `"7"` and `7` are different ids in JSON-RPC. */
export function idKey(id: RpcId | undefined): string {
  return typeof id === 'string' ? `s:${id}` : `n:${String(id)}`;
}

/** `params.sessionId` or `result.sessionId`, when it is a string. */
export function sessionIdOf(json: unknown): string | undefined {
  if (json === null || typeof json !== 'object') return undefined;
  const o = json as Record<string, unknown>;
  for (const k of ['params', 'result']) {
    const v = o[k];
    if (v && typeof v === 'object' && typeof (v as Record<string, unknown>).sessionId === 'string') {
      return (v as Record<string, unknown>).sessionId as string;
    }
  }
  return undefined;
}
