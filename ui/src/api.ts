/** Typed calls to the server's JSON API. Types come from the server (`import type`), never copied. */
import type {
  RecordingSummary, TimelinePage, ItemDetail, FindingView, MethodStats, TurnInfo, TurnDetail, LiveEvent, CompareResult, CompareRow, TimelineGroups,
} from '../../src/server/types.js';

export type { RecordingSummary, TimelinePage, ItemDetail, FindingView, MethodStats, TurnInfo, TurnDetail, LiveEvent, CompareResult, CompareRow, TimelineGroups };
export type { TimelineRow } from '../../src/server/types.js';

export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

async function call<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await fetch(path, { credentials: 'same-origin', ...init });
  if (!res.ok) {
    let msg = `${res.status} ${res.statusText}`;
    try {
      const j = (await res.json()) as { error?: string };
      if (j.error) msg = j.error;
    } catch { /* not JSON */ }
    if (res.status === 401) msg = 'Not authorized: open the URL that acp-inspect printed (it carries ?token=…).';
    throw new ApiError(res.status, msg);
  }
  return (await res.json()) as T;
}

const enc = encodeURIComponent;

export const api = {
  recordings: (search = '') => call<RecordingSummary[]>(`/api/recordings${search ? `?search=${enc(search)}` : ''}`),
  recording: (id: number) => call<RecordingSummary>(`/api/recordings/${id}`),
  remove: (id: number) => call<{ deleted: number }>(`/api/recordings/${id}`, { method: 'DELETE' }),
  importFile: (file: File) => call<{ id: number; items: number }>(`/api/import?name=${enc(file.name.replace(/\.(jsonl|ndjson|json)$/i, ''))}`, {
    method: 'POST', body: file, headers: { 'Content-Type': 'application/x-ndjson' },
  }),
  exportUrl: (id: number) => `/api/recordings/${id}/export`,
  page: (id: number, q: string, offset: number, limit: number, signal?: AbortSignal) =>
    call<TimelinePage>(`/api/recordings/${id}/items?q=${enc(q)}&offset=${offset}&limit=${limit}`, { signal }),
  position: (id: number, q: string, seq: number) => call<{ index: number; matches: boolean; total: number }>(`/api/recordings/${id}/position?q=${enc(q)}&seq=${seq}`),
  item: (id: number, seq: number) => call<ItemDetail>(`/api/recordings/${id}/items/${seq}`),
  findings: (id: number) => call<FindingView[]>(`/api/recordings/${id}/findings`),
  stats: (id: number) => call<MethodStats[]>(`/api/recordings/${id}/stats`),
  groups: (id: number, q: string) => call<TimelineGroups>(`/api/recordings/${id}/groups?q=${enc(q)}`),
  turns: (id: number) => call<TurnInfo[]>(`/api/recordings/${id}/turns`),
  turn: (id: number, seq: number) => call<TurnDetail>(`/api/recordings/${id}/turns/${seq}`),
  compare: (a: number, b: number, ignore: string, merge: boolean, signal?: AbortSignal) =>
    call<CompareResult>(`/api/compare?a=${a}&b=${b}${ignore.trim() ? `&ignore=${enc(ignore.trim())}` : ''}${merge ? '&merge=1' : ''}`, { signal }),
};

/** Subscribes to the live stream; reconnects by itself (EventSource does). Returns a closer. */
export function subscribe(recordingId: number | null, onEvent: (ev: LiveEvent) => void, onState?: (open: boolean) => void): () => void {
  const es = new EventSource(`/api/events${recordingId !== null ? `?recording=${recordingId}` : ''}`);
  es.onmessage = (m) => {
    try { onEvent(JSON.parse(m.data as string) as LiveEvent); } catch { /* ignore a bad message */ }
  };
  es.onopen = () => onState?.(true);
  es.onerror = () => onState?.(false);
  return () => es.close();
}
