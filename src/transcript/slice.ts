/**
 * A fixture from a slice of a recording: one prompt turn (`turn`) or a range of items (`from`-`to`),
 * with what it depends on, as a transcript that replays on its own.
 *
 * What the slice holds, in the recording's order (each item once):
 * - the `initialize` exchange, and the successful `authenticate` exchanges before the slice;
 * - for every session the slice touches, the request that set it up last before the slice
 *   (`session/new`, `session/load`, `session/resume` or `session/fork`, the one a fork came from too)
 *   with its answer and what the agent streamed for that session while answering it (a load's
 *   history); then the successful `session/set_mode`, `session/set_model` and
 *   `session/set_config_option` requests for it and the agent's mode, config option, command and
 *   session info updates for it, up to the slice;
 * - the slice: a turn is its `session/prompt` request, its response and every item between them that
 *   is of its session or of none (stderr, events, the client's answers); a range is every item in it,
 *   and the `session/prompt` request of a turn it starts inside;
 * - the `tool_call` that announced a tool call the slice updates, and the `terminal/create` of a
 *   terminal it uses, when they came before it;
 * - every request kept keeps its response, and every response kept its request, wherever they are.
 * Items are renumbered from 1 (responses' `replyTo` follows); notes on kept items come along. The
 * header names the slice and the original seqs kept (`slice.seqs`, ranges like "1-4,9,12-30").
 * Pure: no Node built-in, so the UI can use it.
 */
import type { EventItem, Frame, Item } from '../wire/frame.js';
import type { Recording, TranscriptHeader, TranscriptNote } from './format.js';

/** What to cut: one turn (any seq of it), or the items from..to (inclusive). */
export type SliceSpec = { turn: number } | { from: number; to: number };

export interface Slice {
  recording: Recording;
  /** The original seqs kept, in order (item i of the slice was item seqs[i] of the recording). */
  seqs: number[];
  /** Things the fixture cannot do (a request that was never answered, no initialize). */
  warnings: string[];
  /** What was cut: the turn by its `session/prompt` seq, or the range as clipped to the recording. */
  cut: { turn: number } | { from: number; to: number };
}

/** Bad slice input: one line naming the problem and the fix. */
export class SliceError extends Error {
  readonly code = 'E_SLICE';
}

const SETUP_METHODS = new Set(['session/new', 'session/load', 'session/resume', 'session/fork']);
const CONFIG_METHODS = new Set(['session/set_mode', 'session/set_model', 'session/set_config_option']);
const STATE_UPDATES = new Set(['current_mode_update', 'config_option_update', 'available_commands_update', 'session_info_update']);

const isFrame = (i: Item | undefined): i is Frame => i !== undefined && (i.dir === 'c2a' || i.dir === 'a2c');
type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);

/** Parses `A-B` (or a single `N`) into a range; throws SliceError on anything else. */
export function parseSeqRange(text: string): { from: number; to: number } {
  const m = /^\s*#?(\d{1,15})\s*(?:(?:-|\.\.)\s*#?(\d{1,15}))?\s*$/.exec(text);
  if (!m) throw new SliceError(`"${text}" is not a range of items; write it as A-B, like 12-40 (the # numbers of show and the UI)`);
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  if (from < 1) throw new SliceError(`a range starts at item 1 or later, got ${from}`);
  if (to < from) throw new SliceError(`the range ${from}-${to} ends before it starts; write the smaller number first (${to}-${from})`);
  return { from, to };
}

/** `[1,2,3,5,7,8]` → `"1-3,5,7-8"`. */
export function compactSeqs(seqs: readonly number[]): string {
  const out: string[] = [];
  for (let i = 0; i < seqs.length;) {
    let j = i;
    while (j + 1 < seqs.length && seqs[j + 1] === seqs[j]! + 1) j++;
    out.push(j === i ? String(seqs[i]) : `${seqs[i]}-${seqs[j]}`);
    i = j + 1;
  }
  return out.join(',');
}

