/**
 * The span model: a pure fold of a recording's items into a tree of spans with start and end times
 * (milliseconds on the recording's clock), the shape OpenTelemetry traces take. One root span for
 * the connection; under it a span per session, per prompt turn (`invoke_agent`), per tool call
 * (`execute_tool`), per JSON-RPC request in either direction and per terminal; checker findings
 * become span events. Built on the checker's model (client and agent info, sessions, tool calls,
 * stop reasons come from `ModelState`); what the model does not keep (chunk counts, waits, usage)
 * is counted here.
 *
 * No IO, no clock, no Node built-in: it runs in the browser too. The OpenTelemetry SDK mapping lives
 * in src/otel/. Message content (prompts, agent text, tool inputs and outputs, terminal commands) is
 * read only when `content` is set.
 */
import type { Frame, Item } from '../wire/frame.js';
import { idKey } from '../wire/parse.js';
import { TRANSPORT_EVENT, type TransportData } from '../wire/transport-event.js';
import { utf8Length } from '../wire/make-frame.js';
import { lazyTextBytes } from '../wire/lazy-chunk.js';
import { M } from '../spec/methods.js';
import { at, initialState, obj, stepModel, str, type ModelState, type SessionState } from '../check/model.js';
import type { Finding } from '../check/checker.js';

/** A checker finding as the fold needs it (stored findings may lack the spec section). */
export type TraceFinding = Pick<Finding, 'seq' | 'severity' | 'rule' | 'message'> & { spec?: string };

export type AttrValue = string | number | boolean | string[];
export type Attrs = Record<string, AttrValue>;
export type SpanKindName = 'internal' | 'client' | 'server';

export interface SpanEventNode {
  name: string;
  /** Milliseconds on the recording's clock. */
  t: number;
  attributes: Attrs;
}

export interface SpanNode {
  /** 1-based, in the order spans start. */
  id: number;
  parent: SpanNode | null;
  name: string;
  kind: SpanKindName;
  /** Milliseconds on the recording's clock (0 = when the recording started). */
  start: number;
  /** Null while the span is open. */
  end: number | null;
  attributes: Attrs;
  events: SpanEventNode[];
  status: 'unset' | 'error';
  statusMessage?: string;
  /** Ended children, in the order they ended (kept only when the fold keeps the tree). */
  children: SpanNode[];
  /** seq of the item that opened the span. */
  seq?: number;
  /** seq of the item that ended the span (none when the recording's end did). */
  endSeq?: number;
}

export interface TraceOptions {
  /** Export message content (prompts, agent text, tool inputs/outputs, terminal commands). */
  content?: boolean;
  /** Applied to a frame before its content is read (credential redaction); only with `content`. */
  redact?: (f: Frame) => Frame;
  /** Keep ended spans as the root's tree (for a finished recording); off for a live tap. */
  keep?: boolean;
  /** Called once per span, when it ends (children before their parents). */
  onEnd?: (span: SpanNode) => void;
  /**
   * The checker's model, stepped by its owner before each item reaches this fold (the live tap
   * shares its checker's state). Without it the fold steps a model of its own.
   */
  state?: ModelState;
  /** Longest content attribute, in characters; longer text is cut and marked. */
  maxContentChars?: number;
  /** What the recording says about itself, for the root span. */
  recording?: { name?: string | null; command?: string[] | null; id?: number | null };
}

/** Longest content attribute by default (collectors reject spans of several MB). */
export const MAX_CONTENT_CHARS = 16 * 1024;

/** Events kept per span (the SDK's default limit is 128; we raise it to 1,024 in src/otel/). */
export const MAX_EVENTS = 1000;

/** Span names (low cardinality, as the conventions ask). */
export const SPAN = {
  connection: 'acp connection',
  session: 'acp session',
  terminal: 'acp terminal',
  turn: 'invoke_agent',
  tool: 'execute_tool',
} as const;

interface RpcOpen {
  span: SpanNode;
  method: string;
  sessionId?: string;
  /** session/request_permission: option id → kind. */
  options?: Record<string, string>;
}

interface TurnOpen {
  span: SpanNode;
  sessionId: string;
  firstChunkT: number | null;
  messageChunks: number;
  messageBytes: number;
  thoughtChunks: number;
  thoughtBytes: number;
  updates: number;
  updateBytes: number;
  toolCalls: number;
  message: string;
  thought: string;
}

interface SessionOpen {
  span: SpanNode;
  turn: TurnOpen | null;
  /** Open tool call spans by toolCallId. */
  tools: Map<string, SpanNode>;
  /** A session/load or session/resume still pending (history streamed during it belongs to it). */
  loading: SpanNode | null;
  turns: number;
}

interface TerminalOpen { span: SpanNode; sessionId?: string }

/** Durations to the microsecond (the recording's resolution), without float noise like 534.9700000000003. */
const roundMs = (ms: number): number => Math.round(ms * 1000) / 1000;

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Text of a content block or an array of them (text blocks and resource texts; others named). */
function textOf(v: unknown): string {
  if (Array.isArray(v)) return v.map(textOf).join('');
  if (!isObj(v)) return '';
  if (typeof v.text === 'string') return v.text;
  if (v.type === 'resource' && isObj(v.resource) && typeof v.resource.text === 'string') return v.resource.text;
  if (v.type === 'resource_link' && typeof v.uri === 'string') return v.uri;
  return '';
}

