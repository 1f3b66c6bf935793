/**
 * The ACP-aware matcher: pairs live frames with recorded ones and explains every mismatch. Pure:
 * frames in, observations out; the mock agent, the mock client and `diff` all drive one of these.
 *
 * Matching rules (see `matchKey` and `observe`):
 * 1. A live request or notification matches an unconsumed recorded frame of the same direction,
 *    kind (request/notification) and method; for `session/update` also the same `sessionUpdate` kind.
 * 2. It must be in the same session scope: its `sessionId`, mapped back through the ids learned so
 *    far, equals the recorded one (or both are unbound / absent).
 * 3. Order may differ: among the first `window` candidates the one with the fewest differences
 *    wins (ties: the earliest). Differences never prevent a match unless `strict`.
 * 4. A response matches the recorded response of the recorded request its request was paired with.
 * 5. A line that is not JSON-RPC matches an unconsumed recorded line with the same raw text.
 * Each match teaches the `VolatileMap` the ids and cwd that differ, so later frames must agree.
 */
import { type Direction, type Frame, type RpcId } from '../wire/frame.js';
import { idKey } from '../wire/parse.js';
import { Correlator } from '../wire/correlate.js';
import { diffJson, type IgnoreSet, type PathDiff } from './json-diff.js';
import { VolatileMap } from './volatile.js';
import { LazyJsonFrame } from './lazy-frame.js';

export type Divergence =
  | { kind: 'changed'; recorded: Frame; live: Frame; diffs: PathDiff[] }
  | { kind: 'missing'; recorded: Frame; reason?: string }
  | { kind: 'extra'; live: Frame; reason: string; nearest?: Frame; diffs: PathDiff[] };

export type Observation =
  | { matched: true; recorded: Frame; diffs: PathDiff[] }
  | { matched: false; reason: string; nearest?: Frame; diffs: PathDiff[] };

export interface AlignerOptions {
  map?: VolatileMap;
  ignore?: IgnoreSet;
  /** Differences make a request unmatched instead of being reported as changes. */
  strict?: boolean;
  /** How many candidates of the same key are considered for reordering (default 64). */
  window?: number;
}

/** The matching key of a frame: kind class, method and, for session/update, the update kind. */
export function matchKey(f: Frame): string | undefined {
  if ((f.kind !== 'request' && f.kind !== 'notification') || f.method === undefined) return undefined;
  let key = `${f.kind === 'request' ? 'request' : 'notification'} ${f.method}`;
  const upd = updateKind(f);
  if (upd !== undefined) key += ` ${upd}`;
  return key;
}

/** `params.update.sessionUpdate` of a session/update notification. */
export function updateKind(f: Frame): string | undefined {
  if (f instanceof LazyJsonFrame) return f.updateKind;
  const p = paramsOf(f);
  const u = p?.update;
  if (u && typeof u === 'object' && typeof (u as Record<string, unknown>).sessionUpdate === 'string') {
    return (u as Record<string, unknown>).sessionUpdate as string;
  }
  return undefined;
}

function paramsOf(f: Frame): Record<string, unknown> | undefined {
  const j = f.json;
  if (!j || typeof j !== 'object' || Array.isArray(j)) return undefined;
  const p = (j as Record<string, unknown>).params;
  return p && typeof p === 'object' && !Array.isArray(p) ? (p as Record<string, unknown>) : undefined;
}

/** Short readable label: `session/update tool_call`, `response to session/prompt`, `invalid line`. */
export function describeFrame(f: Frame): string {
  if (f.kind === 'request' || f.kind === 'notification') {
    const u = updateKind(f);
    return `${f.kind} ${f.method ?? '?'}${u ? ` ${u}` : ''}`;
  }
  if (f.kind === 'result' || f.kind === 'error') return `${f.kind === 'error' ? 'error' : 'result'} for ${f.method ?? `id ${String(f.id)}`}`;
  return `invalid line (${f.parseError ?? 'not JSON-RPC'})`;
}

/** `params.update.content.text` of a parsed message, when it is a string. */
function contentText(j: unknown): string | undefined {
  const t = (j as { params?: { update?: { content?: { text?: unknown } } } } | null | undefined)?.params?.update?.content?.text;
  return typeof t === 'string' ? t : undefined;
}

