/**
 * The protocol model: the state of one ACP connection, and `applyFrame`, the pure transition that
 * folds one frame into it (spec part 3). No findings here — rules read the state before a frame is
 * applied. The state is plain JSON (records, not Maps) so it can be cloned, stored and shown as is.
 */
import { type Direction, type EventItem, type Frame, type Item, type RpcId, isFrame, reverse } from '../wire/frame.js';
import { idKey } from '../wire/parse.js';
import { isTransportEvent } from '../wire/transport-event.js';
import { M } from '../spec/methods.js';
import type { SessionStatus, TerminalStatus, TurnStatus, ElicitationStatus } from '../spec/transitions.js';
import { COMPACTION_TERMINAL, ELICITATION_ACTIONS } from '../spec/transitions.js';

export interface ImplementationInfo { name?: string; title?: string | null; version?: string }

/** A request sent and not answered yet. */
export interface PendingRequest {
  seq: number;
  dir: Direction;
  id: RpcId;
  method: string;
  sessionId?: string;
  /** seq of the `$/cancel_request` naming this request. */
  cancelRequestSeq?: number;
  /** seq of the `session/cancel` that arrived while this (permission) request was pending. */
  turnCancelSeq?: number;
  /** Small facts the rules need when the answer comes (terminal id, option ids, elicitation mode...). */
  info?: Record<string, unknown>;
}

export interface ToolCallState { status: string; seq: number; title?: string }
export interface CompactionState { status: string; seq: number; inProgressSeen: boolean; ended: boolean; summaryBlocks: number; hasError: boolean }

export interface SessionState {
  id: string;
  origin: 'new' | 'load' | 'resume' | 'fork' | 'nes';
  status: SessionStatus;
  cwd?: string;
  modes?: { current?: string; available: string[] };
  configOptions?: string[];
  /** Values offered by `select` config options: option id → values (grouped options flattened). */
  configValues?: Record<string, string[]>;
  /** messageId of content chunks → the chunk kind that used it (part 2.6). */
  messages?: Record<string, string>;
  /** Chunk kind → messageId of the message it is currently streaming. */
  lastMessage?: Record<string, string>;
  turn: TurnStatus;
  /** seq of the running prompt request. */
  turnSeq?: number;
  /** seq of the session/cancel of the running turn. */
  cancelSeq?: number;
  turns: number;
  lastStopReason?: string;
  toolCalls: Record<string, ToolCallState>;
  /** Tool calls of this session still pending or in progress: id → seq of their announcement. */
  openToolCalls: Record<string, number>;
  plan?: { entries: number; seq: number } | null;
  compactions: Record<string, CompactionState>;
}

export interface TerminalState { id: string; sessionId?: string; status: TerminalStatus; seq: number; outputByteLimit?: number; /** seq of the terminal/create request. */ createSeq?: number }
export interface ElicitationState { key: string; mode: string; status: ElicitationStatus; seq: number; sessionId?: string }

export interface ModelState {
  connection: 'new' | 'initializing' | 'initialized';
  /** Version the client asked for in `initialize`. */
  requestedVersion?: number;
  /** Version the agent answered (the negotiated one). */
  protocolVersion?: number;
  initializeSeq?: number;
  /** seq of the error answering the first `initialize` (the connection stays uninitialized). */
  initializeErrorSeq?: number;
  client: { info?: ImplementationInfo | null; capabilities?: Record<string, unknown> };
  agent: { info?: ImplementationInfo | null; capabilities?: Record<string, unknown>; authMethods: Array<{ id: string; type: string }> };
  auth: { status: 'unauthenticated' | 'authenticated' | 'logged-out'; required: boolean; methodId?: string };
  /** Keyed by direction + id (each side numbers its own requests). */
  pending: Record<string, PendingRequest>;
  pendingCount: { c2a: number; a2c: number };
  /**
   * Requests no longer tracked per direction: past MAX_PENDING_REQUESTS unanswered ones, the oldest
   * is forgotten (answers to it then look unknown). Absent until the first is forgotten.
   */
  pendingForgotten?: { c2a: number; a2c: number };
  sessions: Record<string, SessionState>;
  terminals: Record<string, TerminalState>;
  /**
   * Terminals not released, kept as the fold goes so the state's summary needs no walk over every
   * terminal ever created (that walk, once per item, made long recordings quadratic). Absent until
   * the first terminal.
   */
  openTerminals?: number;
  elicitations: Record<string, ElicitationState>;
  /** `nextCursor` values the agent returned from `session/list` (cursors are opaque, 4.1). */
  listCursors?: Record<string, true>;
  /**
   * The last RECENT_ANSWERS answered requests: their key (see pendingKey), the seq of the request,
   * and the answer's length and hash, so that an answer delivered again unchanged (a transport that
   * sends it on two streams) is told from one to a request never made. Absent until the first answer.
   */
  recentAnswers?: [key: string, requestSeq: number, length: number, hash: number][];
  /** Items and frames seen. */
  items: number;
  frames: number;
  /** Non-JSON lines seen per direction (a `-32700` reply with id null answers one). */
  unparsed: { c2a: number; a2c: number };
  lastSeq: number;
  /** seq of the first event saying the connection closed (stdin/stdout closed, exit, signal). */
  closedSeq?: number;
}

