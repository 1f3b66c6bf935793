/**
 * The checker: a pure fold over recorded items. For each frame it works out what the frame means
 * (method, params, the request a response answers), runs the rules that apply against the state
 * before the frame, then applies the frame to the model. Constant work per item; never throws.
 */
import { type Frame, type FrameKind, type Item, isFrame, reverse } from '../wire/frame.js';
import { lazyChunkKind } from '../wire/lazy-chunk.js';
import { CHUNK_UPDATES } from '../wire/chunk-line.js';
import { METHODS, isExtensionName } from '../spec/methods.js';
import { type SchemaResult, validateMethod } from '../spec/schema.js';
import { fieldNotes } from '../spec/fields.js';
import { applyEvent, applyFrame, initialState, reviveState, type FrameFacts, type ModelState, obj, pendingKey } from './model.js';
import type { FrameContext, Rule, Severity } from './rule.js';
import { ALL_RULES } from './rules/index.js';

export interface Finding {
  seq: number;
  severity: Severity;
  rule: string;
  message: string;
  /** Section of the spec, e.g. "4.4 rule 4". */
  spec: string;
}

export interface CheckOptions {
  /** Rule ids to silence. */
  ignore?: string[];
  /** Called when a rule or the model throws (a bug in the checker; the fold goes on). For tests and debugging. */
  onInternalError?: (error: unknown, where: string) => void;
  /** Go on from a snapshot (Checker.snapshot, through JSON) rather than from the start of a recording. */
  from?: CheckerSnapshot;
}

/**
 * Everything the fold carries from one item to the next, as plain JSON: the model's state, the
 * rules' memories and which one-time findings were made. A checker created `from` it goes on exactly
 * as the one that made it would (an indexer that takes over a recording halfway, see
 * src/tap/recorder/lines.ts). What it does not hold is only a cache (schema verdicts by chunk kind).
 */
export interface CheckerSnapshot {
  state: ModelState;
  memories: [string, [string, unknown][]][];
  once: string[];
}

export interface Checker {
  /**
   * Constant work per item; never throws, whatever the input. `chunk`: only for a frame made by
   * wire/chunk-line.ts's chunkFrame, or whose JSON wire/chunk-frame.ts's chunkFrameOf made (a stored
   * row's: view/columns.ts), the index of its update kind; the schema's verdict on such a
   * frame's params is the same for all of them (the session id, the text and a messageId are only
   * type-checked: each is `{"type":"string"}` in the schemas, which test/check/chunk-line.test.ts
   * asserts), so it is worked out once per kind, with a messageId and without.
   */
  step(item: Item, chunk?: number): Finding[];
  /** End of recording: unanswered requests, terminals never released, ... */
  end(): Finding[];
  /** Current state (JSON-serializable; treat as read-only). */
  readonly state: ModelState;
  /** The fold's state between two items (CheckOptions.from): live objects, to serialize before the next step. */
  snapshot(): CheckerSnapshot;
}

const KINDS: readonly FrameKind[] = ['request', 'notification', 'result', 'error', 'invalid'];
const UPDATE = 'session/update';

/** Rules indexed by frame kind (and method), so each frame only meets the rules that apply to it. */
interface Dispatch {
  general: Record<FrameKind, Rule[]>;
  byMethod: Record<FrameKind, Map<string, Rule[]>>;
  /** session/update notification rules by `sessionUpdate` kind. */
  byUpdate: Map<string, Rule[]>;
  items: Rule[];
  ends: Rule[];
}

function buildDispatch(ignore: ReadonlySet<string>): Dispatch {
  const d: Dispatch = { general: {} as Dispatch['general'], byMethod: {} as Dispatch['byMethod'], byUpdate: new Map(), items: [], ends: [] };
  for (const k of KINDS) {
    d.general[k] = [];
    d.byMethod[k] = new Map();
  }
  for (const r of ALL_RULES) {
    if (ignore.has(r.id)) continue;
    if (r.check && r.updates) {
      for (const u of r.updates) {
        const list = d.byUpdate.get(u) ?? [];
        list.push(r);
        d.byUpdate.set(u, list);
      }
    } else if (r.check) {
      for (const k of r.kinds ?? KINDS) {
        if (r.methods) {
          for (const m of r.methods) {
            const list = d.byMethod[k].get(m) ?? [];
            list.push(r);
            d.byMethod[k].set(m, list);
          }
        } else d.general[k].push(r);
      }
    }
    if (r.item) d.items.push(r);
    if (r.end) d.ends.push(r);
  }
  return d;
}