/**
 * Recorded frames in order, walked over the ones not consumed yet: `next[i]` skips a run of consumed
 * frames (consumption is final, so the skips only grow; path compression keeps a walk from the start
 * as cheap as the frames still open). This keeps matching linear when an early frame stays unmatched.
 */
class OpenList {
  readonly frames: Frame[] = [];
  private next: number[] = [];
  constructor(private readonly consumed: ReadonlySet<number>) {}

  push(f: Frame): void {
    this.frames.push(f);
    this.next.push(this.frames.length);
  }

  /** Index of the first open frame at or after `i` (`frames.length` when none). */
  open(i: number): number {
    const { frames, next, consumed } = this;
    let j = i;
    while (j < frames.length && consumed.has(frames[j]!.seq)) j = next[j]!;
    for (let k = i; k < j;) {
      const nk = next[k]!;
      next[k] = j;
      k = nk;
    }
    return j;
  }

  /** The open frames in order. */
  *[Symbol.iterator](): Generator<Frame> {
    for (let i = this.open(0); i < this.frames.length; i = this.open(i + 1)) yield this.frames[i]!;
  }

  /** The last consumed frame. */
  lastConsumed(): Frame | undefined {
    for (let i = this.frames.length - 1; i >= 0; i--) if (this.consumed.has(this.frames[i]!.seq)) return this.frames[i];
    return undefined;
  }
}

/** Frames of one match key, with the same frames split by recorded session (`undefined`: no session). */
interface KeyList {
  all: OpenList;
  bySession: Map<string | undefined, OpenList>;
}

export class Aligner {
  readonly map: VolatileMap;
  readonly divergences: Divergence[] = [];
  private readonly frames: Frame[];
  private readonly responseOf = new Map<number, Frame>();
  private readonly consumed = new Set<number>();
  private readonly liveToRec = new Map<number, Frame>();
  private readonly correlator = new Correlator();
  private readonly window: number;
  private readonly byKey = new Map<string, KeyList>();
  /** The match keys made so far, by direction and kind, method and update kind (see `keyOf`). */
  private readonly keys: Array<Map<string, Map<string | undefined, string>>> = [new Map(), new Map(), new Map(), new Map()];
  /** All recorded frames, lines that are not JSON-RPC by direction, responses to no request by direction and kind. */
  private readonly open: OpenList;
  private readonly invalidByDir = new Map<string, OpenList>();
  private readonly orphanResponses = new Map<string, OpenList>();
  /** Recorded JSON-RPC id of each live request, by direction + live id (for `$/cancel_request`). */
  private readonly recIdOfLive = new Map<string, RpcId | undefined>();

  constructor(recorded: readonly Frame[], private readonly opts: AlignerOptions = {}) {
    this.map = opts.map ?? new VolatileMap();
    this.window = opts.window ?? 64;
    this.frames = recorded.filter((f) => f.dir === 'c2a' || f.dir === 'a2c');
    this.open = new OpenList(this.consumed);
    const listIn = <K>(m: Map<K, OpenList>, k: K): OpenList => {
      let l = m.get(k);
      if (!l) m.set(k, (l = new OpenList(this.consumed)));
      return l;
    };
    for (const f of this.frames) {
      this.open.push(f);
      if (f.replyTo !== undefined) this.responseOf.set(f.replyTo, f);
      else if (f.kind === 'result' || f.kind === 'error') listIn(this.orphanResponses, `${f.dir} ${f.kind}`).push(f);
      if (f.kind === 'invalid') listIn(this.invalidByDir, f.dir).push(f);
      const key = this.keyOf(f);
      if (key !== undefined) {
        let list = this.byKey.get(key);
        if (!list) this.byKey.set(key, (list = { all: new OpenList(this.consumed), bySession: new Map() }));
        list.all.push(f);
        listIn(list.bySession, f.sessionId).push(f);
      }
    }
  }

  /**
   * Frames that answer nothing the other side asked: lines that are not JSON-RPC and responses to no
   * request (e.g. a parse error answering a garbage line). Replays do not wait on them.
   */
  static isNoise(f: Frame): boolean {
    return f.kind === 'invalid' || ((f.kind === 'result' || f.kind === 'error') && f.replyTo === undefined);
  }

