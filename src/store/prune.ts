/**
 * Housekeeping: which recordings `acp-inspect prune` deletes. Pure selection (tested without a
 * database) plus the deletion itself in one transaction. Recordings still being written (status
 * `running`) are never pruned.
 */
import type { RecordingSummary, Store } from './store.js';

export interface PruneRule {
  /** Delete recordings that started more than this many ms before `now`. */
  olderThanMs?: number;
  /** Keep only the newest N recordings (by start time, then id). */
  keep?: number;
  now?: number;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** Parses `7d`, `12h`, `30m`, `2w`, `90s`; returns ms, or throws an Error naming the accepted forms. */
export function parseAge(text: string): number {
  const m = /^(\d{1,9})(ms|s|m|h|d|w)$/.exec(text.trim());
  if (!m) throw new Error(`"${text}" is not an age; use a whole number and a unit, like 7d, 12h, 30m, 2w or 90s`);
  return Number(m[1]) * UNITS[m[2]!]!;
}

/** The recordings a rule deletes: older than the age, or beyond the newest N (either rule suffices). */
export function selectPrune(recordings: RecordingSummary[], rule: PruneRule): RecordingSummary[] {
  const now = rule.now ?? Date.now();
  const done = recordings.filter((r) => r.status !== 'running');
  const newestFirst = [...done].sort((a, b) => (Date.parse(b.startedAt) || 0) - (Date.parse(a.startedAt) || 0) || b.id - a.id);
  const out = new Set<RecordingSummary>();
  if (rule.keep !== undefined) for (const r of newestFirst.slice(rule.keep)) out.add(r);
  if (rule.olderThanMs !== undefined) {
    for (const r of newestFirst) {
      const started = Date.parse(r.startedAt);
      if (Number.isFinite(started) && now - started > rule.olderThanMs) out.add(r);
    }
  }
  return newestFirst.filter((r) => out.has(r));
}

/** Deletes the given recordings (items, findings, the recording) in one transaction. */
export function deleteRecordings(store: Store, ids: number[]): void {
  store.db.transaction(() => {
    for (const id of ids) store.deleteRecording(id);
  })();
}
