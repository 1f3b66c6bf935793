/**
 * The data source over one recording held in memory (the HTML report, the static viewer): the same
 * answers the server's API gives for it, computed from the items instead of SQL. Pure.
 */
import type { Frame, Item } from '../wire/frame.js';
import type {
  FindingView, ItemDetail, MethodStats, RecordingSummary, StoredFinding, TimelineGroups, TimelinePage, TimelineRow, TurnDetail, TurnInfo,
} from './contract.js';
import { compileMatcher, FilterError, lowerAscii, parseFilter, type FilterContext, type FilterRow } from './filter.js';
import { previewOf } from './preview.js';
import { entityPatch, patchTarget } from './patch.js';
import { summarizeTurnAt } from './turn-summary.js';
import { buildWaterfall, type Waterfall } from './waterfall.js';
import { computeInsights, quantile, type Insights } from './insights.js';
import { layTurns, lowerBound, turnInfoOf } from './turns.js';
import { StateIndex, type StatesData } from './states.js';
import { SourceError, type DataSource, type FixtureFile, type NoteView, type Position } from './source.js';
import { sliceRecording, SliceError } from '../transcript/slice.js';
import { columnsOf, itemOf, storedItem, type ItemColumns } from './columns.js';
import { transportCellOf, TRANSPORT_EVENT, TRANSPORT_NEAR, type TransportData } from '../wire/transport-event.js';
import { itemToLine, noteToLine, parseTranscript, serializeTranscript, sortNotes, TRANSCRIPT_VERSION, type TranscriptHeader, type TranscriptNote } from '../transcript/format.js';

/** What a memory source is built from: the items (parsed) or their columns (the report ships those). */
export interface MemoryRecording {
  summary: RecordingSummary;
  /** Items in seq order, responses correlated (parseTranscript gives them so). */
  items?: Item[];
  /** Or the items as stored columns, in seq order; each item is parsed when first read. */
  columns?: ItemColumns[];
  /** Findings in seq order, with the rule's title and spec sentence. */
  findings: FindingView[];
  states: StatesData;
  /** The transcript's notes, in seq order. */
  notes?: TranscriptNote[];
}

interface Row extends ItemColumns, FilterRow {
  item?: Item;
}

const SEV_ORDER: Record<string, number> = { error: 0, warning: 1, info: 2 };

/** The item of a row, as the store gives it back (parsed on first read). */
function itemAt(r: Row): Item {
  r.item ??= itemOf(r);
  return r.item;
}

export class MemorySource implements DataSource {
  readonly caps = { list: false, live: false, manage: false, compare: false };
  readonly rows: Row[];
  private readonly bySeq = new Map<number, Row>();
  private readonly responseOf = new Map<number, number>();
  private readonly findingsBySeq = new Map<number, FindingView[]>();
  private readonly states: StateIndex;
  private readonly filters = new Map<string, Int32Array>();
  private turnList: TurnInfo[] | null = null;
  private readonly ctx: FilterContext;

  constructor(private rec: MemoryRecording) {
    this.rows = rec.items ? rec.items.map((it) => {
      const r: Row = columnsOf(it);
      r.item = storedItem(it);
      return r;
    }) : (rec.columns ?? []) as Row[];
    for (const r of this.rows) {
      this.bySeq.set(r.seq, r);
      if (r.replyTo !== null && !this.responseOf.has(r.replyTo)) this.responseOf.set(r.replyTo, r.seq);
    }
    this.indexFindings();
    this.states = new StateIndex(rec.states, (after, to) => this.itemsBetween(after, to));
    const none: FindingView[] = [];
    this.ctx = {
      findingsAt: (seq) => this.findingsBySeq.get(seq) ?? none,
      responseOf: (seq) => this.responseOf.get(seq) ?? null,
      sessionOf: (seq) => this.bySeq.get(seq)?.sessionId ?? null,
    };
  }

  private indexFindings(): void {
    this.findingsBySeq.clear();
    for (const f of this.rec.findings) {
      const list = this.findingsBySeq.get(f.seq);
      if (list) list.push(f); else this.findingsBySeq.set(f.seq, [f]);
    }
  }

  /** Replaces the findings (a checker that finished after the recording was opened) and the summary's counts. */
  setFindings(findings: FindingView[], summary: RecordingSummary): void {
    this.rec = { ...this.rec, findings, summary };
    this.indexFindings();
    this.filters.clear();
  }

