/**
 * Writing a client's frame by hand (the console's raw composer): the methods a client may send with
 * whether each is a request or a notification and UNSTABLE, a skeleton of a method's message with
 * its required params (read from the protocol's schema), and warnings about a line as written: not
 * JSON, not JSON-RPC, an unknown method, one the agent sends rather than the client, a request
 * without an id, params the schema refuses. Warnings never stop a send: sending something invalid on
 * purpose is what a raw composer is for. Pure: schema data and text in, data out.
 */
import { METHODS, isExtensionName, type MethodSpec } from './methods.js';
import { STABLE_SCHEMA, UNSTABLE_SCHEMA } from './schema-data.js';
import { methodDefs, type SchemaRole } from './schema-defs.js';
import { validateMethod } from './schema.js';
import { fieldNotes } from './fields.js';

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A method a client sends, as the composer offers it. */
export interface ComposableMethod {
  name: string;
  kind: 'request' | 'notification';
  unstable: boolean;
  /** The spec section that describes it. */
  spec: string;
}

/** One thing the composer says about a line: `warning` for what the protocol refuses, `info` for what is only worth knowing. */
export interface ComposeNote {
  level: 'warning' | 'info';
  text: string;
}

/** Every method a client sends the agent (spec 4.1 and 4.3), requests and notifications, in the method table's order. */
export function composableMethods(): ComposableMethod[] {
  const out: ComposableMethod[] = [];
  for (const m of METHODS.values()) {
    if (m.side !== 'agent' && m.name !== '$/cancel_request') continue;
    out.push({ name: m.name, kind: m.kind === 'notification' ? 'notification' : 'request', unstable: m.unstable === true, spec: m.spec });
  }
  return out;
}

const stableDefs = methodDefs(STABLE_SCHEMA);
const unstableDefs = methodDefs(UNSTABLE_SCHEMA);

/** The schema definition of a method's params or result, and the schema it is in (stable first). */
function defOf(method: string, role: SchemaRole): { schema: Json; node: Json } | null {
  for (const [schema, defs] of [[STABLE_SCHEMA, stableDefs], [UNSTABLE_SCHEMA, unstableDefs]] as const) {
    const name = defs.get(`${method} ${role}`);
    const node = name ? ((schema.$defs as Json)[name] as Json | undefined) : undefined;
    if (node) return { schema, node };
  }
  return null;
}

/**
 * A value of the shape `node` requires, with only its required fields: `""`, `0`, `false`, `[]`, an
 * object's required properties, a union's first branch (never `null`), a const or an enum's first value.
 */
function sample(node: unknown, schema: Json, depth = 0): unknown {
  if (!isObj(node) || depth > 8) return null;
  if (typeof node.$ref === 'string') return sample((schema.$defs as Json)[node.$ref.replace('#/$defs/', '')], schema, depth + 1);
  if ('const' in node) return node.const;
  if (Array.isArray(node.enum) && node.enum.length) return node.enum[0];
  const type = Array.isArray(node.type) ? node.type.find((t) => t !== 'null') : node.type;
  const allOf: unknown[] = Array.isArray(node.allOf) ? node.allOf : [];
  const union = (Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : []).filter((b) => !(isObj(b) && b.type === 'null'));
  const objectLike = type === 'object' || isObj(node.properties) || Array.isArray(node.required);
  if (!objectLike && type === undefined) {
    // A wrapper: `allOf` parts (merged when they are objects) or a union (its first branch).
    const parts = (allOf.length ? allOf : union.slice(0, 1)).map((p) => sample(p, schema, depth + 1));
    return parts.every(isObj) && parts.length ? Object.assign({}, ...parts) : parts[0] ?? null;
  }
  if (objectLike) {
    const props: Json = {};
    for (const part of [...allOf, ...union.slice(0, 1)]) {
      const v = sample(part, schema, depth + 1);
      if (isObj(v)) Object.assign(props, v);
    }
    const own = isObj(node.properties) ? node.properties : {};
    for (const r of Array.isArray(node.required) ? node.required.map(String) : []) if (!(r in props)) props[r] = sample(own[r], schema, depth + 1);
    return props;
  }
  if (type === 'array') return [];
  if (type === 'string') return '';
  if (type === 'integer' || type === 'number') return typeof node.minimum === 'number' ? node.minimum : 0;
  if (type === 'boolean') return false;
  return null;
}

/** What the composer fills in where a skeleton's params name it (top level only). */
export interface SkeletonFill {
  sessionId?: string;
  cwd?: string;
}

/** The protocol version the console speaks (the one a skeleton's initialize asks for). */
const PROTOCOL_VERSION = 1;

/**
 * The message a method's pick starts from: `jsonrpc`, the `id` (a request only), the method, and its
 * params with every required field (from the schema, or from spec.md's list for a method the schema
 * does not describe), `fill`'s values where a field of that name is at the top. An unknown method
 * gets empty params.
 */
