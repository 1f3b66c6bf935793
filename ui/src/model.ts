/**
 * The business model of the page (signals + actions), separate from the views: the recordings list,
 * the open recording, its filtered timeline (a sparse array filled page by page as the list scrolls),
 * the selection, and the live stream. Views read signals and call actions; nothing here renders.
 */
import { signal, computed, batch, effect } from '@preact/signals';
import { source, server, type RecordingSummary, type TimelineRow, type LiveEvent, type FindingView, type TimelineGroups, type NoteView } from './api.js';
import { GroupLayout } from './group-layout.js';
import type { Position } from '../../src/view/source.js';

export type View = 'timeline' | 'waterfall' | 'turns' | 'findings' | 'notes' | 'insights';
export type TimeMode = 'rel' | 'delta' | 'ref';

export const PAGE = 200;

// ---- route (mirrored in the URL) ---------------------------------------------------------------
export const recId = signal<number | null>(null);
/** The probe run whose scorecard is shown (`?probe=ID`), when no recording is open. */
export const probeId = signal<number | null>(null);
/** The probe matrix shown (`?matrix=ID`), when no recording or probe run is open. */
export const matrixId = signal<number | null>(null);
export const view = signal<View>('timeline');
export const filter = signal('');
export const selSeq = signal<number | null>(null);
/** The playhead: the seq of the item it stands on (URL `at`), null until playback is used. */
export const atSeq = signal<number | null>(null);
export const refSeq = signal<number | null>(null);
export const timeMode = signal<TimeMode>('rel');
export const follow = signal(true);
/** The timeline grouped by session and prompt turn (URL `group=turns`). */
export const grouped = signal(false);
/** Height of a collapsed turn's summary card, in rows, until its card has been drawn and measured. */
export const CARD_ROWS = 9;
/** The tallest a card grows to (rows); a longer summary scrolls inside it. */
export const CARD_MAX_ROWS = 40;
/** Measured heights of drawn summary cards (rows), by turn seq, for the recording shown. */
export const cardRows = signal<ReadonlyMap<number, number>>(new Map());

/** Keeps the measured height of turn `seq`'s card, so the rows after it start below its last line. */
export function setCardRows(seq: number, rows: number): void {
  if (cardRows.value.get(seq) === rows) return;
  const next = new Map(cardRows.value);
  next.set(seq, rows);
  cardRows.value = next;
}
/** Open turns: every turn is collapsed by default (expanded when `expandAll`), `toggled` flips some. */
export const expandAll = signal(false);
export const toggledTurns = signal<ReadonlySet<number>>(new Set());
/** Turns over the current timeline (for its recording and filter). */
export const groups = signal<{ recordingId: number; q: string; data: TimelineGroups } | null>(null);
/** The Compare page (two recordings aligned) instead of the list or one recording. */
export const comparing = signal(false);
export const cmpA = signal<number | null>(null);
export const cmpB = signal<number | null>(null);

// ---- data ---------------------------------------------------------------------------------------
export const recordings = signal<RecordingSummary[]>([]);
export const recordingsError = signal<string | null>(null);
export const listSearch = signal('');
export const current = signal<RecordingSummary | null>(null);
export const loadError = signal<string | null>(null);
export const filterError = signal<string | null>(null);
export const liveConnected = signal(false);
export const findings = signal<FindingView[] | null>(null);
/** The open recording's notes in seq order (null while loading). */
export const notes = signal<NoteView[] | null>(null);
/** The notes by the seq of the item they are on. */
export const notesBySeq = computed(() => {
  const m = new Map<number, NoteView[]>();
  for (const n of notes.value ?? []) {
    const l = m.get(n.seq);
    if (l) l.push(n); else m.set(n.seq, [n]);
  }
  return m;
});

/** (Re)reads the open recording's notes from its source. */
export function loadNotes(): void {
  const id = recId.value;
  if (id === null) return;
  void source.notes(id).then((n) => { if (recId.value === id) notes.value = n; }).catch(() => { if (recId.value === id) notes.value = []; });
}

export const isLive = computed(() => source.caps.live && current.value?.status === 'running');

