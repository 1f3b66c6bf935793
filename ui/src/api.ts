/**
 * The data source over the HTTP API of `acp-inspect serve` (one implementation of DataSource; the
 * other, MemorySource, reads a transcript in memory). Types come from the server (`import type`),
 * never copied.
 */
import type {
  RecordingSummary, TimelinePage, ItemDetail, ItemState, FindingView, MethodStats, TurnInfo, TurnDetail, LiveEvent, CompareResult, CompareRow, TimelineGroups, CompareIndex, CompareRowsPage,
} from '../../src/view/contract.js';
import type { DataSource, FixtureFile, NoteView, Position } from '../../src/view/source.js';
import type { Waterfall } from '../../src/view/waterfall.js';
import type { Insights } from '../../src/view/insights.js';
import type { AgentRow, ProbeMatrixSummary, ProbeRunSummary } from '../../src/view/contract.js';
import type { Matrix, ProbeReport } from '../../src/probe/report.js';
import type { RunningConsoleInfo } from '../../src/console/contract.js';

export type { RecordingSummary, TimelinePage, ItemDetail, ItemState, FindingView, MethodStats, TurnInfo, TurnDetail, LiveEvent, CompareResult, CompareRow, TimelineGroups, CompareIndex, CompareRowsPage };
export type { TimelineRow } from '../../src/view/contract.js';
export type { DataSource, NoteView } from '../../src/view/source.js';
export type { Waterfall, WaterfallSpan } from '../../src/view/waterfall.js';
export type { Insights, Insight } from '../../src/view/insights.js';
export type { AgentRow } from '../../src/view/contract.js';
export type { Matrix, MatrixCell, MatrixColumn, ProbeReport, ScenarioResult } from '../../src/probe/report.js';
export type { ProbeMatrixSummary, ProbeRunSummary } from '../../src/view/contract.js';
export type { RunningConsoleInfo } from '../../src/console/contract.js';

export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

const enc = encodeURIComponent;

/** The error of a failed answer: the API's `{error}` message when it sent one. */
export async function errorOf(res: Response): Promise<ApiError> {
  let msg = `${res.status} ${res.statusText}`;
  try {
    const j = (await res.json()) as { error?: string };
    if (j.error) msg = j.error;
  } catch { /* not JSON */ }
  if (res.status === 401) msg = 'Not authorized: open the URL that acp-inspect printed (it carries ?token=…).';
  return new ApiError(res.status, msg);
}

export class HttpSource implements DataSource {
  readonly caps = { list: true, live: true, manage: true, compare: true };

  /** `base`: where the API is (the page's own origin by default); `fetchImpl`: for tests. */
  constructor(private readonly base = '', private readonly fetchImpl: typeof fetch = (...a) => fetch(...a)) {}

  private async call<T>(path: string, init?: RequestInit): Promise<T> {
    const res = await this.fetchImpl(`${this.base}${path}`, { credentials: 'same-origin', ...init });
    if (!res.ok) throw await errorOf(res);
    return (await res.json()) as T;
  }