/** Dotted paths of the capabilities that are on (true, or an object), e.g. `promptCapabilities.image`. */
export function capabilityList(caps: Record<string, unknown> | undefined, prefix = '', out: string[] = []): string[] {
  if (!caps) return out;
  for (const k of Object.keys(caps)) {
    if (k === '_meta') continue;
    const v = caps[k];
    const path = prefix ? `${prefix}.${k}` : k;
    if (v === true) out.push(path);
    else if (isObj(v)) {
      const before = out.length;
      capabilityList(v, path, out);
      if (out.length === before) out.push(path);
    }
  }
  return out;
}

/**
 * Folds items into spans. Call `step` for each item in seq order (with the checker's findings for
 * it, if any), then `finish` once: it ends what is still open at the recording's last time.
 */
export class TraceFold {
  readonly root: SpanNode;
  private nextId = 1;
  private readonly state: ModelState;
  private readonly ownState: boolean;
  private readonly content: boolean;
  private readonly maxChars: number;
  private readonly keep: boolean;
  private readonly pending = new Map<string, RpcOpen>();
  private readonly sessions = new Map<string, SessionOpen>();
  private readonly terminals = new Map<string, TerminalOpen>();
  /** Spans of the requests still open, by the request's seq (findings reported at a request's seq land there). */
  private readonly bySeq = new Map<number, SpanNode>();
  private lastT = 0;
  private current: { seq: number; span: SpanNode } | null = null;
  private exit: { code: number | null; signal: string | null } | null = null;
  private finished = false;
  private stepping = false;
  private deferred: SpanNode[] = [];
  /** seq of the item being stepped (spans it ends record it). */
  private stepSeq: number | null = null;
  /** Spans started so far, and findings attached. */
  spans = 0;
  findings = { error: 0, warning: 0, info: 0 };

  constructor(private readonly opts: TraceOptions = {}) {
    this.state = opts.state ?? initialState();
    this.ownState = opts.state === undefined;
    this.content = !!opts.content;
    this.maxChars = opts.maxContentChars ?? MAX_CONTENT_CHARS;
    this.keep = !!opts.keep;
    this.root = this.open(SPAN.connection, 'internal', 0, null);
    const rec = opts.recording;
    if (rec?.name) this.root.attributes['acp.recording.name'] = rec.name;
    if (rec?.id !== undefined && rec.id !== null) this.root.attributes['acp.recording.id'] = rec.id;
    const exe = rec?.command?.[0];
    if (exe) this.root.attributes['process.executable.name'] = exe.split(/[\\/]/).pop()!;
  }

  private open(name: string, kind: SpanKindName, start: number, parent: SpanNode | null, seq?: number): SpanNode {
    const s: SpanNode = { id: this.nextId++, parent, name, kind, start, end: null, attributes: {}, events: [], status: 'unset', children: [] };
    if (seq !== undefined) s.seq = seq;
    this.spans++;
    return s;
  }

  private close(s: SpanNode, t: number): void {
    if (s.end !== null) return;
    s.end = Math.max(t, s.start);
    if (this.stepSeq !== null) s.endSeq = this.stepSeq;
    // Within a step, spans are handed on only after the step's findings are attached to them.
    if (this.stepping) this.deferred.push(s);
    else this.emit(s);
  }

  private emit(s: SpanNode): void {
    if (this.keep && s.parent) s.parent.children.push(s);
    this.opts.onEnd?.(s);
    if (!this.keep) s.children = [];
  }

  /**
   * Adds an event, at most MAX_EVENTS per span: the connection of a long, noisy session would
   * otherwise hold every finding in memory until the end. Past it, events are only counted.
   */
  private event(s: SpanNode, name: string, t: number, attributes: Attrs): void {
    if (s.events.length < MAX_EVENTS) s.events.push({ name, t, attributes });
    else s.attributes['acp.events_dropped'] = ((s.attributes['acp.events_dropped'] as number | undefined) ?? 0) + 1;
  }

  private error(s: SpanNode, message: string): void {
    if (s.status === 'error') return;
    s.status = 'error';
    s.statusMessage = message;
  }

  private text(s: string): string {
    return s.length > this.maxChars ? `${s.slice(0, this.maxChars)}… [cut at ${this.maxChars} characters]` : s;
  }

  private json(v: unknown): string {
    let s: string;
    try { s = typeof v === 'string' ? v : JSON.stringify(v) ?? ''; } catch { s = ''; }
    return this.text(s);
  }