/** A set of seqs 1..max as a bitmap: constant-time add and has, iteration in seq order. */
class SeqSet {
  private readonly bits: Uint8Array;
  size = 0;

  constructor(readonly max: number) {
    this.bits = new Uint8Array(max + 1);
  }

  add(q: number): void {
    if (q < 1 || q > this.max || this.bits[q]) return;
    this.bits[q] = 1;
    this.size++;
  }

  has(q: number): boolean {
    return this.bits[q] === 1;
  }

  *[Symbol.iterator](): Generator<number> {
    for (let q = 1; q <= this.max; q++) if (this.bits[q]) yield q;
  }

  /** The smallest seq in the set (Infinity when empty). */
  min(): number {
    for (let q = 1; q <= this.max; q++) if (this.bits[q]) return q;
    return Infinity;
  }
}

class Index {
  /** Items by seq (a recording's items are numbered 1..n, in order). */
  private readonly bySeqArr: (Item | undefined)[];
  /** request seq → response seq. */
  readonly responseOf = new Map<number, number>();
  readonly maxSeq: number;

  /**
   * `items` in seq order; they may be a part of the recording (the rows a slice could need, read
   * through the store's indexes), then `maxSeq` is the recording's last seq and `allTurns` lists its
   * turns for messages.
   */
  constructor(readonly items: readonly Item[], maxSeq?: number, private readonly allTurns?: () => { seq: number }[], private readonly updates?: SessionUpdates) {
    this.maxSeq = maxSeq ?? (items.length ? items[items.length - 1]!.seq : 0);
    this.bySeqArr = new Array<Item | undefined>(this.maxSeq + 1);
    for (const it of items) {
      this.bySeqArr[it.seq] = it;
      if (isFrame(it) && it.replyTo !== undefined && !this.responseOf.has(it.replyTo)) this.responseOf.set(it.replyTo, it.seq);
    }
  }

  item(seq: number): Item | undefined {
    return this.bySeqArr[seq] ?? this.update(seq);
  }

  frame(seq: number | undefined): Frame | undefined {
    const it = seq === undefined ? undefined : this.item(seq);
    return isFrame(it) ? it : undefined;
  }

  /** The agent's update `seq` from `updates`, made when asked for (none are held). */
  private update(seq: number): Frame | undefined {
    const u = this.updates;
    const k = u === undefined ? -1 : (u.sessions[seq - u.from] ?? -1);
    if (k < 0) return undefined;
    const f: Frame = { seq, t: 0, dir: 'a2c', raw: '', size: 0, kind: 'notification', method: 'session/update' };
    const sid = u!.names[k];
    if (sid) f.sessionId = sid;
    return f;
  }

  /** The session an item belongs to: its own sessionId, or (a response) its request's. */
  sessionOf(it: Item): string | undefined {
    if (!isFrame(it)) return undefined;
    if (it.sessionId !== undefined) return it.sessionId;
    return it.replyTo !== undefined ? this.frame(it.replyTo)?.sessionId : undefined;
  }

  ok(requestSeq: number): boolean {
    return this.frame(this.responseOf.get(requestSeq))?.kind === 'result';
  }

  /** The turns to name in a message (every turn of the recording). */
  turnsForMessages(): { seq: number }[] {
    return this.allTurns?.() ?? this.turns();
  }

  /** The prompt turns: request seq, session, end seq (the response, or the end of the recording). */
  turns(): { seq: number; sessionId: string | undefined; end: number }[] {
    const out = [];
    for (const it of this.items) {
      if (isFrame(it) && it.dir === 'c2a' && it.kind === 'request' && it.method === 'session/prompt') {
        out.push({ seq: it.seq, sessionId: it.sessionId, end: this.responseOf.get(it.seq) ?? this.maxSeq });
      }
    }
    return out;
  }
}

function updateKind(f: Frame): string | undefined {
  if (f.method !== 'session/update') return undefined;
  const u = obj(obj(obj(f.json)?.params)?.update);
  return typeof u?.sessionUpdate === 'string' ? u.sessionUpdate : undefined;
}