const defaultDispatch = buildDispatch(new Set());

export function createChecker(opts: CheckOptions = {}): Checker {
  const d = opts.ignore && opts.ignore.length ? buildDispatch(new Set(opts.ignore)) : defaultDispatch;
  const from = opts.from;
  const state = from ? reviveState(from.state) : initialState();
  let out: Finding[] = [];
  let current: Rule = ALL_RULES[0]!;
  let schemaDone = false;
  let schemaValue: SchemaResult | undefined;
  /** The chunk kind of the frame being checked (-1 for any other frame), and the schema's verdict by chunk kind. */
  let chunkKind = -1;
  const chunkSchema: (SchemaResult | undefined)[] = [];
  const onceKeys = new Set<string>(from?.once);
  /** Each rule's memory over the recording (FrameContext.memory), by rule id. */
  const memories = new Map<string, Map<string, unknown>>(from?.memories.map(([id, m]) => [id, new Map(m)]));
  const memoryOf = (id: string): Map<string, unknown> => {
    let m = memories.get(id);
    if (!m) memories.set(id, (m = new Map()));
    return m;
  };

  const facts: FrameFacts = { frame: undefined as unknown as Frame };
  /**
   * The version the frame being checked is judged by, when it settles it: the answer to the first
   * initialize negotiates the version (9 rule 2), so that frame is judged by the version it answers,
   * not by the one the client asked for.
   */
  let frameVersion: number | undefined;

  function push(rule: Rule, seq: number, message: string, o?: { spec?: string; severity?: Severity }): void {
    let severity = o?.severity ?? rule.severity;
    let msg = message;
    const v = frameVersion ?? state.protocolVersion ?? state.requestedVersion;
    if (rule.layer !== 'wire' && v !== undefined && v !== 1 && severity !== 'info') {
      severity = 'info';
      msg = `${message} (a v1 rule; protocol version ${v} was negotiated)`;
    }
    out.push({ seq, severity, rule: rule.id, message: msg, spec: o?.spec ?? rule.spec });
  }

  const ctx: FrameContext = {
    frame: facts.frame,
    msg: undefined,
    method: undefined,
    spec: undefined,
    params: undefined,
    req: undefined,
    state,
    schema(): SchemaResult | undefined {
      if (schemaDone) return schemaValue;
      schemaDone = true;
      if (chunkKind < 0) schemaValue = computeSchema(ctx);
      else {
        // A chunk with a messageId (a string, also only type-checked) has a verdict of its own.
        const key = 'messageId' in (ctx.frame.json as { params: { update: object } }).params.update ? chunkKind + CHUNK_UPDATES.length : chunkKind;
        if (!(key in chunkSchema)) chunkSchema[key] = computeSchema(ctx);
        schemaValue = chunkSchema[key];
      }
      return schemaValue;
    },
    report(message, o) {
      push(current, o?.seq ?? ctx.frame.seq, message, o);
    },
    memory<T>(): Map<string, T> {
      return memoryOf(current.id) as Map<string, T>;
    },
    once(key: string): boolean {
      const k = `${current.id}:${key}`;
      if (onceKeys.has(k)) return false;
      onceKeys.add(k);
      return true;
    },
  };

  function runRule(r: Rule): void {
    current = r;
    try {
      r.check!(ctx);
    } catch (e) {
      // A rule must never break the fold; a crash in one rule only loses its findings.
      opts.onInternalError?.(e, r.id);
    }
  }

  function stepFrame(frame: Frame): void {
    const msg = obj(frame.json);
    let method: string | undefined;
    let req;
    let key: string | undefined;
    if (frame.kind === 'request' || frame.kind === 'notification') {
      method = frame.method;
    } else if ((frame.kind === 'result' || frame.kind === 'error') && msg) {
      const id = msg.id;
      if (typeof id === 'string' || typeof id === 'number' || id === null) {
        key = pendingKey(reverse(frame.dir), id);
        req = state.pending[key];
        if (req) method = req.method;
      }
    }
    facts.frame = frame;
    facts.msg = msg;
    facts.method = method;
    facts.params = obj(msg?.params);
    facts.req = req;
    facts.key = key;
    ctx.frame = frame;
    ctx.msg = msg;
    ctx.method = method;
    ctx.spec = method !== undefined ? METHODS.get(method) : undefined;
    ctx.params = facts.params;
    ctx.req = req;
    schemaDone = false;
    schemaValue = undefined;
    frameVersion = undefined;
    if (frame.kind === 'result' && req !== undefined && req.seq === state.initializeSeq && method === 'initialize') {
      const pv = obj(msg?.result)?.protocolVersion;
      if (typeof pv === 'number') frameVersion = pv;
    }
    const general = d.general[frame.kind];
    for (let i = 0; i < general.length; i++) runRule(general[i]!);
    if (method !== undefined) {
      const list = d.byMethod[frame.kind].get(method);
      if (list) for (let i = 0; i < list.length; i++) runRule(list[i]!);
      if (method === UPDATE && frame.kind === 'notification') {
        const u = facts.params?.update;
        const k = u !== null && typeof u === 'object' ? (u as Record<string, unknown>).sessionUpdate : undefined;
        const byKind = typeof k === 'string' ? d.byUpdate.get(k) : undefined;
        if (byKind) for (let i = 0; i < byKind.length; i++) runRule(byKind[i]!);
      }
    }
    applyFrame(state, facts);
  }

  return {
    step(item: Item, chunk?: number): Finding[] {
      out = [];
      // A caller that knows the frame is a text chunk says so; a lazy chunk frame says so itself
      // (wire/lazy-chunk.ts), so that checking it never decodes its text.
      chunkKind = chunk ?? lazyChunkKind(item);
      try {
        state.items++;
        state.lastSeq = item.seq;
        if (isFrame(item)) stepFrame(item);
        else {
          if (item.dir === 'event') applyEvent(state, item);
          for (const r of d.items) {
            current = r;
            try {
              r.item!({ item, state, report: (m, o) => push(r, o?.seq ?? item.seq, m, o), memory: <T>() => memoryOf(r.id) as Map<string, T> });
            } catch (e) {
              opts.onInternalError?.(e, r.id);
            }
          }
        }
      } catch (e) {
        // Whatever the input, step never throws.
        opts.onInternalError?.(e, 'model');
      }
      return out;
    },
    end(): Finding[] {
      out = [];
      for (const r of d.ends) {
        try {
          r.end!({ state, report: (m, o) => push(r, o.seq, m, o), memory: <T>() => memoryOf(r.id) as Map<string, T> });
        } catch (e) {
          opts.onInternalError?.(e, r.id);
        }
      }
      return out.sort((a, b) => a.seq - b.seq);
    },
    get state() {
      return state;
    },
    snapshot() {
      return { state, memories: [...memories].map(([id, m]) => [id, [...m]]), once: [...onceKeys] };
    },
  };
}