  /** Folds one item; `findings` are the checker's findings produced while stepping it. */
  step(item: Item, findings?: readonly TraceFinding[]): void {
    if (this.finished) return;
    if (this.ownState) stepModel(this.state, item);
    if (item.t > this.lastT) this.lastT = item.t;
    this.current = { seq: item.seq, span: this.root };
    this.stepSeq = item.seq;
    this.stepping = true;
    try {
      if (item.dir === 'event') this.onEvent(item.type, item.t, item.data);
      else if (item.dir !== 'stderr') this.onFrame(item);
    } catch {
      /* the fold never throws on traffic */
    }
    if (findings) for (const f of findings) this.addFinding(f, item.t);
    this.stepping = false;
    this.stepSeq = null;
    for (const s of this.deferred.splice(0)) this.emit(s);
  }

  /** Attaches a finding to the span of its frame (the item being stepped, or an open request), else the root. */
  addFinding(f: TraceFinding, t = this.lastT): void {
    const span = (this.current && this.current.seq === f.seq ? this.current.span : this.bySeq.get(f.seq)) ?? this.root;
    const target = span.end === null || this.deferred.includes(span) ? span : this.root;
    this.event(target, 'acp.finding', t, { 'acp.finding.rule': f.rule, 'acp.finding.severity': f.severity, 'acp.finding.spec': f.spec ?? '', 'acp.finding.message': f.message, 'acp.seq': f.seq });
    this.findings[f.severity]++;
    if (f.severity === 'error') this.error(target, `${f.rule}: ${f.message}`);
  }

  private onEvent(type: string, t: number, data: Record<string, unknown>): void {
    const r = this.root;
    switch (type) {
      case 'spawn':
        if (typeof data.pid === 'number') r.attributes['process.pid'] = data.pid;
        break;
      case 'spawn-error':
        this.error(r, `the agent could not be started: ${String(data.message ?? data.code ?? 'error')}`);
        break;
      case 'exit':
        this.exit = { code: typeof data.code === 'number' ? data.code : null, signal: typeof data.signal === 'string' ? data.signal : null };
        break;
      case 'gap':
        this.event(r, 'acp.gap', t, { 'acp.gap.stream': String(data.stream ?? ''), 'acp.gap.bytes': Number(data.bytes ?? 0) });
        break;
      case 'signal':
        this.event(r, 'acp.signal', t, { 'acp.signal': String(data.signal ?? '') });
        break;
      case TRANSPORT_EVENT:
        this.onTransport(t, data as unknown as TransportData);
        break;
      default:
        break;
    }
  }

  /**
   * A remote agent's transport metadata (wire/transport-event.ts): the transport and URL on the root,
   * a POST's method and status and the stream its answer came on on the request's span, and what
   * happened to the connection and its streams as events on the root.
   */
  private onTransport(t: number, d: TransportData): void {
    const r = this.root.attributes;
    r['acp.transport'] = d.transport;
    if (d.op === 'connect' && d.url) r['url.full'] = d.url;
    if (d.connectionId && r['acp.transport.connection_id'] === undefined) r['acp.transport.connection_id'] = d.connectionId;
    const id = d.rpc?.id;
    const open = id === undefined ? undefined : this.pending.get(`c2a${idKey(id)}`);
    if (open && open.span.end === null) {
      const a = open.span.attributes;
      if (d.op === 'post' && d.rpc?.kind === 'request') {
        a['acp.transport'] = d.transport;
        a['http.request.method'] = d.method ?? 'POST';
        if (d.status !== undefined) a['http.response.status_code'] = d.status;
        if (d.sessionId) a['acp.transport.session_id'] = d.sessionId;
      }
      // The stream the agent's answer came on (the request's span is still open: its frame follows).
      if (d.op === 'sse-message' && d.rpc?.kind === 'response' && d.stream) a['acp.transport.stream'] = d.stream;
    }
    if (d.op === 'post' || d.op === 'sse-message' || d.op === 'connect') return;
    const attrs: Attrs = { 'acp.transport.op': d.op };
    if (d.status !== undefined) attrs['http.response.status_code'] = d.status;
    if (d.stream) attrs['acp.transport.stream'] = d.stream;
    if (d.sessionId) attrs['acp.transport.session_id'] = d.sessionId;
    if (d.code !== undefined) attrs['acp.transport.ws_close_code'] = d.code;
    const why = d.message ?? d.reason;
    if (why) attrs['acp.transport.message'] = why;
    this.event(this.root, 'acp.transport', t, attrs);
  }

  private session(sid: string | undefined): SessionOpen | undefined {
    return sid === undefined ? undefined : this.sessions.get(sid);
  }

  private openSession(sid: string, start: number, seq: number): SessionOpen {
    let s = this.sessions.get(sid);
    if (s && s.span.end === null) return s;
    const span = this.open(SPAN.session, 'internal', start, this.root, seq);
    span.attributes['gen_ai.conversation.id'] = sid;
    span.attributes['acp.session.id'] = sid;
    s = { span, turn: null, tools: new Map(), loading: null, turns: 0 };
    this.sessions.set(sid, s);
    return s;
  }