/** The filtered timeline of the open recording. */
export class Timeline {
  readonly total = signal(0);
  /** Bumped whenever rows arrive, so views re-render. */
  readonly version = signal(0);
  readonly loading = signal(false);
  /** The source is still running the filter over a large recording: `total` is what it found so far. */
  readonly counting = signal(false);
  /** A remote agent's recording: its transport (the list then shows a transport column). */
  readonly transport = signal<'http' | 'ws' | null>(null);
  private countTimer: ReturnType<typeof setTimeout> | null = null;
  rows: (TimelineRow | undefined)[] = [];
  /** t of the row before index i, for rows at page starts (the page brought it along). */
  prevT = new Map<number, number | null>();
  private pages = new Set<number>();
  private inflight = new Map<number, Promise<void>>();
  private gen = 0;

  constructor(readonly recordingId: number, readonly q: string) {}

  rowAt(i: number): TimelineRow | undefined {
    return this.rows[i];
  }

  /** The t of the row before index i in the filtered list, when known. */
  tBefore(i: number): number | null {
    if (i === 0) return null;
    const r = this.rows[i - 1];
    if (r) return r.t;
    return this.prevT.get(i) ?? null;
  }

  private fetchPage(p: number): Promise<void> {
    if (this.pages.has(p)) return Promise.resolve();
    const existing = this.inflight.get(p);
    if (existing) return existing;
    const gen = this.gen;
    this.loading.value = true;
    const pr = source.page(this.recordingId, this.q, p * PAGE, PAGE).then((page) => {
      if (gen !== this.gen) return;
      batch(() => {
        page.rows.forEach((r, k) => { this.rows[page.offset + k] = r; });
        this.prevT.set(page.offset, page.prevT);
        if (page.rows.length === PAGE || (!page.partial && page.offset + page.rows.length >= page.total)) this.pages.add(p);
        this.total.value = page.total;
        this.counting.value = page.partial === true;
        this.transport.value = page.transport ?? null;
        filterError.value = null;
        this.version.value++;
      });
      // Still counting: ask again shortly for the pages in view (more rows, a larger total).
      if (page.partial && this.countTimer === null) {
        this.countTimer = setTimeout(() => {
          this.countTimer = null;
          if (gen === this.gen) this.reloadLoaded();
        }, 250);
      }
    }).catch((e: Error) => {
      if (gen === this.gen) filterError.value = e.message;
    }).finally(() => {
      this.inflight.delete(p);
      if (this.inflight.size === 0) this.loading.value = false;
    });
    this.inflight.set(p, pr);
    return pr;
  }

  /** Makes sure rows [from, to) are loaded (or being loaded). */
  ensure(from: number, to: number): Promise<void> {
    const ps: Promise<void>[] = [];
    const last = Math.max(from, Math.min(to, this.total.value || to) - 1);
    for (let p = Math.floor(Math.max(0, from) / PAGE); p <= Math.floor(last / PAGE); p++) ps.push(this.fetchPage(p));
    return Promise.all(ps).then(() => undefined);
  }

  /** New items arrived live. Unfiltered: append them; filtered: ask the server what now matches. */
  onLiveRows(rows: TimelineRow[]): void {
    if (this.q.trim() === '') {
      batch(() => {
        for (const r of rows) {
          const idx = r.seq - 1;
          // seq is dense from 1 in the store; fall back to appending when it is not.
          const i = this.rows[idx] === undefined || this.rows[idx]?.seq === r.seq ? idx : this.total.value;
          this.rows[i] = r;
          if (i >= this.total.value) this.total.value = i + 1;
        }
        this.version.value++;
      });
    } else {
      this.refreshTail();
    }
  }

  /** Re-reads the count and the last page (a filtered list grew). */
  refreshTail(): void {
    const lastPage = Math.floor(Math.max(0, this.total.value - 1) / PAGE);
    this.pages.delete(lastPage);
    void this.fetchPage(lastPage).then(() => {
      const newLast = Math.floor(Math.max(0, this.total.value - 1) / PAGE);
      if (newLast !== lastPage) return this.ensure(newLast * PAGE, this.total.value);
      return undefined;
    });
  }

  /** Bumped when loaded rows went stale; the list re-fetches the pages in view. */
  readonly reloadTick = signal(0);

