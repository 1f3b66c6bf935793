/**
 * The waterfall's read model: a recording's spans (sessions, prompt turns, tool calls, permission
 * waits, fs/* and terminal/* calls, terminal lives, other requests) with who the time belongs to,
 * the idle gaps a time axis collapses, and every item's time for playback. Built on the span model
 * of src/trace (the same fold the OpenTelemetry export uses), so both read one recording the same
 * way. Pure: the server and the in-memory source run it on the same items and answer the same. One
 * pass over the items, holding of each only its seq and time (and of a request the few words its bar
 * shows), so the server runs it over a recording read a page at a time.
 */
import type { Frame, Item } from '../wire/frame.js';
import { buildTrace, flattenSpans, SPAN, type SpanNode } from '../trace/span-model.js';
import { textOfBlocks } from './preview.js';
import { isTransportEvent } from '../wire/transport-event.js';

export type SpanType = 'session' | 'turn' | 'tool' | 'permission' | 'fs' | 'terminal-call' | 'terminal' | 'request';
/** Whose time a span is: the agent working, the client (the editor) answering, the user deciding. */
export type Owner = 'agent' | 'client' | 'user' | 'none';
export type SpanStatus = 'ok' | 'error' | 'failed' | 'cancelled' | 'unfinished';

export interface WaterfallSpan {
  /** Index in `Waterfall.spans` (rows are drawn in this order: each span after its parent). */
  id: number;
  parent: number | null;
  depth: number;
  type: SpanType;
  /** What the bar says, e.g. `tool call Read file.ts` (its accessible name adds the duration). */
  label: string;
  /** Milliseconds on the recording's clock. */
  start: number;
  end: number;
  owner: Owner;
  /** The item that opened the span, and the one that ended it (null: the recording's end did). */
  seq: number;
  endSeq: number | null;
  status: SpanStatus;
  /** Why it is marked: the error response's code and message, the tool call's status. */
  note?: string;
  /** On a session and a turn: the session's id. */
  sessionId?: string;
  /** On a tool call: its kind. */
  kind?: string;
  /** On a turn: when the agent's first message or thought chunk came (ms on the recording's clock). */
  firstChunk?: number;
  /** On a turn: its stop reason. */
  stopReason?: string;
  /**
   * A remote agent's request (the client's, sent over HTTP): when the agent's HTTP answer to its POST
   * came (ms on the recording's clock). From `start` to it is network time (the POST sent, its status
   * back); from it to `end` the agent's.
   */
  network?: number;
  /** With `network`: the POST's HTTP status. */
  httpStatus?: number;
}

export interface Waterfall {
  /** First and last item times. */
  start: number;
  end: number;
  spans: WaterfallSpan[];
  /** Stretches over `GAP_MS` with no item at all, which the time axis collapses to a marker. */
  gaps: { from: number; to: number }[];
  /** Every item's seq and time, in order (playback and scrubbing map times to items with them). */
  frames: { seq: number[]; t: number[] };
}

/** Idle stretches longer than this collapse on the time axis. */
export const GAP_MS = 30_000;
/** How much axis time a collapsed gap keeps (enough for its marker). */
export const GAP_SHOWN_MS = 1_500;

const cut = (s: string, n = 60) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * A duration to the microsecond: the same span computed from stored times and from a transcript's
 * (milliseconds with three decimals) differs in the last bits, which must not round differently.
 */
export const toMicrosecond = (ms: number): number => Math.round(ms * 1000) / 1000;

