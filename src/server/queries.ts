/**
 * Read models over the store for the API: timeline pages (filters run as SQL), positions, item
 * detail with its pair and findings, per-method stats, prompt turns. Synchronous like the store.
 */
import type { Store, ItemRow } from '../store/store.js';
import { rowToItem } from '../store/store.js';
import type { Item, Frame } from '../wire/frame.js';
import { compileFilter } from './filter.js';
import { previewOf } from '../view/preview.js';
import type { Position } from '../view/source.js';
import type { TimelinePage, TimelineRow, MethodStats, TurnInfo, StoredFinding, TimelineGroups } from '../view/contract.js';
import { layTurns, turnInfoOf } from '../view/turns.js';
import { quantile } from '../view/insights.js';
import { entityPatch, patchTarget, startsEntity } from '../view/patch.js';
import { SCAN_BUDGET_MS, type MatchCache } from './matches.js';
import { transportCellOf, TRANSPORT_NEAR, type TransportData } from '../wire/transport-event.js';

/** Columns a timeline row needs: no full raw text for big frames (only a prefix is previewed). */
const ROW_COLS = `i.seq, i.t, i.dir, i.kind, i.method, i.rpc_id, i.reply_to, i.latency, i.session_id, i.size, i.parse_error,
  CASE WHEN length(i.raw) > 262144 THEN substr(i.raw, 1, 400) ELSE i.raw END AS raw,
  (SELECT r.seq FROM items r WHERE r.recording_id = i.recording_id AND r.reply_to = i.seq AND i.kind = 'request' LIMIT 1) AS response_seq,
  (SELECT group_concat(f.severity) FROM findings f WHERE f.recording_id = i.recording_id AND f.seq = i.seq) AS sev`;

interface RowOut extends Omit<ItemRow, 'raw_bytes' | 'truncated'> {
  response_seq: number | null;
  sev: string | null;
}

const SEV_ORDER: Record<string, number> = { error: 0, warning: 1, info: 2 };

/** A remote agent's recording: the transport its transport events name (null: a stdio recording). */
export function recordingTransport(store: Store, recordingId: number): 'http' | 'ws' | null {
  // Any one of them (a recording has one transport), found by the kind index: an ORDER BY seq would walk a stdio recording's items.
  const r = store.db.prepare(`SELECT raw FROM items WHERE recording_id = ? AND kind = 'transport' AND dir = 'event' LIMIT 1`).get(recordingId) as { raw: string } | undefined;
  if (!r) return null;
  try {
    const t = (JSON.parse(r.raw) as TransportData).transport;
    return t === 'http' || t === 'ws' ? t : null;
  } catch { return null; }
}

/** Timeline rows of `rows`, with a remote agent's frames' transport cells. */
function timelineRows(store: Store, recordingId: number, rows: RowOut[], transport: 'http' | 'ws' | null): TimelineRow[] {
  const out = rows.map(toTimelineRow);
  if (transport === null) return out;
  // The events around the rows, read in windows as the rows go (a filtered page's rows may be far
  // apart), and those too far behind the row dropped.
  const read = store.db.prepare(`SELECT seq, raw FROM items WHERE recording_id = ? AND seq BETWEEN ? AND ? AND kind = 'transport' AND dir = 'event' ORDER BY seq`);
  let near: { seq: number; data: TransportData }[] = [];
  let readTo = -Infinity;
  for (const row of out) {
    if (row.dir !== 'c2a' && row.dir !== 'a2c') continue;
    let drop = 0;
    while (drop < near.length && near[drop]!.seq < row.seq - TRANSPORT_NEAR) drop++;
    if (drop > 0) near = near.slice(drop);
    if (row.seq + TRANSPORT_NEAR > readTo) {
      const from = Math.max(readTo + 1, row.seq - TRANSPORT_NEAR);
      readTo = row.seq + 4 * TRANSPORT_NEAR;
      for (const r of read.all(recordingId, from, readTo) as { seq: number; raw: string }[]) {
        try { near.push({ seq: r.seq, data: JSON.parse(r.raw) as TransportData }); } catch { /* not ours */ }
      }
    }
    const cell = transportCellOf({ seq: row.seq, dir: row.dir, kind: row.kind as Frame['kind'], id: row.id, method: row.method ?? undefined, sessionId: row.sessionId ?? undefined }, near, transport);
    if (cell) row.transport = cell;
  }
  return out;
}