  /** Findings or states changed: forget the loaded pages (rows stay shown until replaced). */
  reloadLoaded(): void {
    this.pages.clear();
    this.reloadTick.value++;
  }

  dispose(): void {
    this.gen++;
    if (this.countTimer !== null) clearTimeout(this.countTimer);
    this.countTimer = null;
  }
}

export const timeline = signal<Timeline | null>(null);
/** Index of the selected row in the filtered list (null when it is not in the list). */
export const selIndex = signal<number | null>(null);
/** Ask the list view to scroll an index into view. */
export const scrollRequest = signal<{ index: number; align: 'center' | 'end' | 'auto' } | null>(null);

// ---- URL ------------------------------------------------------------------------------------------
/**
 * A page over one recording in memory (the HTML report, the viewer): its id, and a line the header
 * shows (what the page is, whether credentials are redacted), and how to save the recording as a
 * transcript when the page can. Its route lives in the URL fragment,
 * which works from file:// and never reaches a server.
 */
export const single = signal<{ id: number; note: string; transcript?: () => { name: string; text: string } } | null>(null);

function routeParams(): URLSearchParams {
  return new URLSearchParams(single.value ? location.hash.slice(1) : location.search);
}

export function readUrl(): void {
  const p = routeParams();
  const one = single.value;
  const rec = one ? String(one.id) : p.get('rec');
  const num = (k: string) => { const v = p.get(k); return v && /^\d+$/.test(v) ? Number(v) : null; };
  batch(() => {
    comparing.value = !one && p.get('view') === 'compare';
    cmpA.value = num('a');
    cmpB.value = num('b');
    recId.value = rec && /^\d+$/.test(rec) ? Number(rec) : null;
    probeId.value = one || recId.value !== null ? null : num('probe');
    matrixId.value = one || recId.value !== null || probeId.value !== null ? null : num('matrix');
    const v = p.get('view');
    view.value = v === 'turns' || v === 'findings' || v === 'notes' || v === 'waterfall' || v === 'insights' ? v : v === 'stats' ? 'insights' : 'timeline';
    filter.value = p.get('q') ?? '';
    const sel = p.get('sel');
    selSeq.value = sel && /^\d+$/.test(sel) ? Number(sel) : null;
    atSeq.value = num('at');
    const ref = p.get('ref');
    refSeq.value = ref && /^\d+$/.test(ref) ? Number(ref) : null;
    grouped.value = p.get('group') === 'turns';
    const t = p.get('time');
    timeMode.value = t === 'delta' || t === 'ref' ? t : 'rel';
  });
}

export function writeUrl(push = false): void {
  const p = new URLSearchParams();
  const one = single.value;
  if (comparing.value && !one) {
    p.set('view', 'compare');
    if (cmpA.value !== null) p.set('a', String(cmpA.value));
    if (cmpB.value !== null) p.set('b', String(cmpB.value));
  } else if (recId.value !== null) {
    if (!one) p.set('rec', String(recId.value));
    if (view.value !== 'timeline') p.set('view', view.value);
    if (filter.value) p.set('q', filter.value);
    if (selSeq.value !== null) p.set('sel', String(selSeq.value));
    if (refSeq.value !== null) p.set('ref', String(refSeq.value));
    if (atSeq.value !== null) p.set('at', String(atSeq.value));
    if (timeMode.value !== 'rel') p.set('time', timeMode.value);
    if (grouped.value) p.set('group', 'turns');
  } else if (probeId.value !== null && !one) {
    p.set('probe', String(probeId.value));
  } else if (matrixId.value !== null && !one) {
    p.set('matrix', String(matrixId.value));
  }
  const s = p.toString();
  const url = one ? `${location.pathname}${location.search}${s ? `#${s}` : ''}` : `${location.pathname}${s ? `?${s}` : ''}`;
  if (url === `${location.pathname}${location.search}${one ? location.hash : ''}`) return;
  try {
    if (push) history.pushState(null, '', url);
    else history.replaceState(null, '', url);
  } catch { /* a browser that refuses history entries for this page (file://): the route stays in memory */ }
}