  /** Recorded frames (protocol frames only), in order. */
  get recorded(): readonly Frame[] {
    return this.frames;
  }
  isConsumed(seq: number): boolean {
    return this.consumed.has(seq);
  }
  /** The recorded response to the recorded request `seq`, if the recording has one. */
  responseTo(seq: number): Frame | undefined {
    return this.responseOf.get(seq);
  }
  /** The recorded frame a live frame was paired with. */
  recordedFor(liveSeq: number): Frame | undefined {
    return this.liveToRec.get(liveSeq);
  }
  /** Recorded frames in `dir` that nothing matched yet. */
  unconsumed(dir: Direction): Frame[] {
    return this.frames.filter((f) => f.dir === dir && !this.consumed.has(f.seq));
  }

  /** Marks a recorded frame consumed without a live counterpart (e.g. a deliberately dropped frame). */
  consume(recorded: Frame): void {
    this.consumed.add(recorded.seq);
  }

  /** Records that `live` was sent by us as the replay of `recorded` (no comparison). */
  pair(live: Frame, recorded: Frame): void {
    this.correlator.observe(live);
    this.consumed.add(recorded.seq);
    this.liveToRec.set(live.seq, recorded);
    if (live.kind === 'request') this.recIdOfLive.set(live.dir + idKey(live.id), recorded.id);
    // What we sent binds its ids as sent: a peer answering with another option id is then a difference.
    if (recorded.json !== undefined && live.json !== undefined) this.map.learnFrom(recorded.json, live.json);
  }

  /** Records that `live` was sent by us with no recorded counterpart (an error we made up, an injected line). */
  noteSent(live: Frame): void {
    this.correlator.observe(live);
  }

  /** Differences between a recorded and a live frame, volatile values aside. */
  diff(recorded: Frame, live: Frame, limit = 50): PathDiff[] {
    if (recorded.json === undefined || live.json === undefined) {
      return recorded.raw === live.raw ? [] : [{ path: '(raw line)', op: 'changed', recorded: recorded.raw, live: live.raw }];
    }
    return diffJson(recorded.json, this.withRecordedRequestId(live), { map: this.map, ignore: this.opts.ignore, limit });
  }

  /** `$/cancel_request` names a request by its live JSON-RPC id: compare it as the recorded id (spec 4.3). */
  private withRecordedRequestId(live: Frame): unknown {
    const j = live.json as { params?: { requestId?: unknown } } | undefined;
    if (live.method !== '$/cancel_request' || !j?.params || !('requestId' in j.params)) return live.json;
    const rid = j.params.requestId;
    if (typeof rid !== 'string' && typeof rid !== 'number') return live.json;
    const key = live.dir + idKey(rid);
    if (!this.recIdOfLive.has(key)) return live.json;
    return { ...j, params: { ...j.params, requestId: this.recIdOfLive.get(key) } };
  }

  /** Matches one live frame that the peer sent. Never throws. */
  observe(live: Frame): Observation {
    this.correlator.observe(live);
    const obs = this.match(live);
    if (obs.matched) {
      this.consumed.add(obs.recorded.seq);
      this.liveToRec.set(live.seq, obs.recorded);
      if (live.kind === 'request') this.recIdOfLive.set(live.dir + idKey(live.id), obs.recorded.id);
      if (obs.recorded.json !== undefined && live.json !== undefined) this.map.learnFrom(obs.recorded.json, live.json);
      if (obs.diffs.length > 0) this.divergences.push({ kind: 'changed', recorded: obs.recorded, live, diffs: obs.diffs });
    } else {
      this.divergences.push({ kind: 'extra', live, reason: obs.reason, nearest: obs.nearest, diffs: obs.diffs });
    }
    return obs;
  }

  /** Adds a `missing` divergence for every unconsumed recorded frame in `dirs`. */
  finish(dirs: readonly Direction[], reason?: string): Divergence[] {
    for (const f of this.frames) {
      if (dirs.includes(f.dir) && !this.consumed.has(f.seq)) {
        this.consumed.add(f.seq);
        this.divergences.push({ kind: 'missing', recorded: f, reason });
      }
    }
    return this.divergences;
  }