export function toTimelineRow(r: RowOut): TimelineRow {
  const sev = r.sev ? [...new Set(r.sev.split(','))].sort((a, b) => (SEV_ORDER[a] ?? 3) - (SEV_ORDER[b] ?? 3)) : [];
  const row: TimelineRow = {
    seq: r.seq, t: r.t, dir: r.dir as TimelineRow['dir'], kind: r.kind, method: r.method, replyTo: r.reply_to,
    responseSeq: r.response_seq, latency: r.latency, sessionId: r.session_id, size: r.size,
    preview: previewOf(r.dir, r.kind, r.method, r.raw, r.parse_error), parseError: r.parse_error,
    findings: sev as TimelineRow['findings'],
  };
  if (r.rpc_id !== null) {
    try { row.id = JSON.parse(r.rpc_id) as TimelineRow['id']; } catch { /* keep none */ }
  }
  return row;
}

/** The recording's extent when `q` filters nothing and its seqs are 1..n (a page is then a range, a position arithmetic). */
function denseUnfiltered(matches: MatchCache, recordingId: number, q: string): ReturnType<MatchCache['dense']> {
  return compileFilter(q).where === '1' ? matches.dense(recordingId) : null;
}

/**
 * A page of the filtered timeline through the server's lists of matches (matches.ts): a range read
 * when unfiltered, a slice of the matching seqs when filtered. A filter still being scanned when the
 * time budget is spent answers with the rows found so far and `partial` (its total is a lower bound).
 * Throws FilterError for a bad filter.
 */
export function listPage(store: Store, matches: MatchCache, recordingId: number, q: string, offset: number, limit: number): TimelinePage {
  const dense = denseUnfiltered(matches, recordingId, q);
  let rows: RowOut[];
  let total: number;
  let partial = false;
  if (dense) {
    // Index k is seq k + 1: from seq `offset` (the row before the page, for its delta) on.
    rows = store.db.prepare(`SELECT ${ROW_COLS} FROM items i WHERE i.recording_id = ? AND i.seq >= ? ORDER BY i.seq LIMIT ?`)
      .all(recordingId, Math.max(1, offset), limit + (offset > 0 ? 1 : 0)) as RowOut[];
    total = dense.count;
  } else {
    const l = matches.list(recordingId, q);
    l.scanUntil(() => l.seqs.length > offset + limit, SCAN_BUDGET_MS);
    const want = l.seqs.slice(Math.max(0, offset - 1), offset + limit);
    rows = want.length === 0 ? [] : store.db.prepare(`SELECT ${ROW_COLS} FROM items i WHERE i.recording_id = ? AND i.seq IN (SELECT value FROM json_each(?)) ORDER BY i.seq`)
      .all(recordingId, JSON.stringify(want)) as RowOut[];
    total = l.seqs.length;
    if (!l.done) {
      partial = true;
      matches.continueInBackground(l);
    }
  }
  let prevT: number | null = null;
  if (offset > 0 && rows.length && offset - 1 < total) prevT = rows.shift()!.t;
  const transport = recordingTransport(store, recordingId);
  const page: TimelinePage = { total, offset, rows: timelineRows(store, recordingId, rows, transport), prevT };
  if (transport) page.transport = transport;
  if (partial) page.partial = true;
  return page;
}

/** Index of item `seq` in the filtered list (or of the first item after it), and whether it matches; `partial` while the total is not known yet. */
export function listPosition(store: Store, matches: MatchCache, recordingId: number, q: string, seq: number): Position {
  const dense = denseUnfiltered(matches, recordingId, q);
  if (dense) return { index: Math.max(0, Math.min(seq - 1, dense.count)), matches: seq >= 1 && seq <= dense.maxSeq, total: dense.count };
  const l = matches.list(recordingId, q);
  l.scanTo(seq);
  const index = l.indexOf(seq);
  const out: Position = { index, matches: l.seqs[index] === seq, total: l.seqs.length };
  if (!l.done) {
    out.partial = true;
    matches.continueInBackground(l);
  }
  return out;
}

/** Rows with seq > afterSeq (for the live stream), unfiltered. */
export function rowsAfter(store: Store, recordingId: number, afterSeq: number, limit = 5000): TimelineRow[] {
  const rows = store.db.prepare(`SELECT ${ROW_COLS} FROM items i WHERE i.recording_id = ? AND i.seq > ? ORDER BY i.seq LIMIT ?`)
    .all(recordingId, afterSeq, limit) as RowOut[];
  return timelineRows(store, recordingId, rows, rows.length ? recordingTransport(store, recordingId) : null);
}