// ---- actions ----------------------------------------------------------------------------------------
export async function loadRecordings(): Promise<void> {
  try {
    recordings.value = await server.recordings(listSearch.value);
    recordingsError.value = null;
  } catch (e) {
    recordingsError.value = (e as Error).message;
  }
}

let closeLive: (() => void) | null = null;

function onLive(ev: LiveEvent): void {
  const tl = timeline.value;
  switch (ev.type) {
    case 'recordings':
      if (recId.value === null) void loadRecordings();
      break;
    case 'recording':
      if (ev.recording.id === recId.value) current.value = ev.recording;
      break;
    case 'items':
      if (tl && ev.recordingId === tl.recordingId) {
        tl.onLiveRows(ev.rows);
        if (grouped.value) scheduleGroups();
        if (follow.value && isLive.value && view.value === 'timeline') scrollRequest.value = { index: tl.total.value - 1, align: 'end' };
      }
      break;
    case 'findings':
      if (ev.recordingId === recId.value) {
        void source.findings(ev.recordingId).then((f) => { findings.value = f; });
        tl?.reloadLoaded();
      }
      break;
    case 'notes':
      if (ev.recordingId === recId.value) loadNotes();
      break;
    case 'states':
      if (tl && ev.recordingId === tl.recordingId) tl.reloadLoaded();
      break;
    case 'deleted':
      if (ev.recordingId === recId.value) loadError.value = 'This recording was deleted.';
      break;
    default:
      break;
  }
}

/**
 * The open recording's findings changed in its source (the viewer's checker finished): reload its
 * summary, findings, the rows in view (their badges) and, when grouped, its turns.
 */
export function reloadFindings(): void {
  const id = recId.value;
  if (id === null) return;
  void source.recording(id).then((r) => { current.value = r; }).catch(() => undefined);
  void source.findings(id).then((f) => { findings.value = f; }).catch(() => undefined);
  const tl = timeline.value;
  if (!tl) return;
  if (tl.q.trim() !== '') void applyFilter(tl.q);
  else tl.reloadLoaded();
  if (grouped.value) void loadGroups();
}

/** (Re)connects the live stream for the current page. */
export function connectLive(): void {
  closeLive?.();
  closeLive = null;
  if (!source.caps.live) return;
  let dropped = false;
  closeLive = server.subscribe(recId.value, onLive, (open) => {
    liveConnected.value = open;
    if (!open) { dropped = true; return; }
    if (!dropped) return;
    // Back after a drop (server restarted, laptop slept): catch up on what the stream missed.
    dropped = false;
    const id = recId.value;
    if (id === null) { void loadRecordings(); return; }
    void source.recording(id).then((r) => { current.value = r; }).catch(() => undefined);
    void source.findings(id).then((f) => { findings.value = f; }).catch(() => undefined);
    loadNotes();
    timeline.value?.refreshTail();
  });
}

/** Opens a recording (or the list when id is null). */
export async function openRecording(id: number | null): Promise<void> {
  timeline.value?.dispose();
  batch(() => {
    timeline.value = null;
    current.value = null;
    findings.value = null;
    notes.value = null;
    loadError.value = null;
    filterError.value = null;
    selIndex.value = null;
    cardRows.value = new Map();
  });
  connectLive();
  if (id === null) {
    await loadRecordings();
    return;
  }
  try {
    current.value = await source.recording(id);
  } catch (e) {
    loadError.value = (e as Error).message;
    return;
  }
  // The rows first: a server answers one request at a time, and the findings of a long recording
  // weigh more than a page.
  const rows = applyFilter(filter.value, selSeq.value);
  void source.findings(id).then((f) => { findings.value = f; }).catch(() => { findings.value = []; });
  loadNotes();
  await rows;
}