export function skeleton(method: string, id: number | string | null, fill: SkeletonFill = {}): Json {
  const spec: MethodSpec | undefined = METHODS.get(method);
  const def = defOf(method, 'params');
  let params: Json = {};
  if (def) {
    const v = sample(def.node, def.schema);
    if (isObj(v)) params = v;
  } else if (spec?.required?.params) {
    for (const p of spec.required.params) params[p] = spec.required.types?.[p] === 'int64' ? 0 : '';
  }
  if ('protocolVersion' in params) params.protocolVersion = PROTOCOL_VERSION;
  if ('sessionId' in params && fill.sessionId !== undefined) params.sessionId = fill.sessionId;
  if ('cwd' in params && fill.cwd !== undefined) params.cwd = fill.cwd;
  const request = spec ? spec.kind !== 'notification' : true;
  return { jsonrpc: '2.0', ...(request ? { id } : {}), method, params };
}

/**
 * What is wrong with, or worth knowing about, a line the client is about to send. The line is not
 * changed and never refused here: the composer shows these under the box and sends what is written.
 */
export function composeNotes(text: string): ComposeNote[] {
  const warn = (t: string): ComposeNote => ({ level: 'warning', text: t });
  const info = (t: string): ComposeNote => ({ level: 'info', text: t });
  if (text.trim() === '') return [];
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch (e) {
    return [warn(`not JSON (${(e as Error).message}): the agent should answer a parse error (-32700)`)];
  }
  if (!isObj(msg)) return [warn(Array.isArray(msg) ? 'a JSON array: ACP sends one JSON-RPC message per line, not a batch' : 'not a JSON-RPC message: a message is a JSON object')];
  const out: ComposeNote[] = [];
  if (msg.jsonrpc !== '2.0') out.push(warn(`"jsonrpc" must be "2.0"${'jsonrpc' in msg ? `, not ${JSON.stringify(msg.jsonrpc)}` : ' (it is missing)'}`));
  const hasId = 'id' in msg;
  if (hasId && msg.id !== null && typeof msg.id !== 'string' && !Number.isInteger(msg.id)) out.push(warn(`"id" must be a string, an integer or null, not ${JSON.stringify(msg.id)}`));
  if (!('method' in msg)) {
    // An answer to one of the agent's requests.
    if (!hasId) out.push(warn('neither a "method" (a request or notification) nor an "id" (an answer)'));
    else if (('result' in msg) === ('error' in msg)) out.push(warn('an answer has exactly one of "result" and "error"'));
    else if ('error' in msg && !(isObj(msg.error) && Number.isInteger(msg.error.code) && typeof msg.error.message === 'string')) out.push(warn('"error" must be an object with an integer "code" and a string "message"'));
    return out;
  }
  if (typeof msg.method !== 'string') return [...out, warn(`"method" must be a string, not ${JSON.stringify(msg.method)}`)];
  const method = msg.method;
  if ('params' in msg && msg.params !== null && typeof msg.params !== 'object') out.push(warn(`"params" must be an object or an array, not ${JSON.stringify(msg.params)}`));
  if (isExtensionName(method)) return [...out, info(`${method} is an extension method (a leading "_"): the schema does not describe it`)];
  const spec = METHODS.get(method);
  if (!spec) {
    const near = composableMethods().map((m) => m.name).filter((n) => n.split('/').pop() === method.split('/').pop() || n.startsWith(method));
    return [...out, warn(`unknown method ${method}: the protocol has no such method (the agent should answer -32601)${near.length ? `; did you mean ${near.slice(0, 3).join(', ')}?` : ''}`)];
  }
  if (spec.side === 'client') out.push(warn(`${method} is sent by the agent to the client, not by a client`));
  if (spec.kind === 'request' && !hasId) out.push(warn(`${method} is a request: without an "id" it is a notification, and gets no answer`));
  if (spec.kind === 'notification' && hasId) out.push(warn(`${method} is a notification: with an "id" it is a request, which the agent does not answer`));
  if (spec.unstable) out.push(info(`${method} is UNSTABLE: an agent may not implement it`));
  if (spec.gate) out.push(info(`only when the ${spec.gate.holder} advertises ${spec.gate.holder}Capabilities.${spec.gate.path.join('.')}`));
  const params = msg.params;
  if (defOf(method, 'params')) {
    const r = validateMethod(method, 'params', params);
    if (!r.ok) out.push(...(r.problems.length ? r.problems : ['params do not match the schema']).map((p) => warn(p.replace(/^(params[^:]*): /, '$1 '))));
    for (const u of r.unknowns) out.push(info(`${u.path}: ${JSON.stringify(u.value)} is not a known ${u.kind === 'variant' ? 'kind' : 'value'} (${u.known.join(', ')})`));
    for (const f of fieldNotes(method, 'params', params)) out.push(info(f.unstable ? `${f.path} is UNSTABLE` : `${f.path} is not a field the schema knows`));
  } else if (spec.required?.params) {
    const p = isObj(params) ? params : {};
    for (const name of spec.required.params) if (!(name in p)) out.push(warn(`params must have required property '${name}'`));
  }
  return out;
}