/** A duration as a bar's accessible name says it: `0.4 ms`, `85 ms`, `1.2 s`, `2 min 5 s`, `1 h 3 min`. */
export function fmtDuration(ms: number): string {
  const a = Math.max(0, toMicrosecond(ms));
  if (a < 10) return `${a.toFixed(1)} ms`;
  if (a < 1000) return `${Math.round(a)} ms`;
  if (a < 60_000) return `${(a / 1000).toFixed(1)} s`;
  const m = Math.floor(a / 60_000);
  if (m < 60) return `${m} min ${Math.floor((a % 60_000) / 1000)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** The accessible name of a span's bar: its label and duration, and what marks it. */
export function ariaLabelOf(s: WaterfallSpan): string {
  const marks = s.status === 'ok' ? '' : `, ${s.status}${s.note ? ` (${s.note})` : ''}`;
  const split = s.network !== undefined ? ` (network ${fmtDuration(s.network - s.start)} to HTTP ${s.httpStatus}, agent ${fmtDuration(s.end - s.network)})` : '';
  return `${s.label} ${fmtDuration(s.end - s.start)}${split}${marks}`;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** What a request's bar may show of its params, each cut to 200 characters (bars cut shorter). */
interface RequestWords {
  prompt: string;
  title?: string;
  path?: string;
  /** The command and its arguments (terminal/create). */
  command: string;
  terminalId?: string;
}

function wordsOf(f: Frame): RequestWords {
  const pv = (f.json as { params?: unknown } | undefined)?.params;
  const p = pv !== null && typeof pv === 'object' && !Array.isArray(pv) ? (pv as Record<string, unknown>) : {};
  const short = (v: string | undefined) => (v === undefined ? undefined : cut(v, 200));
  const w: RequestWords = {
    prompt: f.method === 'session/prompt' ? cut(textOfBlocks(p.prompt).replace(/\s+/g, ' ').trim(), 200) : '',
    command: f.method === 'terminal/create' ? cut([str(p.command), ...(Array.isArray(p.args) ? p.args.map(String) : [])].filter(Boolean).join(' '), 200) : '',
  };
  const title = short(str((p.toolCall as Record<string, unknown> | undefined)?.title));
  if (title !== undefined) w.title = title;
  const path = short(str(p.path));
  if (path !== undefined) w.path = path;
  const tid = short(str(p.terminalId));
  if (tid !== undefined) w.terminalId = tid;
  return w;
}

const NO_WORDS: RequestWords = { prompt: '', command: '' };

function typeOf(s: SpanNode): SpanType {
  if (s.name === SPAN.session) return 'session';
  if (s.name === SPAN.terminal) return 'terminal';
  if (s.name.startsWith(SPAN.tool)) return 'tool';
  const method = s.attributes['rpc.method'];
  if (method === 'session/prompt') return 'turn';
  if (method === 'session/request_permission') return 'permission';
  if (typeof method === 'string' && method.startsWith('fs/')) return 'fs';
  if (typeof method === 'string' && method.startsWith('terminal/')) return 'terminal-call';
  return 'request';
}

/** The span tree of `items` (in seq order, read once) as the waterfall's rows. */
export function buildWaterfall(items: Iterable<Item>): Waterfall {
  const words = new Map<number, RequestWords>();
  // A remote agent's client requests by id (JSON), and when each POST's status came back, by seq.
  const posted = new Map<string, number>();
  const network = new Map<number, { t: number; status: number }>();
  const seqs: number[] = [];
  const ts: number[] = [];
  const gaps: Waterfall['gaps'] = [];
  const root = buildTrace((function* () {
    for (const it of items) {
      const n = ts.length;
      if (n > 0 && it.t - ts[n - 1]! > GAP_MS) gaps.push({ from: ts[n - 1]!, to: it.t });
      seqs.push(it.seq);
      ts.push(it.t);
      if ((it.dir === 'c2a' || it.dir === 'a2c') && (it as Frame).kind === 'request') {
        words.set(it.seq, wordsOf(it as Frame));
        if (it.dir === 'c2a') posted.set(JSON.stringify((it as Frame).id), it.seq);
      } else if (isTransportEvent(it) && it.data.op === 'post' && it.data.rpc?.kind === 'request' && typeof it.data.status === 'number') {
        const seq = posted.get(JSON.stringify(it.data.rpc.id));
        if (seq !== undefined) {
          network.set(seq, { t: it.t, status: it.data.status });
          posted.delete(JSON.stringify(it.data.rpc.id));
        }
      }
      yield it;
    }
  })());
  const nodes = flattenSpans(root).slice(1);
  const index = new Map<SpanNode, number>();
  const spans: WaterfallSpan[] = [];
  // flattenSpans puts each parent before its children; a child's order is its start.
  for (const n of nodes) {
    const type = typeOf(n);
    const a = n.attributes;
    const parent = n.parent && n.parent !== root ? index.get(n.parent) ?? null : null;
    const w = (n.seq !== undefined ? words.get(n.seq) : undefined) ?? NO_WORDS;
    const method = str(a['rpc.method']);
    let label: string;
    let owner: Owner;
    let status: SpanStatus = n.status === 'error' ? 'error' : 'ok';
    let note: string | undefined;
    const out: Partial<WaterfallSpan> = {};
    switch (type) {
      case 'session':
        label = `session ${cut(String(a['acp.session.id'] ?? ''), 24)}`;
        owner = 'none';
        status = 'ok';
        break;
      case 'turn': {
        label = `prompt turn${w.prompt ? ` “${cut(w.prompt, 48)}”` : ''}`;
        owner = 'agent';
        const stop = str(a['acp.turn.stop_reason']);
        if (stop) out.stopReason = stop;
        if (typeof a['acp.turn.time_to_first_chunk_ms'] === 'number') out.firstChunk = n.start + a['acp.turn.time_to_first_chunk_ms'];
        if (stop === 'cancelled') status = 'cancelled';
        else if (a['acp.turn.unfinished'] === true && n.endSeq === undefined) status = 'unfinished';
        break;
      }
      case 'tool': {
        const title = str(a['acp.tool_call.title']) ?? str(a['acp.tool_call.kind']) ?? str(a['gen_ai.tool.call.id']) ?? '';
        label = `tool call ${cut(title)}`;
        owner = 'agent';
        const kind = str(a['acp.tool_call.kind']);
        if (kind) out.kind = kind;
        const st = str(a['acp.tool_call.status']);
        if (st === 'failed') { status = 'failed'; note = 'failed'; }
        else if (a['acp.tool_call.unfinished'] === true) { status = 'unfinished'; note = `last status ${st ?? 'none'}`; }
        else status = 'ok';
        break;
      }
      case 'permission': {
        label = `permission wait${w.title ? ` ${cut(w.title)}` : ''}`;
        owner = 'user';
        const o = str(a['acp.permission.option_id']) ?? str(a['acp.permission.outcome']);
        if (o) out.stopReason = o;
        break;
      }
      case 'fs':
        label = `${method} ${cut(w.path ?? '', 80)}`.trim();
        owner = 'client';
        break;
      case 'terminal-call':
        label = `${method} ${cut(method === 'terminal/create' ? w.command : w.terminalId ?? '')}`.trim();
        owner = 'client';
        break;
      case 'terminal': {
        label = `terminal ${cut(w.command || String(a['acp.terminal.id'] ?? ''))}`;
        owner = 'client';
        if (typeof a['process.exit.code'] === 'number' && a['process.exit.code'] !== 0) note = `exit code ${a['process.exit.code']}`;
        break;
      }
      default:
        label = method ?? n.name;
        owner = a['acp.direction'] === 'a2c' ? 'client' : 'agent';
        break;
    }
    if (type !== 'tool' && type !== 'session' && type !== 'terminal') {
      if (typeof a['rpc.jsonrpc.error_code'] === 'number' || a['error.type'] !== undefined) {
        status = 'error';
        note = `${a['rpc.jsonrpc.error_code'] ?? ''} ${String(a['rpc.jsonrpc.error_message'] ?? '')}`.trim();
      } else if (a['acp.unanswered'] === true) {
        status = 'unfinished';
        note = 'no response';
      } else if (status === 'error') status = 'ok';
    }
    const id = spans.length;
    index.set(n, id);
    const span: WaterfallSpan = {
      id, parent, depth: parent === null ? 0 : spans[parent]!.depth + 1, type, label, start: n.start, end: n.end ?? n.start, owner,
      seq: n.seq ?? 0, endSeq: n.endSeq ?? null, status, ...out,
    };
    if (note) span.note = note;
    const net = n.seq !== undefined && (type === 'turn' || type === 'request') && a['acp.direction'] !== 'a2c' ? network.get(n.seq) : undefined;
    if (net && net.t >= span.start && net.t <= span.end) {
      span.network = net.t;
      span.httpStatus = net.status;
    }
    // Kept where the views use them (a 100,000-frame recording has some 50,000 spans to send).
    const sid = str(a['acp.session.id']);
    if (sid !== undefined && (type === 'session' || type === 'turn')) span.sessionId = sid;
    spans.push(span);
  }
  // A tool call left open by a cancelled turn was cancelled (the client marks it so, spec: prompt-turn cancellation).
  for (const s of spans) {
    if (s.type !== 'tool' || s.status !== 'unfinished') continue;
    let p = s.parent;
    while (p !== null && spans[p]!.type !== 'turn') p = spans[p]!.parent;
    if (p !== null && spans[p]!.status === 'cancelled') {
      s.status = 'cancelled';
      s.note = 'turn cancelled';
    }
  }
  return { start: ts.length ? ts[0]! : 0, end: ts.length ? ts[ts.length - 1]! : 0, spans, gaps, frames: { seq: seqs, t: ts } };
}

/** For each span, the index of the prompt turn it is inside (itself for a turn), or -1. */
export function turnOfSpans(spans: readonly WaterfallSpan[]): Int32Array {
  const out = new Int32Array(spans.length).fill(-1);
  // Parents come before their children, so one pass sees each parent's answer first.
  for (const s of spans) out[s.id] = s.type === 'turn' ? s.id : s.parent === null ? -1 : out[s.parent]!;
  return out;
}

/**
 * Inside each turn, the stretches that are not the agent's: the editor answering (fs/*, terminal/*
 * and other requests to the client) and the user deciding (permission requests), as the spans say
 * them, for drawing over the turn's bar. A terminal's life is not counted (the agent may work while
 * a command runs); the calls that wait on it are.
 */
export function waitsOfTurns(spans: readonly WaterfallSpan[]): Map<number, { owner: 'client' | 'user'; start: number; end: number }[]> {
  const turnOf = turnOfSpans(spans);
  const out = new Map<number, { owner: 'client' | 'user'; start: number; end: number }[]>();
  for (const s of spans) {
    const t = turnOf[s.id]!;
    if (t < 0 || s.type === 'turn' || s.type === 'terminal' || (s.owner !== 'client' && s.owner !== 'user')) continue;
    const list = out.get(t);
    const w = { owner: s.owner, start: s.start, end: s.end };
    if (list) list.push(w); else out.set(t, [w]);
  }
  return out;
}

/**
 * The time axis with idle gaps collapsed: `toAxis` maps a recording time to axis time (gaps keep
 * `GAP_SHOWN_MS`), `fromAxis` maps back (a point inside a collapsed gap maps proportionally).
 */
export class TimeAxis {
  /** Axis times where each gap starts. */
  private readonly axisFrom: number[] = [];
  readonly length: number;

  constructor(readonly start: number, readonly end: number, readonly gaps: readonly { from: number; to: number }[]) {
    let removed = 0;
    for (const g of gaps) {
      this.axisFrom.push(g.from - start - removed);
      removed += g.to - g.from - GAP_SHOWN_MS;
    }
    this.length = Math.max(0, end - start - removed);
  }

  toAxis(t: number): number {
    let removed = 0;
    for (let i = 0; i < this.gaps.length; i++) {
      const g = this.gaps[i]!;
      if (t <= g.from) break;
      if (t < g.to) return this.axisFrom[i]! + ((t - g.from) / (g.to - g.from)) * GAP_SHOWN_MS;
      removed += g.to - g.from - GAP_SHOWN_MS;
    }
    return t - this.start - removed;
  }

  fromAxis(x: number): number {
    let removed = 0;
    for (let i = 0; i < this.gaps.length; i++) {
      const g = this.gaps[i]!;
      const a0 = this.axisFrom[i]!;
      if (x <= a0) break;
      if (x < a0 + GAP_SHOWN_MS) return g.from + ((x - a0) / GAP_SHOWN_MS) * (g.to - g.from);
      removed += g.to - g.from - GAP_SHOWN_MS;
    }
    return x + this.start + removed;
  }
}

/** Index of the last frame at or before time t (-1 when t is before the first). */
export function frameAt(frames: Waterfall['frames'], t: number): number {
  let lo = 0;
  let hi = frames.t.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (frames.t[mid]! <= t) lo = mid + 1; else hi = mid;
  }
  return lo - 1;
}