  get id(): number {
    return this.rec.summary.id;
  }

  private check(id: number): void {
    if (id !== this.rec.summary.id) throw new SourceError(404, `no recording with id ${id}`);
  }

  private *itemsBetween(afterSeq: number, toSeq: number): Generator<Item> {
    for (let i = lowerBound(this.seqs(), afterSeq + 1); i < this.rows.length && this.rows[i]!.seq <= toSeq; i++) yield itemAt(this.rows[i]!);
  }

  private allSeqs: Int32Array | null = null;
  private seqs(): Int32Array {
    this.allSeqs ??= Int32Array.from(this.rows, (r) => r.seq);
    return this.allSeqs;
  }

  /** Indices into `rows` of the items matching `q` (cached for the last few filters). */
  matching(q: string): Int32Array {
    const key = q.trim();
    const hit = this.filters.get(key);
    if (hit) return hit;
    let terms;
    try { terms = parseFilter(key); } catch (e) { throw e instanceof FilterError ? new SourceError(400, e.message) : e; }
    let out: Int32Array;
    if (terms.length === 0) {
      out = Int32Array.from(this.rows, (_r, i) => i);
    } else {
      const m = compileMatcher(terms, this.ctx);
      const idx: number[] = [];
      for (let i = 0; i < this.rows.length; i++) if (m(this.rows[i]!)) idx.push(i);
      out = Int32Array.from(idx);
    }
    if (this.filters.size >= 8) this.filters.delete(this.filters.keys().next().value!);
    this.filters.set(key, out);
    return out;
  }

  private timelineRow(r: Row): TimelineRow {
    const sev = [...new Set((this.findingsBySeq.get(r.seq) ?? []).map((f) => f.severity))].sort((a, b) => (SEV_ORDER[a] ?? 3) - (SEV_ORDER[b] ?? 3));
    const row: TimelineRow = {
      seq: r.seq, t: r.t, dir: r.dir as TimelineRow['dir'], kind: r.kind, method: r.method, replyTo: r.replyTo,
      responseSeq: r.kind === 'request' ? this.responseOf.get(r.seq) ?? null : null, latency: r.latency, sessionId: r.sessionId, size: r.size,
      preview: previewOf(r.dir, r.kind, r.method, r.raw, r.parseError), parseError: r.parseError, findings: sev,
    };
    if (r.rpcId !== null) row.id = JSON.parse(r.rpcId) as TimelineRow['id'];
    const s = this.states.summaryAt(r.seq);
    if (s !== undefined) row.state = s;
    const transport = this.transport();
    if (transport !== null && (r.dir === 'c2a' || r.dir === 'a2c')) {
      const near: { seq: number; data: TransportData }[] = [];
      for (let seq = r.seq - TRANSPORT_NEAR; seq <= r.seq + TRANSPORT_NEAR; seq++) {
        const n = this.bySeq.get(seq);
        if (n && n.dir === 'event' && n.kind === TRANSPORT_EVENT) {
          try { near.push({ seq, data: JSON.parse(n.raw) as TransportData }); } catch { /* not ours */ }
        }
      }
      const cell = transportCellOf({ seq: r.seq, dir: r.dir as Frame['dir'], kind: r.kind as Frame['kind'], id: row.id, method: r.method ?? undefined, sessionId: r.sessionId ?? undefined }, near, transport);
      if (cell) row.transport = cell;
    }
    return row;
  }

  private recTransport: 'http' | 'ws' | null | undefined;
  /** A remote agent's recording: the transport its first transport event names (null: a stdio recording). */
  private transport(): 'http' | 'ws' | null {
    if (this.recTransport === undefined) {
      const first = this.rows.find((r) => r.dir === 'event' && r.kind === TRANSPORT_EVENT);
      let t: unknown = null;
      try { t = first ? (JSON.parse(first.raw) as TransportData).transport : null; } catch { /* none */ }
      this.recTransport = t === 'http' || t === 'ws' ? t : null;
    }
    return this.recTransport;
  }

  /**
   * Folds the model a slice further, leaving checkpoints, so that a later item detail is quick (for a
   * page with time to spare). False once the whole recording is folded.
   */
  warmStates(slice = 2000): boolean {
    const last = this.rows.length ? this.rows[this.rows.length - 1]!.seq : 0;
    if (this.states.reached >= last) return false;
    this.states.stateAt(Math.min(last, this.states.reached + slice));
    return true;
  }