  private endSession(s: SessionOpen, t: number): void {
    if (s.turn) this.endTurn(s, t, null);
    for (const tool of s.tools.values()) this.endTool(tool, t, true);
    s.tools.clear();
    const sid = String(s.span.attributes['acp.session.id']);
    for (const [id, term] of this.terminals) {
      if (term.sessionId === sid) {
        this.close(term.span, t);
        this.terminals.delete(id);
      }
    }
    const st: SessionState | undefined = this.state.sessions[sid];
    if (st) {
      s.span.attributes['acp.session.origin'] = st.origin;
      s.span.attributes['acp.session.status'] = st.status;
      if (st.cwd !== undefined) s.span.attributes['acp.session.cwd'] = st.cwd;
      if (st.modes?.current !== undefined) s.span.attributes['acp.session.mode'] = st.modes.current;
    }
    s.span.attributes['acp.session.turns'] = s.turns;
    this.close(s.span, t);
  }

  /** The span a request of the agent (fs/*, terminal/*, ...) in this session hangs under. */
  private agentRequestParent(s: SessionOpen | undefined, toolCallId?: string): SpanNode {
    if (!s) return this.root;
    if (toolCallId !== undefined) {
      const tool = s.tools.get(toolCallId);
      if (tool) return tool;
    }
    if (s.turn) {
      // The one tool call in progress, when there is exactly one: the request is its work.
      let only: SpanNode | null = null;
      let n = 0;
      for (const tool of s.tools.values()) {
        if (tool.attributes['acp.tool_call.status'] === 'in_progress') {
          only = tool;
          n++;
        }
      }
      if (n === 1 && only) return only;
      return s.turn.span;
    }
    return s.loading ?? s.span;
  }

  private onFrame(f: Frame): void {
    const msg = obj(f.json);
    if (f.kind === 'request' && f.method !== undefined) this.onRequest(f, msg);
    else if (f.kind === 'notification' && f.method !== undefined) this.onNotification(f, msg);
    else if ((f.kind === 'result' || f.kind === 'error') && msg) this.onResponse(f, msg);
  }

  private rpcSpan(f: Frame, parent: SpanNode, name = f.method!): SpanNode {
    const span = this.open(name, f.dir === 'c2a' ? 'client' : 'server', f.t, parent, f.seq);
    const a = span.attributes;
    a['rpc.system'] = 'jsonrpc';
    a['rpc.system.name'] = 'jsonrpc';
    a['rpc.method'] = f.method!;
    a['rpc.jsonrpc.version'] = '2.0';
    if (f.id !== undefined && f.id !== null) a['rpc.jsonrpc.request_id'] = String(f.id);
    a['acp.direction'] = f.dir;
    a['acp.seq'] = f.seq;
    a['acp.request.bytes'] = f.size;
    return span;
  }

  private onRequest(f: Frame, msg: Record<string, unknown> | undefined): void {
    const method = f.method!;
    const params = obj(msg?.params);
    const sid = str(params?.sessionId);
    let s = this.session(sid);
    const open: RpcOpen = { span: this.root, method };
    if (sid !== undefined) open.sessionId = sid;
    let span: SpanNode;
    switch (method) {
      case M.prompt: {
        const parent = s?.span ?? this.root;
        span = this.rpcSpan(f, parent, this.turnName());
        span.attributes['gen_ai.operation.name'] = 'invoke_agent';
        const agent = this.state.agent.info;
        if (agent?.name) span.attributes['gen_ai.agent.name'] = agent.name;
        if (agent?.version) span.attributes['gen_ai.agent.version'] = agent.version;
        if (sid !== undefined) span.attributes['gen_ai.conversation.id'] = sid;
        const prompt = params?.prompt;
        if (Array.isArray(prompt)) span.attributes['acp.turn.prompt_blocks'] = prompt.length;
        if (this.content && Array.isArray(prompt)) {
          const p = this.contentParams(f)?.prompt;
          span.attributes['gen_ai.input.messages'] = this.json([{ role: 'user', parts: this.parts(Array.isArray(p) ? p : prompt) }]);
        }
        if (s) {
          if (s.turn) this.endTurn(s, f.t, null); // a new prompt while one runs: the old one is over for us
          s.turns++;
          span.attributes['acp.turn.index'] = s.turns;
          s.turn = { span, sessionId: sid!, firstChunkT: null, messageChunks: 0, messageBytes: 0, thoughtChunks: 0, thoughtBytes: 0, updates: 0, updateBytes: 0, toolCalls: 0, message: '', thought: '' };
        }
        break;
      }
      case M.sessionLoad:
      case M.sessionResume: {
        if (sid !== undefined) s = this.openSession(sid, f.t, f.seq);
        span = this.rpcSpan(f, s?.span ?? this.root);
        if (s) s.loading = span;
        break;
      }
      case M.requestPermission: {
        const tc = obj(params?.toolCall);
        const tcid = str(tc?.toolCallId);
        if (s && tcid !== undefined && !s.tools.has(tcid)) this.toolUpdate(s, tc!, f);
        span = this.rpcSpan(f, this.agentRequestParent(s, tcid));
        const options: Record<string, string> = {};
        if (Array.isArray(params?.options)) {
          for (const o of params.options) {
            const id = str(obj(o)?.optionId);
            if (id !== undefined) options[id] = str(obj(o)?.kind) ?? '';
          }
        }
        open.options = options;
        span.attributes['acp.permission.options'] = Object.keys(options);
        if (tcid !== undefined) span.attributes['gen_ai.tool.call.id'] = tcid;
        break;
      }
      case M.terminalCreate: {
        span = this.rpcSpan(f, this.agentRequestParent(s));
        if (this.content) {
          const p = this.contentParams(f);
          const cmd = [p?.command, ...(Array.isArray(p?.args) ? p!.args as unknown[] : [])].filter((x) => x !== undefined).map(String);
          if (cmd.length) span.attributes['acp.terminal.command'] = this.text(cmd.join(' '));
        }
        break;
      }
      default: {
        const parent = f.dir === 'a2c' ? this.agentRequestParent(s) : (s?.span ?? this.root);
        span = this.rpcSpan(f, parent);
        const tid = str(params?.terminalId);
        if (tid !== undefined) span.attributes['acp.terminal.id'] = tid;
        if (method === M.terminalKill && tid !== undefined) {
          const term = this.terminals.get(tid);
          if (term) term.span.attributes['acp.terminal.killed'] = true;
        }
        if (this.content && (method === M.readTextFile || method === M.writeTextFile)) {
          const p = this.contentParams(f);
          if (typeof p?.path === 'string') span.attributes['acp.fs.path'] = p.path;
        }
        break;
      }
    }
    open.span = span;
    if (sid !== undefined && span.attributes['acp.session.id'] === undefined) span.attributes['acp.session.id'] = sid;
    this.current = { seq: f.seq, span };
    const key = f.dir + idKey(f.id ?? null);
    const old = this.pending.get(key);
    if (old) this.endRpc(old, f.t); // an id reused before its answer: the old request is over for us
    this.pending.set(key, open);
    this.bySeq.set(f.seq, span);
  }

