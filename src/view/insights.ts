/**
 * Insights over one recording (the Stats view, grown up): latency per method (histogram and
 * percentiles), per-turn timings and who the time went to, tool call durations by kind,
 * permission waits, throughput over time, the slowest requests, errors by code, and the automatic
 * insights that lead the view, each with the frames it is about. Pure: computed from the items and
 * the waterfall's spans, the same way on the server and in the browser. The items are folded one at a
 * time (InsightsFold), holding only what the view lists (latencies, errors, frames per second), so the
 * server folds them in the same reading as the waterfall.
 */
import type { Frame, Item } from '../wire/frame.js';
import { fmtDuration, turnOfSpans, waitsOfTurns, type Waterfall, type WaterfallSpan } from './waterfall.js';

/** Upper bounds (ms) of the latency histogram's buckets; the last one is open. */
export const LATENCY_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 30_000, 60_000];

export interface MethodLatency {
  method: string;
  /** Who sent the request. */
  dir: 'c2a' | 'a2c';
  requests: number;
  answered: number;
  errors: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
  /** Counts per LATENCY_BUCKETS bucket (one more for above the last bound). */
  histogram: number[];
}

export interface TurnTiming {
  seq: number;
  endSeq: number | null;
  sessionId: string | null;
  label: string;
  start: number;
  durationMs: number;
  /** Time to the first agent message or thought chunk. */
  ttfcMs: number | null;
  /** Time spent waiting on the user (permission requests) and on the client (fs/*, terminal/*, other requests). */
  userMs: number;
  clientMs: number;
  agentMs: number;
  stopReason: string | null;
  toolCalls: number;
}

export interface ToolKindStats {
  kind: string;
  count: number;
  failed: number;
  unfinished: number;
  p50: number | null;
  p90: number | null;
  max: number | null;
  /** The slowest call of this kind. */
  slowest: { seq: number; label: string; ms: number } | null;
}

export interface PermissionWait {
  seq: number;
  endSeq: number | null;
  label: string;
  waitMs: number;
  outcome: string | null;
  answered: boolean;
}

export interface SlowRequest {
  seq: number;
  endSeq: number;
  method: string;
  dir: 'c2a' | 'a2c';
  latency: number;
}

export interface ErrorGroup {
  code: number | null;
  message: string;
  count: number;
  methods: string[];
  /** seqs of the error responses (the first 50). */
  seqs: number[];
}

export type InsightKind = 'long-tail' | 'outlier' | 'busiest-second' | 'error-burst' | 'waiting-user' | 'waiting-client' | 'unfinished-tool';

export interface Insight {
  kind: InsightKind;
  severity: 'warning' | 'info';
  title: string;
  detail: string;
  /** The frames it is about, most telling first (the first one is where a link goes). */
  seqs: number[];
}

export interface Insights {
  frames: number;
  bytes: number;
  durationMs: number;
  insights: Insight[];
  methods: MethodLatency[];
  turns: TurnTiming[];
  tools: ToolKindStats[];
  permissions: PermissionWait[];
  /** Frames and bytes per bucket of `bucketMs`, from `start`. */
  throughput: { start: number; bucketMs: number; frames: number[]; bytes: number[] };
  slowest: SlowRequest[];
  errors: ErrorGroup[];
}

/** Nearest-rank quantile of an ascending array. */
export function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export function bucketOf(ms: number): number {
  let i = 0;
  while (i < LATENCY_BUCKETS.length && ms > LATENCY_BUCKETS[i]!) i++;
  return i;
}

/** Total length of the union of intervals, clipped to [lo, hi]. */
function unionLength(iv: [number, number][], lo: number, hi: number): number {
  const xs = iv.map(([a, b]) => [Math.max(a, lo), Math.min(b, hi)] as [number, number]).filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
  let total = 0;
  let curA = -Infinity;
  let curB = -Infinity;
  for (const [a, b] of xs) {
    if (a > curB) {
      if (curB > curA) total += curB - curA;
      curA = a;
      curB = b;
    } else if (b > curB) curB = b;
  }
  if (curB > curA) total += curB - curA;
  return total;
}