function listTurnSeqs(turns: { seq: number }[]): string {
  if (turns.length === 0) return 'this recording has no prompt turns; cut a range with --seq A-B instead';
  const shown = turns.slice(0, 10).map((t) => `#${t.seq}`).join(', ');
  return `its turns start at ${shown}${turns.length > 10 ? `, … (${turns.length} in all)` : ''}`;
}

/** The items of the slice proper (before dependencies), and a name for it. */
function core(ix: Index, spec: SliceSpec): { seqs: SeqSet; label: string; start: number; cut: Slice['cut']; end: number } {
  const seqs = new SeqSet(ix.maxSeq);
  const turns = ix.turns();
  if ('turn' in spec) {
    const s = spec.turn;
    if (!Number.isSafeInteger(s) || s < 1 || s > ix.maxSeq) {
      throw new SliceError(`item #${s} is out of range: the recording has items #1 to #${ix.maxSeq}; ${listTurnSeqs(ix.turnsForMessages())}`);
    }
    const it = ix.item(s)!;
    const sid = ix.sessionOf(it);
    const turn = turns.find((t) => t.seq === s || ix.responseOf.get(t.seq) === s)
      ?? turns.filter((t) => t.seq < s && s <= t.end && (sid === undefined || sid === t.sessionId)).pop();
    if (!turn) throw new SliceError(`item #${s} is not part of a prompt turn; ${listTurnSeqs(ix.turnsForMessages())}`);
    for (let q = turn.seq; q <= turn.end; q++) {
      const x = ix.item(q);
      if (!x) continue;
      const xs = ix.sessionOf(x);
      if (q === turn.seq || xs === undefined || xs === turn.sessionId) seqs.add(q);
    }
    return { seqs, label: `turn #${turn.seq}`, start: turn.seq, cut: { turn: turn.seq }, end: turn.end };
  }
  const { from, to } = spec;
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < 1 || to < from) {
    throw new SliceError(`the range ${from}-${to} is not a range of items; write it as A-B with 1 ≤ A ≤ B`);
  }
  if (from > ix.maxSeq) throw new SliceError(`the range ${from}-${to} is out of range: the recording has items #1 to #${ix.maxSeq}`);
  const end = Math.min(to, ix.maxSeq);
  for (let q = from; q <= end; q++) if (ix.item(q) !== undefined) seqs.add(q);
  // A range that starts inside a turn keeps the turn's prompt (so the agent's updates are in a turn).
  for (const t of turns) {
    if (t.seq < from && t.end >= from) {
      for (let q = from; q <= Math.min(t.end, end); q++) {
        if (ix.sessionOf(ix.item(q)!) === t.sessionId) {
          seqs.add(t.seq);
          break;
        }
      }
    }
  }
  return { seqs, label: `#${from}-${end}`, start: from, cut: { from, to: end }, end };
}

/** Adds to `keep` every response of a kept request and every request of a kept response. */
function closeOverAnswers(ix: Index, keep: SeqSet): void {
  for (const q of keep) {
    const f = ix.frame(q);
    if (!f) continue;
    if (f.kind === 'request') {
      const r = ix.responseOf.get(q);
      if (r !== undefined) keep.add(r);
    } else if (f.replyTo !== undefined) {
      keep.add(f.replyTo);
      const r = ix.responseOf.get(f.replyTo);
      if (r !== undefined) keep.add(r);
    }
  }
}

/**
 * Adds what kept frames refer to from before: the `tool_call` that announced a tool call a kept
 * update or permission request names, and the `terminal/create` (with its answer) of a terminal a
 * kept frame names.
 */