  private turnName(): string {
    const name = this.state.agent.info?.name;
    return name ? `${SPAN.turn} ${name}` : SPAN.turn;
  }

  /** The params of a frame as content may show them: redacted when a redactor is set. */
  private contentParams(f: Frame): Record<string, unknown> | undefined {
    const g = this.opts.redact ? this.opts.redact(f) : f;
    return obj(obj(g.json)?.params);
  }

  private contentOf(f: Frame, ...path: string[]): unknown {
    const g = this.opts.redact ? this.opts.redact(f) : f;
    return at(g.json, ...path);
  }

  /** Prompt blocks as GenAI message parts. */
  private parts(blocks: unknown[]): unknown[] {
    return blocks.map((b) => {
      const o = obj(b) ?? {};
      if (o.type === 'text') return { type: 'text', content: String(o.text ?? '') };
      if (o.type === 'resource_link') return { type: 'uri', uri: String(o.uri ?? ''), ...(typeof o.mimeType === 'string' ? { mime_type: o.mimeType } : {}) };
      if (o.type === 'resource') return { type: 'text', content: textOf(o) };
      return { type: String(o.type ?? 'unknown') };
    });
  }

  private onNotification(f: Frame, msg: Record<string, unknown> | undefined): void {
    const params = obj(msg?.params);
    const sid = str(params?.sessionId);
    const s = this.session(sid);
    switch (f.method) {
      case M.update: {
        if (!s) return;
        const u = obj(params?.update);
        if (!u) return;
        this.onUpdate(s, u, f);
        break;
      }
      case M.cancel: {
        const target = s?.turn?.span ?? s?.span ?? this.root;
        this.event(target, 'acp.cancel', f.t, { 'acp.seq': f.seq });
        if (s?.turn) s.turn.span.attributes['acp.turn.cancel_requested'] = true;
        this.current = { seq: f.seq, span: target };
        break;
      }
      case M.cancelRequest: {
        const rid = params?.requestId;
        const req = typeof rid === 'string' || typeof rid === 'number' ? this.pending.get(f.dir + idKey(rid)) : undefined;
        if (req) {
          this.event(req.span, 'acp.cancel_request', f.t, { 'acp.seq': f.seq });
          this.current = { seq: f.seq, span: req.span };
        }
        break;
      }
      default:
        if (s) this.current = { seq: f.seq, span: s.turn?.span ?? s.span };
        break;
    }
  }

  private onUpdate(s: SessionOpen, u: Record<string, unknown>, f: Frame): void {
    const kind = str(u.sessionUpdate);
    const turn = s.turn;
    this.current = { seq: f.seq, span: turn?.span ?? s.loading ?? s.span };
    if (turn) {
      turn.updates++;
      turn.updateBytes += f.size;
    }
    switch (kind) {
      case 'agent_message_chunk':
      case 'agent_thought_chunk': {
        if (!turn) break;
        turn.firstChunkT ??= f.t;
        // A lazy chunk frame's text is counted without decoding it (wire/lazy-chunk.ts).
        const lazy = lazyTextBytes(u.content);
        const bytes = lazy >= 0 ? lazy : utf8Length(textOf(u.content));
        if (kind === 'agent_message_chunk') {
          turn.messageChunks++;
          turn.messageBytes += bytes;
          if (this.content && turn.message.length <= this.maxChars) turn.message += textOf(this.contentOf(f, 'params', 'update', 'content'));
        } else {
          turn.thoughtChunks++;
          turn.thoughtBytes += bytes;
          if (this.content && turn.thought.length <= this.maxChars) turn.thought += textOf(this.contentOf(f, 'params', 'update', 'content'));
        }
        break;
      }
      case 'tool_call':
      case 'tool_call_update': {
        const span = this.toolUpdate(s, u, f);
        if (span) this.current = { seq: f.seq, span };
        break;
      }
      case 'usage_update': {
        const target = turn?.span ?? s.span;
        if (typeof u.used === 'number') target.attributes['acp.usage.context_used'] = u.used;
        if (typeof u.size === 'number') target.attributes['acp.usage.context_size'] = u.size;
        const cost = obj(u.cost);
        if (cost && typeof cost.amount === 'number') {
          target.attributes['acp.usage.cost.amount'] = cost.amount;
          if (typeof cost.currency === 'string') target.attributes['acp.usage.cost.currency'] = cost.currency;
        }
        break;
      }
      default:
        break;
    }
  }