  private match(live: Frame): Observation {
    if (live.kind === 'result' || live.kind === 'error') return this.matchResponse(live);
    if (live.kind === 'invalid' || live.json === undefined) return this.matchInvalid(live);
    return this.matchMessage(live);
  }

  private matchResponse(live: Frame): Observation {
    if (live.replyTo === undefined) {
      // A response to nothing (e.g. a parse error answering a garbage line): match the same in the recording.
      let best: { f: Frame; diffs: PathDiff[] } | undefined;
      let n = 0;
      for (const f of this.orphanResponses.get(`${live.dir} ${live.kind}`) ?? []) {
        const diffs = this.diff(f, live, 20);
        if (!best || diffs.length < best.diffs.length) best = { f, diffs };
        if (diffs.length === 0 || ++n >= this.window) break;
      }
      if (best) return { matched: true, recorded: best.f, diffs: this.diff(best.f, live) };
      return { matched: false, reason: `response with id ${JSON.stringify(live.id)} answers no pending request, and the recording has no such response left`, diffs: [] };
    }
    const req = this.liveToRec.get(live.replyTo);
    if (!req) return { matched: false, reason: `answers a ${live.method ?? ''} request that has no counterpart in the recording`, diffs: [] };
    const rec = this.responseOf.get(req.seq);
    if (!rec) return { matched: false, reason: `the recorded ${req.method ?? ''} request (seq ${req.seq}) was never answered in the recording`, diffs: [] };
    if (this.consumed.has(rec.seq)) {
      return { matched: false, reason: `the recorded response (seq ${rec.seq}) was already used`, nearest: rec, diffs: this.diff(rec, live) };
    }
    return { matched: true, recorded: rec, diffs: this.diff(rec, live) };
  }

  private matchInvalid(live: Frame): Observation {
    let n = 0;
    for (const f of this.invalidByDir.get(live.dir) ?? []) {
      if (f.raw === live.raw) return { matched: true, recorded: f, diffs: [] };
      if (++n >= this.window) break;
    }
    return { matched: false, reason: `not a JSON-RPC message (${live.parseError ?? 'invalid'}) and the recording has no such line`, diffs: [] };
  }

  private scopeOk(rec: Frame, live: Frame): boolean {
    if (live.sessionId === undefined || rec.sessionId === undefined) return live.sessionId === rec.sessionId;
    const mapped = this.map.recordedId(live.sessionId);
    if (mapped !== undefined) return mapped === rec.sessionId;
    // Live session not bound yet: it may match a recorded session that is not bound either.
    return this.map.liveId(rec.sessionId) === undefined;
  }

  /**
   * The open recorded frames of a key that are in the live frame's session scope (`scopeOk`), in order:
   * once the live session is bound (or the frame has none), exactly those of one recorded session.
   */
  private inScope(list: KeyList, live: Frame): { frames: OpenList | undefined; filtered: boolean } {
    if (live.sessionId === undefined) return { frames: list.bySession.get(undefined), filtered: false };
    const mapped = this.map.recordedId(live.sessionId);
    if (mapped !== undefined) return { frames: list.bySession.get(mapped), filtered: false };
    return { frames: list.all, filtered: true };
  }

  /**
   * `${dir} ${matchKey(f)}`, the same string object for every frame of a key (no string is built per
   * frame, and the lists are found by a string whose hash is known).
   */
  private keyOf(f: Frame): string | undefined {
    if ((f.kind !== 'request' && f.kind !== 'notification') || f.method === undefined) return undefined;
    const upd = updateKind(f);
    const byMethod = this.keys[(f.dir === 'c2a' ? 0 : 2) + (f.kind === 'request' ? 0 : 1)]!;
    let byUpd = byMethod.get(f.method);
    if (!byUpd) byMethod.set(f.method, (byUpd = new Map()));
    let key = byUpd.get(upd);
    if (key === undefined) byUpd.set(upd, (key = `${f.dir} ${matchKey(f)!}`));
    return key;
  }