/** Parts of `iv` not covered by `minus` (both unions), clipped to [lo, hi]. */
function unionMinus(iv: [number, number][], minus: [number, number][], lo: number, hi: number): number {
  return unionLength([...iv, ...minus], lo, hi) - unionLength(minus, lo, hi);
}

const isFrame = (it: Item): it is Frame => it.dir === 'c2a' || it.dir === 'a2c';

function errorOf(f: Frame): { code: number | null; message: string } {
  const e = (f.json as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  return { code: typeof e?.code === 'number' ? e.code : null, message: typeof e?.message === 'string' ? e.message : '' };
}

/** The per-turn split of time between the agent, the client and the user. */
export function turnTimings(wf: Waterfall): TurnTiming[] {
  const spans = wf.spans;
  const user = new Map<number, [number, number][]>();
  const client = new Map<number, [number, number][]>();
  for (const [t, waits] of waitsOfTurns(spans)) {
    for (const w of waits) {
      const into = w.owner === 'user' ? user : client;
      const list = into.get(t);
      if (list) list.push([w.start, w.end]); else into.set(t, [[w.start, w.end]]);
    }
  }
  const turnOf = turnOfSpans(spans);
  const tools = new Map<number, number>();
  for (const s of spans) if (s.type === 'tool' && turnOf[s.id]! >= 0) tools.set(turnOf[s.id]!, (tools.get(turnOf[s.id]!) ?? 0) + 1);
  const out: TurnTiming[] = [];
  for (const s of spans) {
    if (s.type !== 'turn') continue;
    const dur = s.end - s.start;
    const u = unionLength(user.get(s.id) ?? [], s.start, s.end);
    const c = unionMinus(client.get(s.id) ?? [], user.get(s.id) ?? [], s.start, s.end);
    out.push({
      seq: s.seq, endSeq: s.endSeq, sessionId: s.sessionId ?? null, label: s.label, start: s.start, durationMs: dur,
      ttfcMs: s.firstChunk !== undefined ? s.firstChunk - s.start : null, userMs: u, clientMs: c, agentMs: Math.max(0, dur - u - c),
      stopReason: s.stopReason ?? null, toolCalls: tools.get(s.id) ?? 0,
    });
  }
  return out;
}

/** Everything the Insights view shows about one recording. */
export function computeInsights(items: Iterable<Item>, wf: Waterfall): Insights {
  const fold = new InsightsFold();
  for (const it of items) fold.step(it);
  return fold.finish(wf);
}

interface MethodEntry { m: MethodLatency; lat: number[]; reqs: { seq: number; endSeq: number; lat: number }[] }

/** The per-frame half of the insights, folded as the items are read; `finish` with the waterfall of the same items. */
export class InsightsFold {
  private readonly byMethod = new Map<string, MethodEntry>();
  private readonly errs = new Map<string, ErrorGroup>();
  private readonly errorTimes: { t: number; seq: number }[] = [];
  private readonly all: SlowRequest[] = [];
  private frames = 0;
  private bytes = 0;
  /** The first item's time (the waterfall's start), and frames and bytes per whole second after it. */
  private start: number | undefined;
  private readonly afterStart = new Map<number, { n: number; bytes: number }>();
  /** The busiest second: frames per whole second of the recording's clock. */
  private readonly perSecond = new Map<number, { n: number; bytes: number; first: number; last: number }>();

  private entry(method: string, dir: 'c2a' | 'a2c'): MethodEntry {
    const key = `${dir} ${method}`;
    let e = this.byMethod.get(key);
    if (!e) {
      e = { m: { method, dir, requests: 0, answered: 0, errors: 0, p50: null, p90: null, p99: null, max: null, histogram: new Array(LATENCY_BUCKETS.length + 1).fill(0) }, lat: [], reqs: [] };
      this.byMethod.set(key, e);
    }
    return e;
  }

  step(it: Item): void {
    this.start ??= it.t;
    if (!isFrame(it)) return;
    this.frames++;
    this.bytes += it.size;
    if (it.kind === 'request' && it.method) this.entry(it.method, it.dir).m.requests++;
    if ((it.kind === 'result' || it.kind === 'error') && it.method && it.replyTo !== undefined) {
      const dir = it.dir === 'c2a' ? 'a2c' : 'c2a';
      const e = this.entry(it.method, dir);
      if (it.latency !== undefined) {
        e.m.answered++;
        e.lat.push(it.latency);
        e.m.histogram[bucketOf(it.latency)]!++;
        e.reqs.push({ seq: it.replyTo, endSeq: it.seq, lat: it.latency });
        this.all.push({ seq: it.replyTo, endSeq: it.seq, method: it.method, dir, latency: it.latency });
      }
      if (it.kind === 'error') e.m.errors++;
    }
    if (it.kind === 'error') {
      const { code, message } = errorOf(it);
      const k = String(code);
      let g = this.errs.get(k);
      if (!g) { g = { code, message, count: 0, methods: [], seqs: [] }; this.errs.set(k, g); }
      g.count++;
      if (it.method && !g.methods.includes(it.method)) g.methods.push(it.method);
      if (g.seqs.length < 50) g.seqs.push(it.seq);
      this.errorTimes.push({ t: it.t, seq: it.seq });
    }
    const s = Math.floor((it.t - this.start) / 1000);
    const a = this.afterStart.get(s);
    if (a) { a.n++; a.bytes += it.size; } else this.afterStart.set(s, { n: 1, bytes: it.size });
    const sec = Math.floor(it.t / 1000);
    const p = this.perSecond.get(sec);
    if (p) { p.n++; p.bytes += it.size; p.last = it.seq; } else this.perSecond.set(sec, { n: 1, bytes: it.size, first: it.seq, last: it.seq });
  }

  finish(wf: Waterfall): Insights {
    const { byMethod, errs, errorTimes, all, frames, bytes, perSecond } = this;
    const methods: MethodLatency[] = [];
    for (const e of byMethod.values()) {
      e.lat.sort((a, b) => a - b);
      Object.assign(e.m, { p50: quantile(e.lat, 0.5), p90: quantile(e.lat, 0.9), p99: quantile(e.lat, 0.99), max: e.lat.length ? e.lat[e.lat.length - 1]! : null });
      methods.push(e.m);
    }
    methods.sort((a, b) => b.requests - a.requests || a.method.localeCompare(b.method) || a.dir.localeCompare(b.dir));
    all.sort((a, b) => b.latency - a.latency || a.seq - b.seq);
    const slowest = all.slice(0, 10);
    const errors = [...errs.values()].sort((a, b) => b.count - a.count || (a.code ?? 0) - (b.code ?? 0));

    // ---- turns, tools, permissions ------------------------------------------------------------------
    const turns = turnTimings(wf);
    const kinds = new Map<string, { s: ToolKindStats; d: number[] }>();
    const permissions: PermissionWait[] = [];
    const unfinishedTools: WaterfallSpan[] = [];
    for (const s of wf.spans) {
      if (s.type === 'tool') {
        const kind = s.kind ?? 'other';
        let k = kinds.get(kind);
        if (!k) { k = { s: { kind, count: 0, failed: 0, unfinished: 0, p50: null, p90: null, max: null, slowest: null }, d: [] }; kinds.set(kind, k); }
        const ms = s.end - s.start;
        k.s.count++;
        if (s.status === 'failed') k.s.failed++;
        if (s.status === 'unfinished') { k.s.unfinished++; unfinishedTools.push(s); }
        k.d.push(ms);
        if (!k.s.slowest || ms > k.s.slowest.ms) k.s.slowest = { seq: s.seq, label: s.label, ms };
      } else if (s.type === 'permission') {
        permissions.push({ seq: s.seq, endSeq: s.endSeq, label: s.label, waitMs: s.end - s.start, outcome: s.stopReason ?? null, answered: s.status !== 'unfinished' });
      }
    }
    const tools: ToolKindStats[] = [];
    for (const { s, d } of kinds.values()) {
      d.sort((a, b) => a - b);
      Object.assign(s, { p50: quantile(d, 0.5), p90: quantile(d, 0.9), max: d.length ? d[d.length - 1]! : null });
      tools.push(s);
    }
    tools.sort((a, b) => b.count - a.count || a.kind.localeCompare(b.kind));

    // ---- throughput ------------------------------------------------------------------------------------
    const durationMs = Math.max(0, wf.end - wf.start);
    const bucketMs = Math.max(1000, Math.ceil(durationMs / 120 / 1000) * 1000);
    const n = Math.max(1, Math.floor(durationMs / bucketMs) + 1);
    const tf = new Array<number>(n).fill(0);
    const tb = new Array<number>(n).fill(0);
    // Whole seconds after the start, re-counted into buckets of whole seconds (floor(floor(x) / k) is floor(x / k)).
    const k = bucketMs / 1000;
    for (const [sec, a] of this.afterStart) {
      if (sec < 0) continue; // a time before the first item's has no bucket
      const b = Math.min(n - 1, Math.floor(sec / k));
      tf[b]! += a.n;
      tb[b]! += a.bytes;
    }

    // ---- automatic insights ------------------------------------------------------------------------------
    const insights: Insight[] = [];
    for (const e of byMethod.values()) {
      const { p50, p99 } = e.m;
      if (e.lat.length >= 10 && p50 !== null && p99 !== null && p99 >= 5 * Math.max(p50, 1) && p99 - p50 >= 50) {
        const tail = e.reqs.filter((r) => r.lat >= p99).sort((a, b) => b.lat - a.lat);
        insights.push({
          kind: 'long-tail', severity: 'warning', title: `${e.m.method}: a long tail (p99 ${fmtDuration(p99)}, p50 ${fmtDuration(p50)})`,
          detail: `${e.m.answered} answered ${e.m.method} requests; the slowest 1% take ${Math.round(p99 / Math.max(p50, 0.001))}× the median.`,
          seqs: tail.slice(0, 20).map((r) => r.seq),
        });
      }
    }
    const outliers: { r: { seq: number; endSeq: number; lat: number }; m: MethodLatency; ratio: number }[] = [];
    for (const e of byMethod.values()) {
      const { p50 } = e.m;
      if (e.lat.length < 5 || p50 === null) continue;
      const limit = Math.max(10 * p50, p50 + 1000);
      const over = e.reqs.filter((r) => r.lat > limit);
      // A single outlier: one request (or very few) far above every other of its method.
      if (over.length >= 1 && over.length <= Math.max(1, Math.floor(e.lat.length * 0.01))) for (const r of over) outliers.push({ r, m: e.m, ratio: r.lat / Math.max(p50, 0.001) });
    }
    outliers.sort((a, b) => b.ratio - a.ratio);
    for (const o of outliers.slice(0, 5)) {
      insights.push({
        kind: 'outlier', severity: 'warning', title: `${o.m.method} #${o.r.seq} took ${fmtDuration(o.r.lat)} (median ${fmtDuration(o.m.p50!)})`,
        detail: `One ${o.m.method} request took ${Math.round(o.ratio)}× as long as the median of the ${o.m.answered} answered.`, seqs: [o.r.seq, o.r.endSeq],
      });
    }
    let busiest: { sec: number; n: number; bytes: number; first: number; last: number } | null = null;
    for (const [sec, p] of perSecond) if (!busiest || p.n > busiest.n) busiest = { sec, ...p };
    if (busiest && durationMs >= 2000) {
      insights.push({
        kind: 'busiest-second', severity: 'info', title: `The busiest second: ${busiest.n} frames (${Math.round(busiest.bytes / 1024)} KiB) at ${busiest.sec} s`,
        detail: `Frames #${busiest.first}–#${busiest.last}; the recording averages ${(frames / Math.max(1, durationMs / 1000)).toFixed(1)} frames/s.`,
        seqs: [busiest.first, busiest.last],
      });
    }
    // Bursts of errors: 3 or more error responses within 5 s.
    for (let i = 0; i < errorTimes.length;) {
      let j = i;
      while (j + 1 < errorTimes.length && errorTimes[j + 1]!.t - errorTimes[i]!.t <= 5000) j++;
      if (j - i + 1 >= 3) {
        const burst = errorTimes.slice(i, j + 1);
        insights.push({
          kind: 'error-burst', severity: 'warning', title: `${burst.length} error responses within ${fmtDuration(burst[burst.length - 1]!.t - burst[0]!.t)}`,
          detail: `From #${burst[0]!.seq} to #${burst[burst.length - 1]!.seq}.`, seqs: burst.slice(0, 50).map((e) => e.seq),
        });
        i = j + 1;
      } else i++;
    }
    // Turns that mostly waited: one insight per kind of wait, the turns by the share they waited.
    const share = (t: TurnTiming, who: 'user' | 'client') => (who === 'user' ? t.userMs : t.clientMs) / t.durationMs;
    for (const who of ['user', 'client'] as const) {
      const list = turns
        .filter((t) => t.durationMs >= 1000 && share(t, who) >= 0.5 && (who === 'user' || share(t, 'user') < 0.5))
        .map((t) => ({ t, share: share(t, who) }))
        .sort((x, y) => y.share - x.share || x.t.seq - y.t.seq);
      if (!list.length) continue;
      const top = list[0]!;
      const whom = who === 'user' ? 'the user' : 'the editor';
      const what = who === 'user' ? 'in permission requests' : 'in fs/*, terminal/* and other requests to the client';
      insights.push({
        kind: who === 'user' ? 'waiting-user' : 'waiting-client', severity: 'info',
        title: list.length === 1
          ? `Turn #${top.t.seq} spent ${Math.round(100 * top.share)}% of its ${fmtDuration(top.t.durationMs)} waiting on ${whom}`
          : `${list.length} of ${turns.length} turns spent most of their time waiting on ${whom} (up to ${Math.round(100 * top.share)}%)`,
        detail: `${list.length === 1 ? '' : `Turn #${top.t.seq}: `}${fmtDuration(who === 'user' ? top.t.userMs : top.t.clientMs)} ${what}; the agent worked ${fmtDuration(top.t.agentMs)}.`,
        seqs: list.slice(0, 50).map((x) => x.t.seq),
      });
    }
    if (unfinishedTools.length) {
      insights.push({
        kind: 'unfinished-tool', severity: 'warning',
        title: `${unfinishedTools.length} tool call${unfinishedTools.length === 1 ? '' : 's'} never reached a final status`,
        detail: unfinishedTools.slice(0, 5).map((s) => `${s.label} (#${s.seq}, ${s.note ?? ''})`).join('; ') + (unfinishedTools.length > 5 ? '; …' : ''),
        seqs: unfinishedTools.slice(0, 50).map((s) => s.seq),
      });
    }
    const rank: Record<InsightKind, number> = { 'error-burst': 0, 'unfinished-tool': 1, 'long-tail': 2, outlier: 3, 'waiting-user': 4, 'waiting-client': 5, 'busiest-second': 6 };
    insights.sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'warning' ? -1 : 1) || rank[a.kind] - rank[b.kind]);

    return {
      frames, bytes, durationMs, insights, methods, turns, tools, permissions,
      throughput: { start: wf.start, bucketMs, frames: tf, bytes: tb }, slowest, errors,
    };
  }
}