export function readItem(store: Store, recordingId: number, seq: number): Item | undefined {
  const row = store.db.prepare(`SELECT * FROM items WHERE recording_id = ? AND seq = ?`).get(recordingId, seq) as ItemRow | undefined;
  return row ? rowToItem(row) : undefined;
}

/** The request a response answers, or the response a request got. */
export function pairOf(store: Store, recordingId: number, item: Item): Item | null {
  if (item.dir !== 'c2a' && item.dir !== 'a2c') return null;
  const f = item as Frame;
  if (f.replyTo !== undefined) return readItem(store, recordingId, f.replyTo) ?? null;
  if (f.kind === 'request') {
    const row = store.db.prepare(`SELECT * FROM items WHERE recording_id = ? AND reply_to = ? LIMIT 1`).get(recordingId, f.seq) as ItemRow | undefined;
    return row ? rowToItem(row) : null;
  }
  return null;
}

export function findingsAt(store: Store, recordingId: number, seq: number): StoredFinding[] {
  return (store.db.prepare(`SELECT seq, severity, rule, message, spec FROM findings WHERE recording_id = ? AND seq = ? ORDER BY rowid`)
    .all(recordingId, seq) as StoredFinding[]).map((f) => (f.spec === null ? { ...f, spec: undefined } : f));
}


/** Per-method counts and latency percentiles (nearest-rank) over answered requests. */
export function methodStats(store: Store, recordingId: number): MethodStats[] {
  const counts = store.db.prepare(`SELECT method, kind, COUNT(*) AS n FROM items WHERE recording_id = ? AND method IS NOT NULL GROUP BY method, kind`)
    .all(recordingId) as { method: string; kind: string; n: number }[];
  const byMethod = new Map<string, MethodStats>();
  const get = (m: string) => {
    let s = byMethod.get(m);
    if (!s) { s = { method: m, count: 0, requests: 0, notifications: 0, errors: 0, p50: null, p99: null, max: null }; byMethod.set(m, s); }
    return s;
  };
  for (const c of counts) {
    const s = get(c.method);
    s.count += c.n;
    if (c.kind === 'request') s.requests += c.n;
    else if (c.kind === 'notification') s.notifications += c.n;
    else if (c.kind === 'error') s.errors += c.n;
  }
  const lat = store.db.prepare(`SELECT method, latency FROM items WHERE recording_id = ? AND latency IS NOT NULL AND method IS NOT NULL ORDER BY method, latency`)
    .all(recordingId) as { method: string; latency: number }[];
  let cur: string | null = null;
  let vals: number[] = [];
  const flush = () => {
    if (cur === null) return;
    const s = get(cur);
    s.p50 = quantile(vals, 0.5);
    s.p99 = quantile(vals, 0.99);
    s.max = vals.length ? vals[vals.length - 1]! : null;
  };
  for (const r of lat) {
    if (r.method !== cur) { flush(); cur = r.method; vals = []; }
    vals.push(r.latency);
  }
  flush();
  return [...byMethod.values()].sort((a, b) => b.count - a.count || a.method.localeCompare(b.method));
}

/** Prompt turns of a recording (session/prompt requests and their responses). */
export function listTurns(store: Store, recordingId: number, onlySeq?: number,
  page?: { after?: number; before?: number; limit?: number; sessionId?: string; newestFirst?: boolean }): TurnInfo[] {
  const conds: string[] = [];
  const args: (string | number)[] = [];
  if (onlySeq !== undefined) { conds.push('AND p.seq = ?'); args.push(onlySeq); }
  if (page?.after !== undefined) { conds.push('AND p.seq > ?'); args.push(page.after); }
  if (page?.before !== undefined) { conds.push('AND p.seq < ?'); args.push(page.before); }
  if (page?.sessionId !== undefined) { conds.push('AND p.session_id = ?'); args.push(page.sessionId); }
  const rows = store.db.prepare(`SELECT p.seq, p.t, p.session_id, p.raw, r.seq AS end_seq, r.t AS end_t, r.raw AS end_raw, r.kind AS end_kind
      FROM items p LEFT JOIN items r ON r.recording_id = p.recording_id AND r.reply_to = p.seq
      WHERE p.recording_id = ? AND p.method = 'session/prompt' AND p.kind = 'request' ${conds.join(' ')}
      ORDER BY p.seq ${page?.newestFirst ? 'DESC' : ''} LIMIT ?`)
    .all(recordingId, ...args, page?.limit ?? -1) as { seq: number; t: number; session_id: string | null; raw: string; end_seq: number | null; end_t: number | null; end_raw: string | null; end_kind: string | null }[];
  return rows.map((r) => turnInfoOf({ seq: r.seq, t: r.t, sessionId: r.session_id, raw: r.raw },
    r.end_seq === null ? null : { seq: r.end_seq, t: r.end_t!, raw: r.end_raw ?? '', kind: r.end_kind ?? '' }));
}