/** Builds the timeline for a filter; keeps the selection in view when it still matches. */
export async function applyFilter(q: string, keepSeq: number | null = selSeq.value): Promise<void> {
  const id = recId.value;
  if (id === null) return;
  timeline.value?.dispose();
  const tl = new Timeline(id, q);
  batch(() => {
    filter.value = q;
    timeline.value = tl;
    selIndex.value = null;
  });
  writeUrl();
  if (grouped.value) void loadGroups();
  if (keepSeq !== null) {
    try {
      const pos = await locate(tl, keepSeq);
      if (timeline.value !== tl) return;
      tl.total.value = pos.total;
      await tl.ensure(Math.max(0, pos.index - PAGE / 2), pos.index + PAGE / 2);
      if (pos.matches) selIndex.value = pos.index;
      scrollRequest.value = { index: pos.index, align: 'center' };
      return;
    } catch (e) {
      filterError.value = (e as Error).message;
      return;
    }
  }
  await tl.ensure(0, PAGE);
  if (isLive.value && follow.value) {
    await tl.ensure(Math.max(0, tl.total.value - PAGE), tl.total.value);
    scrollRequest.value = { index: tl.total.value - 1, align: 'end' };
  }
}

/** Rows fetched on each side of an item a jump goes to: the rows in view and the list's overscan. */
const JUMP_MARGIN = 50;

/**
 * Where item `seq` is in `tl`. Unfiltered, items are numbered 1, 2, 3 ... in a recording, so item
 * `seq` is at index seq - 1: the rows around it are fetched and, when the row there is that item,
 * that is its position, in one round trip. Otherwise (a filter, or seqs with holes) the source is
 * asked where it is.
 */
async function locate(tl: Timeline, seq: number): Promise<Position> {
  if (tl.q.trim() === '' && seq >= 1) {
    await tl.ensure(Math.max(0, seq - 1 - JUMP_MARGIN), seq + JUMP_MARGIN);
    if (tl.rowAt(seq - 1)?.seq === seq) return { index: seq - 1, matches: true, total: tl.total.value };
  }
  return source.position(tl.recordingId, tl.q, seq);
}

export function select(index: number | null): void {
  const tl = timeline.value;
  if (!tl || index === null) {
    selIndex.value = null;
    selSeq.value = null;
    writeUrl();
    return;
  }
  const i = Math.max(0, Math.min(tl.total.value - 1, index));
  selIndex.value = i;
  const row = tl.rowAt(i);
  if (row) {
    selSeq.value = row.seq;
    writeUrl();
  } else {
    void tl.ensure(i, i + 1).then(() => {
      const r = tl.rowAt(i);
      if (r && selIndex.value === i) { selSeq.value = r.seq; writeUrl(); }
    });
  }
  scrollRequest.value = { index: i, align: 'auto' };
}

/**
 * Selects item `seq`, clearing the filter when it hides that item; shows the timeline unless `stay`
 * (the waterfall and playback select without leaving their view).
 */
export async function jumpTo(seq: number, stay = false): Promise<void> {
  const id = recId.value;
  if (id === null) return;
  if (!stay && view.value !== 'timeline') { view.value = 'timeline'; writeUrl(true); }
  if (!timeline.value && stay) { selSeq.value = seq; writeUrl(); return; }
  const tl = timeline.value;
  let q = tl?.q ?? filter.value;
  const pos = tl ? await locate(tl, seq) : await source.position(id, q, seq);
  // Hidden by the filter: the whole timeline there (applyFilter finds it).
  if (!pos.matches && q !== '') q = '';
  if (!timeline.value || timeline.value.q !== q) {
    selSeq.value = seq;
    await applyFilter(q, seq);
    return;
  }
  await timeline.value.ensure(Math.max(0, pos.index - 20), pos.index + 20);
  selSeq.value = seq;
  selIndex.value = pos.index;
  scrollRequest.value = { index: pos.index, align: 'center' };
  writeUrl();
}

/** Opens the Compare page for recordings a and b (either may still be unset). */
export function openCompare(a: number | null, b: number | null): void {
  batch(() => {
    comparing.value = true;
    cmpA.value = a;
    cmpB.value = b;
  });
  writeUrl(true);
  if (recId.value !== null) {
    recId.value = null;
    void openRecording(null);
  } else if (recordings.value.length === 0) {
    void loadRecordings();
  }
}

export function setView(v: View): void {
  view.value = v;
  writeUrl(true);
}