  /** Opens or updates the span of a tool call; ends it when its status is final. */
  private toolUpdate(s: SessionOpen, u: Record<string, unknown>, f: Frame): SpanNode | null {
    const id = str(u.toolCallId);
    if (id === undefined) return null;
    let span = s.tools.get(id);
    if (!span) {
      const parent = s.turn?.span ?? s.loading ?? s.span;
      span = this.open(SPAN.tool, 'internal', f.t, parent, f.seq);
      span.attributes['gen_ai.operation.name'] = 'execute_tool';
      span.attributes['gen_ai.tool.call.id'] = id;
      if (!s.turn) span.attributes['acp.tool_call.replayed'] = s.loading !== null;
      s.tools.set(id, span);
      if (s.turn) s.turn.toolCalls++;
    }
    const a = span.attributes;
    const title = str(u.title);
    if (title !== undefined) a['acp.tool_call.title'] = title;
    const kind = str(u.kind);
    if (kind !== undefined) {
      a['acp.tool_call.kind'] = kind;
      a['gen_ai.tool.name'] = kind;
      span.name = `${SPAN.tool} ${kind}`;
    }
    const status = str(u.status) ?? (a['acp.tool_call.status'] === undefined ? 'pending' : undefined);
    if (status !== undefined) a['acp.tool_call.status'] = status;
    if (Array.isArray(u.locations)) a['acp.tool_call.locations'] = u.locations.length;
    if (this.content) {
      const g = this.opts.redact ? this.opts.redact(f) : f;
      const gu = obj(at(g.json, 'params', 'update')) ?? obj(at(g.json, 'params', 'toolCall')) ?? u;
      if (gu.rawInput !== undefined) a['gen_ai.tool.call.arguments'] = this.json(gu.rawInput);
      if (gu.rawOutput !== undefined) a['gen_ai.tool.call.result'] = this.json(gu.rawOutput);
      else if (Array.isArray(gu.content)) {
        const text = gu.content.map((c) => (isObj(c) && c.type === 'content' ? textOf(c.content) : isObj(c) && c.type === 'diff' ? `diff ${String(c.path ?? '')}` : '')).filter(Boolean).join('\n');
        if (text) a['gen_ai.tool.call.result'] = this.text(text);
      }
    }
    if (status === 'completed' || status === 'failed') {
      if (status === 'failed') this.error(span, `tool call ${title ?? a['acp.tool_call.title'] ?? id} failed`);
      this.endTool(span, f.t, false);
      s.tools.delete(id);
    }
    return span;
  }

  private endTool(span: SpanNode, t: number, unfinished: boolean): void {
    if (unfinished) span.attributes['acp.tool_call.unfinished'] = true;
    this.close(span, t);
  }

  private endTurn(s: SessionOpen, t: number, f: Frame | null, result?: Record<string, unknown>): void {
    const turn = s.turn;
    if (!turn) return;
    s.turn = null;
    for (const [id, tool] of s.tools) {
      if (tool.parent === turn.span) {
        this.endTool(tool, t, true);
        s.tools.delete(id);
      }
    }
    const a = turn.span.attributes;
    a['acp.turn.message_chunks'] = turn.messageChunks;
    a['acp.turn.message_bytes'] = turn.messageBytes;
    a['acp.turn.thought_chunks'] = turn.thoughtChunks;
    a['acp.turn.thought_bytes'] = turn.thoughtBytes;
    a['acp.turn.updates'] = turn.updates;
    a['acp.turn.update_bytes'] = turn.updateBytes;
    a['acp.turn.tool_calls'] = turn.toolCalls;
    if (turn.firstChunkT !== null) {
      const ms = roundMs(turn.firstChunkT - turn.span.start);
      a['acp.turn.time_to_first_chunk_ms'] = ms;
      a['gen_ai.response.time_to_first_chunk'] = Math.round(ms * 1000) / 1e6; // seconds
    }
    if (f === null) a['acp.turn.unfinished'] = true;
    const stop = str(result?.stopReason);
    if (stop !== undefined) {
      a['acp.turn.stop_reason'] = stop;
      a['gen_ai.response.finish_reasons'] = [stop];
    }
    const usage = obj(result?.usage);
    if (usage) {
      const put = (k: string, v: unknown) => { if (typeof v === 'number') a[k] = v; };
      put('gen_ai.usage.input_tokens', usage.inputTokens);
      put('gen_ai.usage.output_tokens', usage.outputTokens);
      put('gen_ai.usage.cache_read.input_tokens', usage.cachedReadTokens);
      put('gen_ai.usage.cache_creation.input_tokens', usage.cachedWriteTokens);
      put('gen_ai.usage.reasoning.output_tokens', usage.thoughtTokens);
      put('acp.usage.total_tokens', usage.totalTokens);
    }
    if (this.content && (turn.message || turn.thought)) {
      const parts: unknown[] = [];
      if (turn.thought) parts.push({ type: 'reasoning', content: this.text(turn.thought) });
      if (turn.message) parts.push({ type: 'text', content: this.text(turn.message) });
      a['gen_ai.output.messages'] = this.json([{ role: 'assistant', parts, ...(stop !== undefined ? { finish_reason: stop } : {}) }]);
    }
    this.close(turn.span, t);
  }