/** The items of one turn (at most `limit`): from the prompt request to its response, in the prompt's session or no session. */
export function turnItems(store: Store, recordingId: number, promptSeq: number, limit = -1): { turn: TurnInfo; items: Item[] } | undefined {
  const turn = listTurns(store, recordingId, promptSeq)[0];
  if (!turn) return undefined;
  const end = turn.endSeq ?? Number.MAX_SAFE_INTEGER;
  const rows = store.db.prepare(`SELECT * FROM items WHERE recording_id = ? AND seq >= ? AND seq <= ?
      AND (session_id IS NULL OR session_id = ? OR seq = ?) ORDER BY seq LIMIT ?`)
    .all(recordingId, promptSeq, end, turn.sessionId, promptSeq, limit) as ItemRow[];
  return { turn, items: rows.map((r) => rowToItem(r)) };
}

/**
 * Prompt turns laid over the filtered timeline: for each turn the range [from, to) of list indices it
 * holds, and where each session first appears. A turn runs from its session/prompt request to its response; when turns of two sessions
 * overlap in time, a turn's range stops where the next turn starts (the list stays in seq order).
 * Turns with no item matching the filter are left out. Throws FilterError for a bad filter.
 */
export function timelineGroups(store: Store, recordingId: number, q: string, turns: TurnInfo[] = listTurns(store, recordingId)): TimelineGroups {
  const f = compileFilter(q);
  const seqs = store.db.prepare(`SELECT i.seq FROM items i WHERE i.recording_id = ? AND ${f.where} ORDER BY i.seq`).pluck()
    .all(recordingId, ...f.params) as number[];
  const firsts = store.db.prepare(`SELECT i.session_id AS sessionId, MIN(i.seq) AS seq FROM items i
      WHERE i.recording_id = ? AND i.session_id IS NOT NULL AND ${f.where} GROUP BY i.session_id ORDER BY seq`)
    .all(recordingId, ...f.params) as { sessionId: string; seq: number }[];
  return layTurns(seqs, turns, firsts);
}

/** Seqs a patch's earlier frames are first looked for in, going back from the item. */
export const PATCH_WINDOW = 4096;

/**
 * The patch (entity before and after) a session update makes, if it patches one. The earlier frames
 * that touch the entity are read backwards from the item through the seq index, stopping at the
 * frame that starts the entity (usually a few items back); only when none is found within
 * PATCH_WINDOW seqs are all earlier frames of the session read, as before.
 */
export function patchOf(store: Store, id: number, item: Item): ReturnType<typeof entityPatch> | undefined {
  if (item.dir !== 'c2a' && item.dir !== 'a2c') return undefined;
  const f = item as Frame;
  const target = patchTarget(f);
  if (!target) return undefined;
  const like = target.like.replace(/[_]/g, '\\_');
  const sid = f.sessionId ?? null;
  // `+` keeps SQLite off the method and session indexes, so it walks the seq index backwards and stops early.
  const near = store.db.prepare(`SELECT * FROM items WHERE recording_id = ? AND seq < ? AND seq >= ? AND +method = 'session/update'
      AND +session_id IS ? AND raw LIKE ? ESCAPE '\\' ORDER BY seq DESC`);
  const back: Frame[] = [];
  for (const r of near.iterate(id, f.seq, f.seq - PATCH_WINDOW, sid, like) as IterableIterator<ItemRow>) {
    const e = rowToItem(r) as Frame;
    back.push(e);
    if (startsEntity(target, e)) return entityPatch(target, back.reverse(), f);
  }
  const earlier = (store.db.prepare(`SELECT * FROM items WHERE recording_id = ? AND seq < ? AND method = 'session/update'
      AND session_id IS ? AND raw LIKE ? ESCAPE '\\' ORDER BY seq`)
    .all(id, f.seq, sid, like) as ItemRow[]).map((r) => rowToItem(r) as Frame);
  return entityPatch(target, earlier, f);
}