  /** The recording as a transcript (what `acp-inspect export` writes for it). */
  transcript(): string {
    const s = this.rec.summary;
    const header: TranscriptHeader = { acpInspect: 'recording', version: TRANSCRIPT_VERSION };
    if (s.name !== null) header.name = s.name;
    if (s.startedAt) header.startedAt = s.startedAt;
    if (s.endedAt) header.endedAt = s.endedAt;
    if (s.command) header.command = s.command;
    if (s.cwd) header.cwd = s.cwd;
    if (s.exitCode !== null) header.exitCode = s.exitCode;
    if (s.exitSignal !== null) header.exitSignal = s.exitSignal;
    header.status = s.status;
    const notes = sortNotes(this.rec.notes ?? []).map((n) => noteToLine(n, this.bySeq.get(n.seq)?.t ?? 0));
    return [JSON.stringify(header), ...this.rows.map((r) => itemToLine(itemAt(r))), ...notes].join('\n') + '\n';
  }

  async recording(id: number): Promise<RecordingSummary> {
    this.check(id);
    return this.rec.summary;
  }

  async page(id: number, q: string, offset: number, limit: number): Promise<TimelinePage> {
    this.check(id);
    const m = this.matching(q);
    const rows: TimelineRow[] = [];
    for (let i = offset; i < Math.min(m.length, offset + limit); i++) rows.push(this.timelineRow(this.rows[m[i]!]!));
    const prevT = offset > 0 && offset <= m.length ? this.rows[m[offset - 1]!]!.t : null;
    const transport = this.transport();
    return { total: m.length, offset, rows, prevT, ...(transport ? { transport } : {}) };
  }