  private onResponse(f: Frame, msg: Record<string, unknown>): void {
    const id = msg.id;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const key = (f.dir === 'c2a' ? 'a2c' : 'c2a') + idKey(id);
    const open = this.pending.get(key);
    if (!open) return;
    this.pending.delete(key);
    if (open.span.end !== null) return; // ended already (a turn a newer prompt replaced): nothing to add
    this.current = { seq: f.seq, span: open.span };
    const span = open.span;
    const a = span.attributes;
    a['acp.response.seq'] = f.seq;
    a['acp.response.bytes'] = f.size;
    const result = obj(msg.result);
    if (f.kind === 'error') {
      const err = obj(msg.error);
      const code = err?.code;
      const message = str(err?.message) ?? 'error';
      if (typeof code === 'number') {
        a['rpc.jsonrpc.error_code'] = code;
        a['rpc.response.status_code'] = String(code);
        a['error.type'] = String(code);
      } else a['error.type'] = '_OTHER';
      a['rpc.jsonrpc.error_message'] = message;
      this.error(span, message);
    }
    const s = this.session(open.sessionId);
    switch (open.method) {
      case M.initialize: {
        const st = this.state;
        const r = this.root.attributes;
        const put = (k: string, v: unknown) => { if (typeof v === 'string' || typeof v === 'number') r[k] = v; };
        put('acp.client.name', st.client.info?.name);
        put('acp.client.version', st.client.info?.version);
        put('acp.agent.name', st.agent.info?.name);
        put('acp.agent.version', st.agent.info?.version);
        put('gen_ai.agent.name', st.agent.info?.name);
        put('gen_ai.agent.version', st.agent.info?.version);
        put('acp.protocol.version', st.protocolVersion);
        put('acp.protocol.requested_version', st.requestedVersion);
        r['acp.agent.capabilities'] = capabilityList(st.agent.capabilities);
        r['acp.client.capabilities'] = capabilityList(st.client.capabilities);
        if (st.agent.authMethods.length) r['acp.agent.auth_methods'] = st.agent.authMethods.map((m) => m.id);
        break;
      }
      case M.sessionNew:
      case M.sessionFork:
      case M.nesStart: {
        const nsid = str(result?.sessionId);
        if (nsid !== undefined && f.kind === 'result') {
          const ns = this.openSession(nsid, span.start, span.seq ?? f.seq);
          span.parent = ns.span; // not handed on yet: a span goes to the SDK only when it ends
          a['acp.session.id'] = nsid;
          a['gen_ai.conversation.id'] = nsid;
        }
        break;
      }
      case M.sessionLoad:
      case M.sessionResume:
        if (s) {
          s.loading = null;
          if (f.kind === 'error' && this.state.sessions[open.sessionId!] === undefined) {
            // The session could not be loaded: it never existed on this connection.
            this.endSession(s, f.t);
            this.sessions.delete(open.sessionId!);
          }
        }
        break;
      case M.sessionClose:
      case M.sessionDelete:
      case M.nesClose:
        if (s && f.kind === 'result') {
          this.endRpc(open, f.t);
          this.endSession(s, f.t);
          this.sessions.delete(open.sessionId!);
          return;
        }
        break;
      case M.prompt:
        if (s && s.turn?.span === span) {
          this.bySeq.delete(span.seq!);
          this.endTurn(s, f.t, f, result);
          return;
        }
        break;
      case M.requestPermission: {
        const outcome = obj(result?.outcome);
        const o = str(outcome?.outcome);
        if (o !== undefined) a['acp.permission.outcome'] = o;
        const option = str(outcome?.optionId);
        if (option !== undefined) {
          a['acp.permission.option_id'] = option;
          const kind = open.options?.[option];
          if (kind) a['acp.permission.option_kind'] = kind;
        }
        a['acp.permission.wait_ms'] = roundMs(f.t - span.start);
        break;
      }
      case M.terminalCreate: {
        const tid = str(result?.terminalId);
        if (tid !== undefined && f.kind === 'result') {
          const term = this.open(SPAN.terminal, 'internal', span.start, s?.span ?? this.root, span.seq);
          term.attributes['acp.terminal.id'] = tid;
          if (open.sessionId !== undefined) term.attributes['acp.session.id'] = open.sessionId;
          if (a['acp.terminal.command'] !== undefined) term.attributes['acp.terminal.command'] = a['acp.terminal.command'];
          a['acp.terminal.id'] = tid;
          const old = this.terminals.get(tid);
          if (old) this.close(old.span, f.t);
          this.terminals.set(tid, { span: term, ...(open.sessionId !== undefined ? { sessionId: open.sessionId } : {}) });
        }
        break;
      }
      case M.terminalWait:
      case M.terminalOutput: {
        const tid = str(a['acp.terminal.id']);
        const term = tid !== undefined ? this.terminals.get(tid) : undefined;
        const exit = open.method === M.terminalWait ? result : obj(result?.exitStatus);
        if (term && exit) {
          if (typeof exit.exitCode === 'number') term.span.attributes['process.exit.code'] = exit.exitCode;
          if (typeof exit.signal === 'string') term.span.attributes['acp.terminal.exit_signal'] = exit.signal;
        }
        if (term && open.method === M.terminalOutput) {
          if (typeof result?.output === 'string') term.span.attributes['acp.terminal.output_bytes'] = utf8Length(result.output);
          if (typeof result?.truncated === 'boolean') term.span.attributes['acp.terminal.output_truncated'] = result.truncated;
        }
        break;
      }
      case M.terminalRelease: {
        const tid = str(a['acp.terminal.id']);
        const term = tid !== undefined ? this.terminals.get(tid) : undefined;
        if (term) {
          this.endRpc(open, f.t);
          this.close(term.span, f.t);
          this.terminals.delete(tid!);
          return;
        }
        break;
      }
      default:
        break;
    }
    this.endRpc(open, f.t);
  }