/** t of the reference item (for the "Δ ref" time column). */
export const refT = signal<number | null>(null);
/** Whether the detail pane is shown for the selection. */
export const detailOpen = signal(true);
/**
 * The note box is wanted focused (the `n` key): the box takes the focus when it is there, at once or
 * once the detail pane has rendered it (a pane that loads its item first may take any time).
 */
export const noteFocusWanted = signal(false);

export function setReference(seq: number | null, t: number | null): void {
  refSeq.value = seq;
  refT.value = t;
  if (seq !== null) timeMode.value = 'ref';
  writeUrl();
}

// ---- grouping by session and turn --------------------------------------------------------------------
export function isExpanded(seq: number): boolean {
  return expandAll.value !== toggledTurns.value.has(seq);
}

/** The layout of the grouped timeline, or null when the timeline is flat (or its turns are not loaded). */
export const groupLayout = computed<GroupLayout | null>(() => {
  const tl = timeline.value;
  const g = groups.value;
  if (!grouped.value || !tl || !g || g.recordingId !== tl.recordingId || g.q !== tl.q) return null;
  const all = expandAll.value;
  const toggled = toggledTurns.value;
  const measured = cardRows.value;
  return new GroupLayout(Math.max(tl.total.value, g.data.total), g.data.turns, (seq) => all !== toggled.has(seq), (seq) => measured.get(seq) ?? CARD_ROWS, g.data.sessions);
});

/** Fetches the turns of the current timeline (its filter). */
export async function loadGroups(): Promise<void> {
  const tl = timeline.value;
  if (!tl) return;
  try {
    const data = await source.groups(tl.recordingId, tl.q);
    if (timeline.value === tl) groups.value = { recordingId: tl.recordingId, q: tl.q, data };
  } catch (e) {
    if (timeline.value === tl) filterError.value = (e as Error).message;
  }
}

let groupsTimer: ReturnType<typeof setTimeout> | null = null;
function scheduleGroups(): void {
  groupsTimer ??= setTimeout(() => { groupsTimer = null; void loadGroups(); }, 400);
}

export function setGrouped(on: boolean): void {
  grouped.value = on;
  writeUrl();
  if (on) void loadGroups();
  const i = selIndex.value;
  if (i !== null) scrollRequest.value = { index: i, align: 'center' };
}

export function setTurnExpanded(seq: number, open: boolean): void {
  if (isExpanded(seq) === open) return;
  const next = new Set(toggledTurns.value);
  if (next.has(seq)) next.delete(seq); else next.add(seq);
  toggledTurns.value = next;
}

export function setAllExpanded(open: boolean, seqs?: readonly number[]): void {
  // Closing turns: a selection inside one moves to its prompt (else it would reopen that turn).
  const L = groupLayout.value;
  const i = selIndex.value;
  const t = L && i !== null ? L.turnOf(i) : undefined;
  if (!open && t && i !== t.from && (!seqs || seqs.includes(t.seq))) select(t.from);
  if (!seqs) {
    batch(() => { expandAll.value = open; toggledTurns.value = new Set(); });
    return;
  }
  for (const s of seqs) setTurnExpanded(s, open);
}

/** Flips one turn (its header was clicked); collapsing it moves a selection inside it to its prompt. */
export function toggleTurn(seq: number, from: number, to: number): void {
  const open = !isExpanded(seq);
  const i = selIndex.value;
  if (!open && i !== null && i > from && i < to) select(from);
  setTurnExpanded(seq, open);
}

/** Collapses or expands the turn holding the selection; a collapsed turn keeps its prompt selected. */
export function toggleSelectedTurn(open?: boolean): void {
  const L = groupLayout.value;
  const i = selIndex.value;
  if (!L || i === null) return;
  const t = L.turnOf(i);
  if (!t) return;
  const want = open ?? !isExpanded(t.seq);
  if (!want) select(t.from);
  setTurnExpanded(t.seq, want);
  scrollRequest.value = { index: want ? i : t.from, align: 'auto' };
}

/** An item selected inside a collapsed turn (a jump from a finding, a link) opens that turn. */
effect(() => {
  const i = selIndex.value;
  const L = groupLayout.value;
  if (i === null || !L || !L.hidden(i)) return;
  const t = L.turnOf(i)!;
  setTurnExpanded(t.seq, true);
});