  recordings(search = '') { return this.call<RecordingSummary[]>(`/api/recordings${search ? `?search=${enc(search)}` : ''}`); }
  recording(id: number) { return this.call<RecordingSummary>(`/api/recordings/${id}`); }
  remove(id: number) { return this.call<{ deleted: number }>(`/api/recordings/${id}`, { method: 'DELETE' }); }
  importFile(file: File) {
    return this.call<{ id: number; items: number }>(`/api/import?name=${enc(file.name.replace(/\.(jsonl|ndjson|json)$/i, ''))}`, {
      method: 'POST', body: file, headers: { 'Content-Type': 'application/x-ndjson' },
    });
  }
  exportUrl(id: number) { return `${this.base}/api/recordings/${id}/export`; }
  page(id: number, q: string, offset: number, limit: number, signal?: AbortSignal) {
    return this.call<TimelinePage>(`/api/recordings/${id}/items?q=${enc(q)}&offset=${offset}&limit=${limit}`, { signal });
  }
  position(id: number, q: string, seq: number) { return this.call<Position>(`/api/recordings/${id}/position?q=${enc(q)}&seq=${seq}`); }
  item(id: number, seq: number, signal?: AbortSignal, withState = true) { return this.call<ItemDetail>(`/api/recordings/${id}/items/${seq}${withState ? '' : '?state=0'}`, { signal }); }
  itemState(id: number, seq: number, signal?: AbortSignal) { return this.call<ItemState>(`/api/recordings/${id}/items/${seq}/state`, { signal }); }
  findings(id: number) { return this.call<FindingView[]>(`/api/recordings/${id}/findings`); }
  stats(id: number) { return this.call<MethodStats[]>(`/api/recordings/${id}/stats`); }
  groups(id: number, q: string) { return this.call<TimelineGroups>(`/api/recordings/${id}/groups?q=${enc(q)}`); }
  turns(id: number) { return this.call<TurnInfo[]>(`/api/recordings/${id}/turns`); }
  turn(id: number, seq: number, upTo?: number) { return this.call<TurnDetail>(`/api/recordings/${id}/turns/${seq}${upTo !== undefined ? `?upTo=${upTo}` : ''}`); }
  waterfall(id: number) { return this.call<Waterfall>(`/api/recordings/${id}/waterfall`); }
  insights(id: number) { return this.call<Insights>(`/api/recordings/${id}/insights`); }
  async notes(id: number): Promise<NoteView[]> {
    const list = await this.call<{ id: number; seq: number; text: string; createdAt: string; updatedAt: string | null }[]>(`/api/recordings/${id}/notes`);
    return list.map((n) => ({ id: n.id, seq: n.seq, text: n.text, createdAt: n.createdAt, updatedAt: n.updatedAt }));
  }
  /** Writes a note (or a bare mark, with empty text) on item `seq`: only the served API can. */
  addNote(id: number, seq: number, text: string) {
    return this.call<NoteView>(`/api/recordings/${id}/notes`, { method: 'POST', body: JSON.stringify({ seq, text }), headers: { 'Content-Type': 'application/json' } });
  }
  updateNote(id: number, noteId: number, text: string) {
    return this.call<NoteView>(`/api/recordings/${id}/notes/${noteId}`, { method: 'PATCH', body: JSON.stringify({ text }), headers: { 'Content-Type': 'application/json' } });
  }
  deleteNote(id: number, noteId: number) { return this.call<{ deleted: number }>(`/api/recordings/${id}/notes/${noteId}`, { method: 'DELETE' }); }
  /** The served API's cut of a turn (GET .../fixture?turn=SEQ, secrets redacted as there), read for a download. */
  async fixture(id: number, turn: number): Promise<FixtureFile> {
    const res = await this.fetchImpl(`${this.base}/api/recordings/${id}/fixture?turn=${turn}`, { credentials: 'same-origin' });
    if (!res.ok) throw await errorOf(res);
    const name = /filename="([^"]+)"/.exec(res.headers.get('Content-Disposition') ?? '')?.[1] ?? `acp-recording-${id}-turn-${turn}.jsonl`;
    const w = res.headers.get('X-Acp-Inspect-Warnings');
    return { name, text: await res.text(), warnings: w ? decodeURIComponent(w).split('\n') : [] };
  }
  /** Probe runs of the store, newest first. */
  probes() { return this.call<ProbeRunSummary[]>('/api/probes'); }
  /** One probe run with its report (null while it runs). */
  probe(id: number) { return this.call<ProbeRunSummary & { report: ProbeReport | null }>(`/api/probes/${id}`); }
  /** Probe matrices of the store (acp-inspect probe agents), newest first. */
  matrices() { return this.call<ProbeMatrixSummary[]>('/api/matrices'); }
  /** One matrix, and which recordings its cells name are gone since. */
  matrix(id: number) { return this.call<{ id: number; startedAt: string; endedAt: string | null; matrix: Matrix; gone: number[] }>(`/api/matrices/${id}`); }
  /** The consoles (acp-inspect console) running on this database. */
  consoles() { return this.call<RunningConsoleInfo[]>('/api/consoles'); }
  /** Every agent name and version of the store, compared (latency per method, turn durations). */
  agents() { return this.call<AgentRow[]>('/api/agents'); }
  /** Two recordings aligned: the totals and every row's status; the rows come from `compareRows`. */
  compare(a: number, b: number, ignore: string, merge: boolean, signal?: AbortSignal) {
    return this.call<CompareIndex>(`/api/compare?a=${a}&b=${b}${ignore.trim() ? `&ignore=${enc(ignore.trim())}` : ''}${merge ? '&merge=1' : ''}&paged=1`, { signal });
  }
  /** Rows `offset`… of the comparison `id` (404 once the server no longer holds it). */
  compareRows(id: string, offset: number, limit: number, signal?: AbortSignal) {
    return this.call<CompareRowsPage>(`/api/compare/rows?id=${enc(id)}&offset=${offset}&limit=${limit}`, { signal });
  }

  /** Subscribes to the live stream; reconnects by itself (EventSource does). Returns a closer. */
  subscribe(recordingId: number | null, onEvent: (ev: LiveEvent) => void, onState?: (open: boolean) => void): () => void {
    const es = new EventSource(`${this.base}/api/events${recordingId !== null ? `?recording=${recordingId}` : ''}`);
    es.onmessage = (m) => {
      try { onEvent(JSON.parse(m.data as string) as LiveEvent); } catch { /* ignore a bad message */ }
    };
    es.onopen = () => onState?.(true);
    es.onerror = () => onState?.(false);
    return () => es.close();
  }
}

/** The served page's own API. */
export const server = new HttpSource();

/**
 * The source the views read (the served API unless the page was started over a transcript in
 * memory: the HTML report, the viewer). Set once, before the first render.
 */
export let source: DataSource = server;

export function setSource(s: DataSource): void {
  source = s;
}

/** The served API when this page has one (list, live, import, delete, compare), else null. */
export function serverApi(): HttpSource | null {
  return source instanceof HttpSource ? source : null;
}