function addReferenced(ix: Index, keep: SeqSet): void {
  const announced = new Map<string, number>(); // session + toolCallId → seq of the first tool_call
  const created = new Map<string, number>(); // terminalId → seq of the terminal/create request
  for (const it of ix.items) {
    if (!isFrame(it) || it.dir !== 'a2c') continue;
    const u = obj(obj(obj(it.json)?.params)?.update);
    if (u?.sessionUpdate === 'tool_call' && typeof u.toolCallId === 'string') {
      const k = `${it.sessionId}\n${u.toolCallId}`;
      if (!announced.has(k)) announced.set(k, it.seq);
    } else if (it.kind === 'request' && it.method === 'terminal/create') {
      const id = obj(obj(ix.frame(ix.responseOf.get(it.seq))?.json)?.result)?.terminalId;
      if (typeof id === 'string' && !created.has(id)) created.set(id, it.seq);
    }
  }
  const need = (seq: number | undefined, before: number) => {
    if (seq !== undefined && seq < before) keep.add(seq);
  };
  for (const q of keep) {
    const f = ix.frame(q);
    if (!f || f.dir !== 'a2c') continue;
    const params = obj(obj(f.json)?.params);
    const u = obj(params?.update);
    const toolCallId = u?.sessionUpdate === 'tool_call_update' ? u.toolCallId : obj(params?.toolCall)?.toolCallId;
    if (typeof toolCallId === 'string') need(announced.get(`${f.sessionId}\n${toolCallId}`), q);
    if (typeof params?.terminalId === 'string') need(created.get(params.terminalId), q);
    for (const c of Array.isArray(u?.content) ? u.content : []) {
      const terminalId = obj(c)?.terminalId;
      if (obj(c)?.type === 'terminal' && typeof terminalId === 'string') need(created.get(terminalId), q);
    }
  }
}

/** The request that set session `sid` up last before `before`, or undefined. */
function setupOf(ix: Index, sid: string, before: number): Frame | undefined {
  let found: Frame | undefined;
  for (const it of ix.items) {
    if (it.seq >= before) break;
    if (!isFrame(it) || it.dir !== 'c2a' || it.kind !== 'request' || !SETUP_METHODS.has(it.method ?? '')) continue;
    if (!ix.ok(it.seq)) continue;
    const result = obj(obj(ix.frame(ix.responseOf.get(it.seq))?.json)?.result);
    const params = obj(obj(it.json)?.params);
    const made = it.method === 'session/new' || it.method === 'session/fork' ? result?.sessionId : params?.sessionId;
    if (made === sid) found = it;
  }
  return found;
}

/** What a slice keeps, worked out before its items are read (see planSlice). */
export interface SlicePlan {
  /** The original seqs kept, in order. */
  seqs: number[];
  warnings: string[];
  cut: Slice['cut'];
  /** The first item of the slice proper with what it refers to: its set-up is looked for before it. */
  first: number;
  /** The slice's transcript header. */
  header: TranscriptHeader;
  /** Notes on kept items, renumbered. */
  notes: TranscriptNote[];
  /** The slice's seq of an original seq it keeps. */
  newSeq(seq: number): number | undefined;
}

/**
 * Agent `session/update` notifications a slice's plan needs only the session of (their text names no
 * tool call, terminal or state): a session index per seq from `from` (-1: not such an update;
 * `names[k]`, "" for none), instead of an object each, for spans of a million updates.
 */
export interface SessionUpdates {
  from: number;
  sessions: Int32Array;
  names: string[];
}

/** An agent update as a slice's plan holds it when its text cannot matter: without its text (`raw` ""), which SessionUpdatesBuilder takes. */
export function updateWithoutText(f: Frame): Frame {
  const lite: Frame = { seq: f.seq, t: f.t, dir: f.dir, raw: '', size: f.size, kind: f.kind, method: f.method };
  if (f.sessionId !== undefined) lite.sessionId = f.sessionId;
  return lite;
}

/** Gathers SessionUpdates from items in seq order: `take` keeps an update read without its text (`raw` ""). */
export class SessionUpdatesBuilder {
  private sessions: Int32Array;
  private readonly names: string[] = [];
  private readonly index = new Map<string, number>();