/** A record without a prototype, so ids like "__proto__" or "constructor" from the wire are plain keys. */
export function dict<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

export function initialState(): ModelState {
  return {
    connection: 'new',
    client: {},
    agent: { authMethods: [] },
    auth: { status: 'unauthenticated', required: false },
    pending: dict(),
    pendingCount: { c2a: 0, a2c: 0 },
    sessions: dict(),
    terminals: dict(),
    elicitations: dict(),
    items: 0,
    frames: 0,
    unparsed: { c2a: 0, a2c: 0 },
    lastSeq: 0,
  };
}

/**
 * The most unanswered requests the model tracks per direction. A peer that sends requests and never
 * gets answers (or the other side that never answers) must not grow the checker's memory without
 * bound: past this, the oldest unanswered request of that direction is forgotten.
 */
export const MAX_PENDING_REQUESTS = 10_000;

/**
 * The tracked requests of a state in the order they were sent, per direction, for forgetting the
 * oldest in constant time. Kept beside the state (not in it: the state stays plain JSON); entries
 * answered since stay until a compaction, and a state restored from JSON gets its queue rebuilt.
 */
const pendingQueues = new WeakMap<ModelState, { c2a: PendingRequest[]; a2c: PendingRequest[]; head: { c2a: number; a2c: number } }>();

function pendingQueue(s: ModelState) {
  let q = pendingQueues.get(s);
  if (!q) {
    q = { c2a: [], a2c: [], head: { c2a: 0, a2c: 0 } };
    const all = Object.values(s.pending).sort((a, b) => a.seq - b.seq);
    for (const p of all) q[p.dir].push(p);
    pendingQueues.set(s, q);
  }
  return q;
}

/** Tracks a new pending request, forgetting the oldest of its direction past MAX_PENDING_REQUESTS. */
function trackPending(s: ModelState, key: string, p: PendingRequest): void {
  const dir = p.dir;
  const q = pendingQueue(s);
  if (!s.pending[key]) s.pendingCount[dir]++;
  s.pending[key] = p;
  const list = q[dir];
  list.push(p);
  while (s.pendingCount[dir] > MAX_PENDING_REQUESTS && q.head[dir] < list.length) {
    const old = list[q.head[dir]++]!;
    const k = pendingKey(dir, old.id);
    if (s.pending[k] !== old) continue; // answered (or its id reused) since
    delete s.pending[k];
    s.pendingCount[dir]--;
    s.pendingForgotten ??= { c2a: 0, a2c: 0 };
    s.pendingForgotten[dir]++;
  }
  // Drop what was answered or forgotten from the queue once it is mostly that.
  if (list.length > 1024 && list.length > 2 * s.pendingCount[dir]) {
    q[dir] = list.slice(q.head[dir]).filter((x) => s.pending[pendingKey(dir, x.id)] === x);
    q.head[dir] = 0;
  }
}

/** How many answered requests the state remembers (see ModelState.recentAnswers). */
export const RECENT_ANSWERS = 16;

/** A 32-bit FNV-1a hash of a text's UTF-16 code units (telling an answer sent again from another). */
export function textHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function pendingKey(dir: Direction, id: RpcId | undefined): string {
  return dir + idKey(id ?? null);
}