  async position(id: number, q: string, seq: number): Promise<Position> {
    this.check(id);
    const m = this.matching(q);
    let lo = 0;
    let hi = m.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.rows[m[mid]!]!.seq < seq) lo = mid + 1; else hi = mid;
    }
    return { index: lo, matches: lo < m.length && this.rows[m[lo]!]!.seq === seq, total: m.length };
  }

  async item(id: number, seq: number): Promise<ItemDetail> {
    this.check(id);
    const r = this.bySeq.get(seq);
    if (!r) throw new SourceError(404, `recording ${id} has no item ${seq}`);
    const item = itemAt(r);
    let pair: Item | null = null;
    if (r.dir === 'c2a' || r.dir === 'a2c') {
      const other = r.replyTo !== null ? r.replyTo : r.kind === 'request' ? this.responseOf.get(seq) : undefined;
      const p = other !== undefined ? this.bySeq.get(other) : undefined;
      pair = p ? itemAt(p) : null;
    }
    let state: unknown;
    let stateSummary: string | undefined;
    try {
      state = this.states.stateAt(seq);
      stateSummary = this.states.summaryAt(seq);
    } catch (e) {
      state = { error: `the checker could not fold this recording: ${(e as Error).message}` };
    }
    const detail: ItemDetail = { item, pair, findings: this.findingsBySeq.get(seq) ?? [], state, ...(stateSummary !== undefined ? { stateSummary } : {}) };
    if (r.dir === 'c2a' || r.dir === 'a2c') {
      const target = patchTarget(item as Frame);
      if (target) {
        const needle = lowerAscii(target.like.slice(1, -1));
        const earlier: Frame[] = [];
        for (const e of this.rows) {
          if (e.seq >= seq) break;
          if (e.method === 'session/update' && e.sessionId === r.sessionId && lowerAscii(e.raw).includes(needle)) earlier.push(itemAt(e) as Frame);
        }
        detail.patch = entityPatch(target, earlier, item as Frame);
      }
    }
    return detail;
  }

  async findings(id: number): Promise<FindingView[]> {
    this.check(id);
    return this.rec.findings;
  }

  async stats(id: number): Promise<MethodStats[]> {
    this.check(id);
    const byMethod = new Map<string, MethodStats & { lat: number[] }>();
    for (const r of this.rows) {
      if (r.method === null) continue;
      let s = byMethod.get(r.method);
      if (!s) { s = { method: r.method, count: 0, requests: 0, notifications: 0, errors: 0, p50: null, p99: null, max: null, lat: [] }; byMethod.set(r.method, s); }
      s.count++;
      if (r.kind === 'request') s.requests++;
      else if (r.kind === 'notification') s.notifications++;
      else if (r.kind === 'error') s.errors++;
      if (r.latency !== null) s.lat.push(r.latency);
    }
    const out: MethodStats[] = [];
    for (const { lat, ...s } of byMethod.values()) {
      lat.sort((a, b) => a - b);
      out.push({ ...s, p50: quantile(lat, 0.5), p99: quantile(lat, 0.99), max: lat.length ? lat[lat.length - 1]! : null });
    }
    return out.sort((a, b) => b.count - a.count || a.method.localeCompare(b.method));
  }

  private listTurns(): TurnInfo[] {
    if (this.turnList) return this.turnList;
    this.turnList = [];
    for (const r of this.rows) {
      if (r.method !== 'session/prompt' || r.kind !== 'request') continue;
      const end = this.responseOf.get(r.seq);
      const e = end !== undefined ? this.bySeq.get(end) : undefined;
      this.turnList.push(turnInfoOf(r, e ? { seq: e.seq, t: e.t, raw: e.raw, kind: e.kind ?? '' } : null));
    }
    return this.turnList;
  }

  async turns(id: number): Promise<TurnInfo[]> {
    this.check(id);
    return this.listTurns();
  }

  async groups(id: number, q: string): Promise<TimelineGroups> {
    this.check(id);
    const m = this.matching(q);
    const seqs = Int32Array.from(m, (i) => this.rows[i]!.seq);
    const firsts: { sessionId: string; seq: number }[] = [];
    const seen = new Set<string>();
    for (let k = 0; k < m.length; k++) {
      const r = this.rows[m[k]!]!;
      if (r.sessionId !== null && !seen.has(r.sessionId)) { seen.add(r.sessionId); firsts.push({ sessionId: r.sessionId, seq: r.seq }); }
    }
    return layTurns(seqs, this.listTurns(), firsts);
  }

  async turn(id: number, seq: number, upTo?: number): Promise<TurnDetail> {
    this.check(id);
    const turn = this.listTurns().find((t) => t.seq === seq);
    if (!turn) throw new SourceError(404, `item ${seq} of recording ${id} is not a session/prompt request`);
    const end = turn.endSeq ?? Number.MAX_SAFE_INTEGER;
    const items: Item[] = [];
    for (const it of this.itemsBetween(seq - 1, end)) {
      const sid = it.dir === 'c2a' || it.dir === 'a2c' ? (it as Frame).sessionId ?? null : null;
      if (sid === null || sid === turn.sessionId || it.seq === seq) items.push(it);
    }
    const findings: StoredFinding[] = this.rec.findings.filter((f) => f.seq >= seq && f.seq <= end);
    return summarizeTurnAt(turn, items, findings, upTo);
  }

  private wf: Waterfall | null = null;
  private ins: Insights | null = null;

  async waterfall(id: number): Promise<Waterfall> {
    this.check(id);
    this.wf ??= buildWaterfall(this.rows.map(itemAt));
    return this.wf;
  }

  async insights(id: number): Promise<Insights> {
    const wf = await this.waterfall(id);
    this.ins ??= computeInsights(this.rows.map(itemAt), wf);
    return this.ins;
  }

  async notes(id: number): Promise<NoteView[]> {
    this.check(id);
    return (this.rec.notes ?? []).map((n, k) => ({ id: k + 1, seq: n.seq, text: n.text, createdAt: n.at ?? null, updatedAt: n.updatedAt ?? null }));
  }

  /** Cut in memory from the transcript this source saves, read back as a file would be (the same cut `export --turn` makes). */
  async fixture(id: number, turn: number): Promise<FixtureFile> {
    this.check(id);
    let slice;
    try {
      slice = sliceRecording(parseTranscript(this.transcript()), { turn });
    } catch (e) {
      if (e instanceof SliceError) throw new SourceError(400, e.message);
      throw e;
    }
    const base = (this.rec.summary.name ?? `recording-${id}`).replace(/[^\w.-]+/g, '_');
    return { name: `acp-${base}-turn-${'turn' in slice.cut ? slice.cut.turn : turn}.jsonl`, text: serializeTranscript(slice.recording), warnings: slice.warnings };
  }
}