  constructor(private readonly from: number, expected = 1024) {
    this.sessions = new Int32Array(Math.max(1, expected)).fill(-1);
  }

  /** Takes `it` when it is such an update (then the plan need not hold it); false otherwise. */
  take(it: Item): boolean {
    if (it.dir !== 'a2c') return false;
    const f = it as Frame;
    if (f.raw !== '' || f.kind !== 'notification' || f.method !== 'session/update') return false;
    const at = f.seq - this.from;
    if (at < 0) return false;
    if (at >= this.sessions.length) {
      const more = new Int32Array(Math.max(this.sessions.length * 2, at + 1)).fill(-1);
      more.set(this.sessions);
      this.sessions = more;
    }
    const sid = f.sessionId ?? '';
    let k = this.index.get(sid);
    if (k === undefined) {
      k = this.names.push(sid) - 1;
      this.index.set(sid, k);
    }
    this.sessions[at] = k;
    return true;
  }

  done(): SessionUpdates {
    return { from: this.from, sessions: this.sessions, names: this.names };
  }
}

/** Where the lie of a slice can be seen from: a recording's items, or a part of them (see Index). */
export interface SliceInput {
  recording: Recording;
  /** The recording's last seq, when `recording.items` is only a part of it. */
  maxSeq?: number;
  /** Every turn of the recording (their prompts' seqs), for messages, when `recording.items` is a part. */
  allTurns?: () => { seq: number }[];
  /** Updates not in `recording.items`, by session only (see SessionUpdates). */
  updates?: SessionUpdates;
}

/**
 * The items the slice proper spans, before what it depends on: a turn from its prompt to its end, a
 * range as clipped to the recording. From the turn prompts around `spec` and the item it names.
 */
export function sliceSpan(input: SliceInput, spec: SliceSpec): { from: number; to: number } {
  const ix = new Index(input.recording.items, input.maxSeq, input.allTurns, input.updates);
  if (ix.maxSeq === 0) throw new SliceError('the recording has no items to cut a fixture from');
  const c = core(ix, spec);
  return { from: c.start, to: c.end };
}

/**
 * Works out what a slice keeps from the items it could need (the whole recording, or a part that
 * holds every item the slice could need: see Index); `sliceItems` then takes the kept items from
 * the recording read in order. Throws SliceError on a bad spec.
 */