/** Reads a path in an unknown JSON value. */
export function at(v: unknown, ...path: string[]): unknown {
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}
export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
export function obj(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function newSession(id: string, origin: SessionState['origin'], status: SessionStatus, seq: number): SessionState {
  void seq;
  return { id, origin, status, turn: 'idle', turns: 0, toolCalls: dict(), openToolCalls: dict(), compactions: dict() };
}

function readModes(s: SessionState, result: Record<string, unknown> | undefined): void {
  if (!result) return;
  const modes = obj(result.modes);
  if (modes) {
    const available = Array.isArray(modes.availableModes)
      ? modes.availableModes.map((m) => str(obj(m)?.id)).filter((x): x is string => x !== undefined)
      : [];
    s.modes = { current: str(modes.currentModeId), available };
  }
  readConfigOptions(s, result.configOptions);
}

function readConfigOptions(s: SessionState, v: unknown): void {
  if (!Array.isArray(v)) return;
  s.configOptions = v.map((o) => str(obj(o)?.id)).filter((x): x is string => x !== undefined);
  const values = dict<string[]>();
  for (const o of v) {
    const opt = obj(o);
    const id = str(opt?.id);
    if (id === undefined || opt?.type !== 'select' || !Array.isArray(opt.options)) continue;
    const vals: string[] = [];
    for (const x of opt.options) {
      const ox = obj(x);
      if (typeof ox?.value === 'string') vals.push(ox.value);
      else if (Array.isArray(ox?.options)) for (const y of ox.options) if (typeof obj(y)?.value === 'string') vals.push(obj(y)!.value as string);
    }
    values[id] = vals;
  }
  s.configValues = values;
}

/** Chunk kinds whose chunks carry a `messageId` (part 2.6 ContentChunk). */
export const MESSAGE_CHUNKS: ReadonlySet<string> = new Set(['user_message_chunk', 'agent_message_chunk', 'agent_thought_chunk']);

/** What a frame means, computed once by the checker and shared by the model and the rules. */
export interface FrameFacts {
  frame: Frame;
  msg?: Record<string, unknown>;
  /** Method of a request/notification, or of the request a response answers. */
  method?: string;
  params?: Record<string, unknown>;
  /** The request this response answers (removed from `pending` by applyFrame). */
  req?: PendingRequest;
  key?: string;
}

/** Folds one frame into the state (mutates `s`). Never throws on well-formed facts. */
export function applyFrame(s: ModelState, f: FactsLike): void {
  const frame = f.frame;
  s.frames++;
  if (frame.kind === 'invalid') {
    s.unparsed[frame.dir]++;
    return;
  }
  const msg = f.msg;
  if (!msg) return;
  if (frame.kind === 'request' && f.method !== undefined) {
    const key = pendingKey(frame.dir, frame.id);
    const p: PendingRequest = { seq: frame.seq, dir: frame.dir, id: frame.id ?? null, method: f.method };
    const sid = str(f.params?.sessionId);
    if (sid !== undefined) p.sessionId = sid;
    trackPending(s, key, p);
    onRequest(s, f, p);
    return;
  }
  if (frame.kind === 'notification') {
    onNotification(s, f);
    return;
  }
  if ((frame.kind === 'result' || frame.kind === 'error') && f.req && f.key) {
    delete s.pending[f.key];
    s.pendingCount[f.req.dir]--;
    const recent = (s.recentAnswers ??= []);
    recent.push([f.key, f.req.seq, frame.raw.length, textHash(frame.raw)]);
    if (recent.length > RECENT_ANSWERS) recent.shift();
    onResponse(s, f, f.req, frame.kind === 'result' ? msg.result : undefined, frame.kind === 'error' ? msg.error : undefined);
  }
}

export type FactsLike = FrameFacts;

function onRequest(s: ModelState, f: FrameFacts, p: PendingRequest): void {
  const params = f.params;
  switch (p.method) {
    case M.initialize:
      if (s.connection === 'new') s.connection = 'initializing';
      if (s.initializeSeq === undefined) {
        s.initializeSeq = p.seq;
        if (typeof params?.protocolVersion === 'number') s.requestedVersion = params.protocolVersion;
        s.client.info = (obj(params?.clientInfo) as ImplementationInfo | undefined) ?? null;
        s.client.capabilities = obj(params?.clientCapabilities) ?? {};
      }
      break;
    case M.sessionLoad:
    case M.sessionResume: {
      const sid = str(params?.sessionId);
      if (sid === undefined) break;
      const existing = s.sessions[sid];
      p.info = { existed: !!existing, previous: existing?.status };
      if (!existing || existing.status === 'closed' || existing.status === 'deleted') {
        s.sessions[sid] = newSession(sid, p.method === M.sessionLoad ? 'load' : 'resume', 'loading', p.seq);
      } else {
        existing.status = 'loading';
        if (p.method === M.sessionLoad) {
          // The whole history is streamed again (part 3): its tool call and message ids come back.
          existing.toolCalls = dict();
          existing.openToolCalls = dict();
          existing.compactions = dict();
          delete existing.messages;
          delete existing.lastMessage;
        }
      }
      s.sessions[sid]!.cwd = str(params?.cwd);
      break;
    }
    case M.prompt: {
      const sess = p.sessionId !== undefined ? s.sessions[p.sessionId] : undefined;
      if (sess) {
        sess.turn = 'running';
        sess.turnSeq = p.seq;
        delete sess.cancelSeq;
        sess.turns++;
      }
      break;
    }
    case M.requestPermission: {
      // A permission request may introduce its tool call.
      const sess = p.sessionId !== undefined ? s.sessions[p.sessionId] : undefined;
      const tcid = str(obj(params?.toolCall)?.toolCallId);
      if (sess && tcid !== undefined && !sess.toolCalls[tcid]) sess.toolCalls[tcid] = { status: str(obj(params?.toolCall)?.status) ?? 'pending', seq: p.seq };
      const options = params?.options;
      if (Array.isArray(options)) p.info = { optionIds: options.map((o) => str(obj(o)?.optionId)).filter((x) => x !== undefined) };
      break;
    }
    case M.terminalOutput:
    case M.terminalWait:
    case M.terminalKill:
    case M.terminalRelease: {
      const tid = str(params?.terminalId);
      p.info = { terminalId: tid };
      if (p.method === M.terminalRelease && tid !== undefined) {
        const t = s.terminals[tid];
        if (t && t.status !== 'released') {
          t.status = 'released';
          s.openTerminals = (s.openTerminals ?? 1) - 1;
        }
      }
      break;
    }
    case M.elicitationCreate: {
      const mode = str(params?.mode) ?? '?';
      const eid = str(params?.elicitationId);
      const key = eid ?? `#${p.seq}`;
      p.info = { elicitationKey: key, mode };
      const rs = obj(params?.requestedSchema);
      if (rs) p.info.requestedSchema = rs;
      const e: ElicitationState = { key, mode, status: 'pending', seq: p.seq };
      if (p.sessionId !== undefined) e.sessionId = p.sessionId;
      s.elicitations[key] = e;
      break;
    }
    case M.authenticate:
      p.info = { methodId: str(params?.methodId) };
      break;
    case M.sessionClose: {
      // Part 3: the agent cancels ongoing work as if session/cancel arrived.
      const sess = p.sessionId !== undefined ? s.sessions[p.sessionId] : undefined;
      if (sess && sess.turn === 'running') {
        sess.turn = 'cancel-requested';
        sess.cancelSeq = p.seq;
      }
      if (p.sessionId !== undefined) markPermissionsCancelled(s, p.sessionId, p.seq);
      break;
    }
    case M.terminalCreate: {
      const limit = params?.outputByteLimit;
      if (typeof limit === 'number') p.info = { outputByteLimit: limit };
      break;
    }
    case M.setMode:
      p.info = { modeId: str(params?.modeId) };
      break;
    case M.sessionNew:
    case M.sessionFork:
      p.info = { cwd: str(params?.cwd) };
      break;
    default:
      break;
  }
}

function onNotification(s: ModelState, f: FrameFacts): void {
  const params = f.params;
  switch (f.method) {
    case M.cancel: {
      const sid = str(params?.sessionId);
      const sess = sid !== undefined ? s.sessions[sid] : undefined;
      if (sess && sess.turn === 'running') {
        sess.turn = 'cancel-requested';
        sess.cancelSeq = f.frame.seq;
      }
      if (sid !== undefined) markPermissionsCancelled(s, sid, f.frame.seq);
      break;
    }
    case M.cancelRequest: {
      const rid = params?.requestId;
      if (typeof rid === 'string' || typeof rid === 'number' || rid === null) {
        const p = s.pending[pendingKey(f.frame.dir, rid)];
        if (p && p.cancelRequestSeq === undefined) p.cancelRequestSeq = f.frame.seq;
      }
      break;
    }
    case M.update:
      onUpdate(s, f);
      break;
    case M.elicitationComplete: {
      const eid = str(params?.elicitationId);
      const e = eid !== undefined ? s.elicitations[eid] : undefined;
      if (e) e.status = 'complete';
      break;
    }
    default:
      break;
  }
}

function markPermissionsCancelled(s: ModelState, sid: string, seq: number): void {
  // Pending permission requests of this session must now be answered with the cancelled outcome.
  // (Bounded by the number of requests in flight, not by the recording's length.)
  for (const k in s.pending) {
    const p = s.pending[k]!;
    if (p.dir === 'a2c' && p.method === M.requestPermission && p.sessionId === sid && p.turnCancelSeq === undefined) p.turnCancelSeq = seq;
  }
}

function onUpdate(s: ModelState, f: FrameFacts): void {
  const sid = str(f.params?.sessionId);
  const sess = sid !== undefined ? s.sessions[sid] : undefined;
  const u = obj(f.params?.update);
  if (!sess || !u) return;
  const kind = str(u.sessionUpdate);
  const seq = f.frame.seq;
  switch (kind) {
    case 'tool_call': {
      const id = str(u.toolCallId);
      if (id !== undefined) {
        const t: ToolCallState = { status: str(u.status) ?? 'pending', seq };
        const title = str(u.title);
        if (title !== undefined) t.title = title;
        sess.toolCalls[id] = t;
        trackOpen(sess, id, t.status, seq);
      }
      break;
    }
    case 'tool_call_update': {
      const id = str(u.toolCallId);
      if (id === undefined) break;
      const t = sess.toolCalls[id] ?? (sess.toolCalls[id] = { status: 'pending', seq });
      const st = str(u.status);
      if (st !== undefined) t.status = st;
      const title = str(u.title);
      if (title !== undefined) t.title = title;
      trackOpen(sess, id, t.status, t.seq);
      break;
    }
    case 'user_message_chunk':
    case 'agent_message_chunk':
    case 'agent_thought_chunk': {
      const mid = str(u.messageId);
      if (mid === undefined) break;
      (sess.messages ??= dict())[mid] ??= kind;
      (sess.lastMessage ??= dict())[kind] = mid;
      break;
    }
    case 'plan':
    case 'plan_update':
      sess.plan = { entries: Array.isArray(u.entries) ? u.entries.length : 0, seq };
      break;
    case 'plan_removed':
      sess.plan = null;
      break;
    case 'current_mode_update': {
      const m = str(u.currentModeId);
      if (m !== undefined) (sess.modes ??= { available: [] }).current = m;
      break;
    }
    case 'config_option_update':
      readConfigOptions(sess, u.configOptions);
      break;
    case 'compaction_update': {
      const id = str(u.compactionId);
      if (id === undefined) break;
      const status = str(u.status) ?? '?';
      const c = sess.compactions[id] ?? (sess.compactions[id] = { status, seq, inProgressSeen: false, ended: false, summaryBlocks: 0, hasError: false });
      c.status = status;
      if (status === 'in_progress') c.inProgressSeen = true;
      if (COMPACTION_TERMINAL.has(status)) c.ended = true;
      // Patch semantics (part 3): omitted keeps, null or [] clears, a value replaces.
      if ('summary' in u) c.summaryBlocks = Array.isArray(u.summary) ? u.summary.length : 0;
      if ('error' in u) c.hasError = typeof u.error === 'string';
      break;
    }
    case 'compaction_summary_chunk': {
      const id = str(u.compactionId);
      const c = id !== undefined ? sess.compactions[id] : undefined;
      if (c) c.summaryBlocks++;
      break;
    }
    case 'state_update':
      // Protocol v2 draft: a turn ends with state "idle".
      if (u.state === 'idle') {
        sess.turn = 'idle';
        delete sess.turnSeq;
        delete sess.cancelSeq;
      }
      break;
    default:
      break;
  }
}

function trackOpen(sess: SessionState, id: string, status: string, seq: number): void {
  if (status === 'pending' || status === 'in_progress') sess.openToolCalls[id] = seq;
  else delete sess.openToolCalls[id];
}

function onResponse(s: ModelState, f: FrameFacts, req: PendingRequest, result: unknown, error: unknown): void {
  const r = obj(result);
  const ok = error === undefined;
  switch (req.method) {
    case M.initialize:
      if (req.seq !== s.initializeSeq) break;
      if (ok) {
        s.connection = 'initialized';
        if (typeof r?.protocolVersion === 'number') s.protocolVersion = r.protocolVersion;
        s.agent.info = (obj(r?.agentInfo) as ImplementationInfo | undefined) ?? null;
        s.agent.capabilities = obj(r?.agentCapabilities) ?? {};
        const methods = Array.isArray(r?.authMethods) ? r.authMethods : [];
        s.agent.authMethods = methods
          .map((m) => ({ id: str(obj(m)?.id), type: str(obj(m)?.type) ?? 'agent' }))
          .filter((m): m is { id: string; type: string } => m.id !== undefined);
      } else s.initializeErrorSeq = f.frame.seq;
      break;
    case M.authenticate:
      if (ok) {
        s.auth.status = 'authenticated';
        const mid = str(f.req?.info?.methodId);
        if (mid !== undefined) s.auth.methodId = mid;
      }
      break;
    case M.logout:
      if (ok) s.auth.status = 'logged-out';
      break;
    case M.sessionNew:
    case M.sessionFork:
    case M.nesStart: {
      if (!ok) {
        if (req.method === M.sessionNew && obj(error)?.code === -32000) s.auth.required = true;
        break;
      }
      const sid = str(r?.sessionId);
      if (sid === undefined) break;
      const sess = newSession(sid, req.method === M.sessionNew ? 'new' : req.method === M.sessionFork ? 'fork' : 'nes', 'active', f.frame.seq);
      readModes(sess, r);
      const cwd = req.info?.cwd;
      if (typeof cwd === 'string') sess.cwd = cwd;
      s.sessions[sid] = sess;
      break;
    }
    case M.sessionLoad:
    case M.sessionResume: {
      const sess = req.sessionId !== undefined ? s.sessions[req.sessionId] : undefined;
      if (!sess) break;
      if (ok) {
        sess.status = 'active';
        readModes(sess, r);
      } else if (req.info?.existed !== true) {
        delete s.sessions[sess.id];
      } else {
        sess.status = (req.info?.previous as SessionStatus | undefined) ?? 'active';
      }
      break;
    }
    case M.sessionClose:
    case M.sessionDelete:
    case M.nesClose: {
      const sess = req.sessionId !== undefined ? s.sessions[req.sessionId] : undefined;
      if (sess && ok) sess.status = req.method === M.sessionDelete ? 'deleted' : 'closed';
      break;
    }
    case M.prompt: {
      const sess = req.sessionId !== undefined ? s.sessions[req.sessionId] : undefined;
      if (sess && sess.turnSeq === req.seq) {
        sess.turn = 'idle';
        delete sess.turnSeq;
        delete sess.cancelSeq;
        const sr = str(r?.stopReason);
        if (sr !== undefined) sess.lastStopReason = sr;
        else if (!ok) sess.lastStopReason = 'error';
      }
      break;
    }
    case M.setMode: {
      const sess = req.sessionId !== undefined ? s.sessions[req.sessionId] : undefined;
      const m = str(req.info?.modeId);
      if (sess && ok && m !== undefined) (sess.modes ??= { available: [] }).current = m;
      break;
    }
    case M.setConfigOption: {
      const sess = req.sessionId !== undefined ? s.sessions[req.sessionId] : undefined;
      if (sess && ok) readConfigOptions(sess, r?.configOptions);
      break;
    }
    case M.sessionList: {
      const next = str(r?.nextCursor);
      if (ok && next !== undefined) (s.listCursors ??= dict())[next] = true;
      break;
    }
    case M.terminalCreate: {
      const tid = str(r?.terminalId);
      if (ok && tid !== undefined) {
        const t: TerminalState = { id: tid, status: 'running', seq: f.frame.seq, createSeq: req.seq };
        if (req.sessionId !== undefined) t.sessionId = req.sessionId;
        if (typeof req.info?.outputByteLimit === 'number') t.outputByteLimit = req.info.outputByteLimit;
        const prev = s.terminals[tid];
        if (!prev || prev.status === 'released') s.openTerminals = (s.openTerminals ?? 0) + 1;
        s.terminals[tid] = t;
      }
      break;
    }
    case M.terminalKill:
    case M.terminalWait:
    case M.terminalOutput: {
      const tid = str(req.info?.terminalId);
      const t = tid !== undefined ? s.terminals[tid] : undefined;
      if (!t || !ok || t.status === 'released') break;
      if (req.method === M.terminalKill) t.status = 'killed';
      else if (req.method === M.terminalWait || obj(r?.exitStatus)) {
        if (t.status === 'running') t.status = 'exited';
      }
      break;
    }
    case M.elicitationCreate: {
      const key = str(req.info?.elicitationKey);
      const e = key !== undefined ? s.elicitations[key] : undefined;
      if (!e) break;
      if (!ok) e.status = 'failed';
      else if (e.status === 'pending') {
        const action = str(r?.action) ?? '';
        e.status = Object.hasOwn(ELICITATION_ACTIONS, action) ? ELICITATION_ACTIONS[action]! : 'answered';
      }
      break;
    }
    default:
      break;
  }
}

/**
 * Folds one item (frame, stderr line or event) into the model only, without rules: what `stateAt`
 * and a UI cursor use. Never throws.
 */
export function stepModel(s: ModelState, item: Item): void {
  s.items++;
  s.lastSeq = item.seq;
  if (!isFrame(item)) {
    if (item.dir === 'event') applyEvent(s, item);
    return;
  }
  const msg = obj(item.json);
  let req: PendingRequest | undefined;
  let key: string | undefined;
  if ((item.kind === 'result' || item.kind === 'error') && msg) {
    const id = msg.id;
    if (typeof id === 'string' || typeof id === 'number' || id === null) {
      key = pendingKey(reverse(item.dir), id);
      req = s.pending[key];
    }
  }
  try {
    applyFrame(s, { frame: item, msg, method: item.kind === 'request' || item.kind === 'notification' ? item.method : req?.method, params: obj(msg?.params), req, key });
  } catch {
    /* the model never throws on traffic */
  }
}

/**
 * Folds an event into the model. Besides the connection's close: a remote agent's session SSE stream
 * that ends while that session's turn runs (the agent ended it, it broke, or the client closed it)
 * ends the turn for the client. A session's answers can only come on its stream, so the protocol
 * SDK's client fails the prompt waiting on it (RFD streamable-http-websocket-transport, "Session
 * streams"; the SDK's transports/http-client), and that failure never crosses the wire: a prompt after
 * it is not a second prompt while a turn runs. The prompt itself stays unanswered on the wire.
 */
export function applyEvent(s: ModelState, item: EventItem): void {
  if (CLOSE_EVENTS.has(item.type)) s.closedSeq ??= item.seq;
  else if (isTransportEvent(item)) {
    const d = item.data;
    if (d.op !== 'sse-close' || d.stream !== 'session' || typeof d.sessionId !== 'string') return;
    const sess = s.sessions[d.sessionId];
    if (!sess || sess.turn === 'idle') return;
    sess.turn = 'idle';
    delete sess.turnSeq;
    delete sess.cancelSeq;
    sess.lastStopReason = 'error';
  }
}

/** Events after which the connection counts as closed. */
export const CLOSE_EVENTS: ReadonlySet<string> = new Set(['stdin-closed', 'exit', 'stdout-closed', 'signal']);

/**
 * Rebuilds a state from its JSON (a stored checkpoint) with prototype-free records, so that stepping
 * on from it stays safe against ids like "__proto__".
 */
export function restoreState(json: string): ModelState {
  return reviveState(JSON.parse(json) as ModelState);
}

/** restoreState on a state already parsed from JSON (it is made prototype-free in place, and returned). */
export function reviveState(v: ModelState): ModelState {
  // The parsed record itself, made prototype-free (copying a 100,000-key record cost more than parsing it).
  const toDict = <T>(o: Record<string, T> | undefined): Record<string, T> => (o ? Object.setPrototypeOf(o, null) as Record<string, T> : dict<T>());
  v.pending = toDict(v.pending);
  v.terminals = toDict(v.terminals);
  v.elicitations = toDict(v.elicitations);
  v.sessions = toDict(v.sessions);
  if (v.listCursors) v.listCursors = toDict(v.listCursors);
  for (const k in v.sessions) {
    const sess = v.sessions[k]!;
    sess.toolCalls = toDict(sess.toolCalls);
    sess.openToolCalls = toDict(sess.openToolCalls);
    sess.compactions = toDict(sess.compactions);
    if (sess.messages) sess.messages = toDict(sess.messages);
    if (sess.lastMessage) sess.lastMessage = toDict(sess.lastMessage);
    if (sess.configValues) sess.configValues = toDict(sess.configValues);
  }
  return v;
}