  private endRpc(open: RpcOpen, t: number): void {
    if (open.span.seq !== undefined) this.bySeq.delete(open.span.seq);
    for (const s of this.sessions.values()) {
      if (s.turn?.span === open.span) {
        this.endTurn(s, t, null);
        return;
      }
      if (s.loading === open.span) s.loading = null;
    }
    this.close(open.span, t);
  }

  /**
   * Ends every open span at the recording's last time (or `endT`) and returns the root. The root
   * gets the connection's totals; what never got an answer is marked unfinished.
   */
  finish(endT?: number): SpanNode {
    if (this.finished) return this.root;
    this.finished = true;
    const t = Math.max(endT ?? this.lastT, this.lastT);
    for (const open of [...this.pending.values()].reverse()) {
      open.span.attributes['acp.unanswered'] = true;
      // A request left unanswered inside a span that has ended (a tool call that completed while its
      // permission request was never answered) ends with that span, so the tree stays well formed.
      const parentEnd = open.span.parent?.end ?? null;
      this.endRpc(open, parentEnd !== null ? Math.min(t, parentEnd) : t);
    }
    this.pending.clear();
    for (const term of this.terminals.values()) this.close(term.span, t);
    this.terminals.clear();
    for (const s of this.sessions.values()) this.endSession(s, t);
    this.sessions.clear();
    const r = this.root.attributes;
    r['acp.items'] = this.state.items;
    r['acp.frames'] = this.state.frames;
    r['acp.sessions'] = Object.keys(this.state.sessions).length;
    r['acp.findings.errors'] = this.findings.error;
    r['acp.findings.warnings'] = this.findings.warning;
    if (this.exit) {
      if (this.exit.code !== null) r['process.exit.code'] = this.exit.code;
      if (this.exit.signal !== null) r['acp.exit.signal'] = this.exit.signal;
      // 128 and up is a signal's exit (an agent ending on the SIGTERM a closing editor sends): not a failure.
      if (this.exit.code !== null && this.exit.code !== 0 && this.exit.code < 128) this.error(this.root, `the agent exited with code ${this.exit.code}`);
    }
    this.close(this.root, t);
    return this.root;
  }
}

/** Every span of a finished fold's tree, parents before children (the root first). */
export function flattenSpans(root: SpanNode): SpanNode[] {
  const out: SpanNode[] = [];
  const walk = (s: SpanNode) => {
    out.push(s);
    for (const c of [...s.children].sort((a, b) => a.id - b.id)) walk(c);
  };
  walk(root);
  return out;
}

/**
 * The span tree of a whole recording: items in seq order, the checker's findings (any order).
 * Pure; for the UI's waterfall and for `export --otlp`.
 */
export function buildTrace(items: Iterable<Item>, findings: readonly TraceFinding[] = [], opts: Omit<TraceOptions, 'keep'> = {}): SpanNode {
  const bySeq = new Map<number, TraceFinding[]>();
  for (const f of findings) {
    const list = bySeq.get(f.seq);
    if (list) list.push(f);
    else bySeq.set(f.seq, [f]);
  }
  const fold = new TraceFold({ ...opts, keep: true });
  for (const item of items) fold.step(item, bySeq.get(item.seq));
  return fold.finish();
}