function computeSchema(ctx: FrameContext): SchemaResult | undefined {
  const m = ctx.method;
  if (m === undefined || isExtensionName(m) || !ctx.spec || !ctx.msg) return undefined;
  const kind = ctx.frame.kind;
  if (kind === 'request' || kind === 'notification') {
    const p = ctx.msg.params;
    return withFields(validateMethod(m, 'params', p === undefined || p === null ? {} : p), m, 'params', p);
  }
  if (kind === 'result') {
    // The SDK answers a handler that returns nothing with `"result": null` (`response ?? null`);
    // for methods whose result is 'Empty' that is the empty result, so null validates as {}.
    const r = ctx.msg.result;
    return withFields(validateMethod(m, 'result', r === null ? {} : r), m, 'result', r);
  }
  return undefined;
}

/** The schema's verdict with the unknown and UNSTABLE field names of the same value (a new object when there are some: verdicts may be shared). */
function withFields(r: SchemaResult, method: string, role: 'params' | 'result', data: unknown): SchemaResult {
  const fields = fieldNotes(method, role, data);
  return fields.length ? { ...r, fields } : r;
}

/** All findings of a recording, sorted by seq. */
export function checkItems(items: Iterable<Item>, opts?: CheckOptions): Finding[] {
  const c = createChecker(opts);
  const out: Finding[] = [];
  for (const item of items) {
    const f = c.step(item);
    for (let i = 0; i < f.length; i++) out.push(f[i]!);
  }
  for (const f of c.end()) out.push(f);
  return out.sort((a, b) => a.seq - b.seq);
}