export function planSlice(input: SliceInput, spec: SliceSpec): SlicePlan {
  const rec = input.recording;
  const ix = new Index(rec.items, input.maxSeq, input.allTurns, input.updates);
  if (ix.maxSeq === 0) throw new SliceError('the recording has no items to cut a fixture from');
  const { seqs: keep, label, start, cut } = core(ix, spec);
  addReferenced(ix, keep);
  closeOverAnswers(ix, keep);
  const first = Math.min(start, keep.min());
  const warnings: string[] = [];
  if ('to' in spec && 'to' in cut && cut.to < spec.to) warnings.push(`the recording ends at item #${cut.to}; cut #${cut.from}-${cut.to}`);

  // initialize, and authentication that succeeded before the slice.
  const init = rec.items.find((i) => isFrame(i) && i.dir === 'c2a' && i.kind === 'request' && i.method === 'initialize');
  if (init) keep.add(init.seq);
  else warnings.push('the recording has no initialize request; the fixture starts without one');
  for (const it of rec.items) {
    if (it.seq >= first) break;
    if (isFrame(it) && it.dir === 'c2a' && it.kind === 'request' && it.method === 'authenticate' && ix.ok(it.seq)) keep.add(it.seq);
  }

  // The set-up of every session the slice touches (and of the sessions those were forked from).
  const sessions = new Set<string>();
  for (const q of keep) {
    const sid = ix.sessionOf(ix.item(q)!);
    if (sid !== undefined && q >= first) sessions.add(sid);
  }
  for (const sid of sessions) { // a Set visits what is added while it is walked: forks' parents too
    const setup = setupOf(ix, sid, first);
    if (!setup) continue;
    keep.add(setup.seq);
    const answered = ix.responseOf.get(setup.seq)!;
    if (setup.method === 'session/fork') {
      const parent = obj(obj(setup.json)?.params)?.sessionId;
      if (typeof parent === 'string') sessions.add(parent);
    }
    for (let q = setup.seq + 1; q < first; q++) {
      const it = ix.item(q);
      if (!isFrame(it) || ix.sessionOf(it) !== sid) continue;
      // What the agent sent for the session while answering (a load's history, its requests).
      if (it.seq < answered && it.dir === 'a2c') keep.add(it.seq);
      // Modes, models and config options set since, and the agent's state updates.
      else if (it.dir === 'c2a' && it.kind === 'request' && CONFIG_METHODS.has(it.method ?? '') && ix.ok(it.seq)) keep.add(it.seq);
      else if (it.dir === 'a2c' && STATE_UPDATES.has(updateKind(it) ?? '')) keep.add(it.seq);
    }
  }
  closeOverAnswers(ix, keep);
  // The agent process's start, when it was recorded.
  const spawn = rec.items.find((i): i is EventItem => i.dir === 'event' && i.type === 'spawn');
  if (spawn && spawn.seq < keep.min()) keep.add(spawn.seq);

  const seqs = [...keep];
  const newSeqs = new Uint32Array(ix.maxSeq + 1);
  seqs.forEach((s, i) => { newSeqs[s] = i + 1; });
  const newSeq = (s: number): number | undefined => newSeqs[s] || undefined;

  for (const s of seqs) {
    const f = ix.frame(s);
    if (f?.kind === 'request' && !ix.responseOf.has(s)) {
      warnings.push(`${f.dir === 'c2a' ? 'the client' : 'the agent'}'s ${f.method} request #${s} was never answered in the recording; a peer replaying this fixture waits for its answer`);
    }
  }

  const notes: TranscriptNote[] = [];
  for (const n of rec.notes ?? []) {
    const s = newSeq(n.seq);
    if (s !== undefined) notes.push({ ...n, seq: s });
  }
  const { endedAt: _e, exitCode: _c, exitSignal: _s, status: _st, ...kept } = rec.header;
  const from = rec.header.name ?? 'recording';
  const header: TranscriptHeader = {
    ...kept,
    name: `${from} ${label}`,
    slice: { from, ...('turn' in cut ? { turn: cut.turn } : { range: `${cut.from}-${cut.to}` }), seqs: compactSeqs(seqs) },
  };
  return { seqs, warnings, cut, first, header, notes, newSeq };
}

/**
 * The slice's items, renumbered from 1 (responses' `replyTo` follows), from the recording's items in
 * seq order (all of them, or any that hold the kept ones): only the kept ones are held, one at a time.
 */
export function* sliceItems(plan: SlicePlan, items: Iterable<Item>): Generator<Item> {
  for (const it of items) {
    const seq = plan.newSeq(it.seq);
    if (seq === undefined) continue;
    if (!isFrame(it)) {
      yield { ...it, seq };
      continue;
    }
    const f: Frame = { ...it, seq };
    if (it.replyTo !== undefined) f.replyTo = plan.newSeq(it.replyTo)!;
    if (it.responseSeq !== undefined) {
      const r = plan.newSeq(it.responseSeq);
      if (r === undefined) delete f.responseSeq;
      else f.responseSeq = r;
    }
    yield f;
  }
}

/** Cuts `spec` out of `rec` with what it depends on; throws SliceError on a bad spec. */
export function sliceRecording(rec: Recording, spec: SliceSpec): Slice {
  const plan = planSlice({ recording: rec }, spec);
  const out: Recording = { header: plan.header, items: [...sliceItems(plan, rec.items)] };
  if (plan.notes.length) out.notes = plan.notes;
  return { recording: out, seqs: plan.seqs, warnings: plan.warnings, cut: plan.cut };
}