  /**
   * True only when `diff(rec, live)` certainly finds a difference, decided from one field: the
   * `params.update.content.text` of two session/update frames (a streamed chunk's text), strings
   * that differ even once the live one's paths are mapped, exactly as `diffJson` compares them there.
   * Only without ignored paths (which could cover that field).
   */
  private certainlyDiffers(rec: Frame, live: Frame): boolean {
    if (live.method !== 'session/update') return false;
    const r = contentText(rec.json);
    if (r === undefined) return false;
    const l = contentText(live.json);
    return l !== undefined && r !== l && this.map.mapPathString(l, false) !== r;
  }

  private matchMessage(live: Frame): Observation {
    const key = this.keyOf(live)!;
    const list = this.byKey.get(key);
    let best: { f: Frame; diffs: PathDiff[] } | undefined;
    let considered = 0;
    let otherScope: Frame | undefined;
    let bestAt = -1;
    let passed: Array<[number, Frame]> | undefined;
    const quick = this.opts.ignore === undefined || this.opts.ignore.size === 0;
    if (list) {
      const scope = this.inScope(list, live);
      const open = scope.frames;
      // The open frames in order (as OpenList's iterator gives them, without a generator per frame).
      for (let i = open ? open.open(0) : 0; open && i < open.frames.length; i = open.open(i + 1)) {
        const f = open.frames[i]!;
        if (considered >= this.window) break;
        if (scope.filtered && !this.scopeOk(f, live)) {
          otherScope ??= f;
          continue;
        }
        const at = considered++;
        // A candidate certainly different (see `certainlyDiffers`) is passed over for now: one left
        // open (e.g. a frame missing from b) stays first in its key's list, and walking it against
        // every later frame was a third of all the walks in a long comparison.
        if (quick && this.certainlyDiffers(f, live)) {
          (passed ??= []).push([at, f]);
          continue;
        }
        const diffs = this.diff(f, live, 20);
        if (!best || diffs.length < best.diffs.length) { best = { f, diffs }; bestAt = at; }
        if (diffs.length === 0) break;
      }
      // No candidate is equal: the fewest differences win, the earliest among as few, as if none had been passed over.
      if (passed && (!best || best.diffs.length > 0)) {
        for (const [at, f] of passed) {
          const diffs = this.diff(f, live, 20);
          if (!best || diffs.length < best.diffs.length || (diffs.length === best.diffs.length && at < bestAt)) { best = { f, diffs }; bestAt = at; }
        }
      }
      // Nothing in scope is open: every open frame of the key is in another scope.
      if (!best && !scope.filtered) otherScope = list.all.frames[list.all.open(0)];
    }
    const sameKeyTotal = list?.all.frames.length ?? 0;
    const what = (): string => `${live.kind} ${live.method}${updateKind(live) ? ` (${updateKind(live)})` : ''}`;
    if (best) {
      const diffs = best.diffs.length ? this.diff(best.f, live) : [];
      if (this.opts.strict && diffs.length > 0) {
        return { matched: false, reason: `the nearest recorded ${what()} (seq ${best.f.seq}) has different params (--strict)`, nearest: best.f, diffs };
      }
      return { matched: true, recorded: best.f, diffs };
    }
    const withDiff = (reason: string, nearest: Frame | undefined): Observation =>
      ({ matched: false, reason, nearest, diffs: nearest ? this.diff(nearest, live) : [] });
    if (otherScope) {
      return withDiff(`the recorded ${what()} left are in session ${otherScope.sessionId ?? '(none)'}, this one is in session ${live.sessionId ?? '(none)'}, which does not correspond to it`, otherScope);
    }
    if (sameKeyTotal > 0) {
      return withDiff(`all ${sameKeyTotal} recorded ${what()} were already used`, list!.all.lastConsumed());
    }
    let sameMethod: Frame | undefined;
    let sameKind: Frame | undefined;
    for (const f of this.open) {
      if (f.dir !== live.dir) continue;
      if (!sameMethod && f.method === live.method && matchKey(f) !== undefined) sameMethod = f;
      if (!sameKind && f.kind === live.kind) sameKind = f;
      if (sameMethod && sameKind) break;
    }
    if (sameMethod) return withDiff(`the recording has no ${what()} left; it has other ${live.method} frames`, sameMethod);
    return withDiff(`the recording has no ${what()}${live.dir === 'c2a' ? ' from the client' : ' from the agent'}`, sameKind);
  }
}
