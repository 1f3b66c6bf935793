/**
 * Probe runs in the store: each `probe agent|client` run keeps its JSON report here, and the UI
 * shows it as a scorecard linking to the scenarios' recordings (ordinary recordings).
 */
import type { Store } from './store.js';
import type { ProbeRunSummary } from '../view/contract.js';
import { StoreError } from './errors.js';

export type { ProbeRunSummary };

interface Row { id: number; probe: string; started_at: string; ended_at: string | null; target: string | null; verdict: string | null; report?: string | null }

const summary = (r: Row): ProbeRunSummary => ({ id: r.id, probe: r.probe, startedAt: r.started_at, endedAt: r.ended_at, target: r.target, verdict: r.verdict });

/** True when the database has the probe_runs table (a read-only open of an older file may not). */
function hasTable(store: Store): boolean {
  return !!store.db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'probe_runs'`).get();
}

/** Starts a probe run; returns its id (the scenarios' recordings are named after it). */
export function createProbeRun(store: Store, probe: string, startedAt = new Date().toISOString()): number {
  return Number(store.db.prepare(`INSERT INTO probe_runs (probe, started_at) VALUES (?, ?)`).run(probe, startedAt).lastInsertRowid);
}

/** Stores the finished report of a run. */
export function finishProbeRun(store: Store, id: number, report: { verdict: string; target: { name: string | null } }): void {
  store.db.prepare(`UPDATE probe_runs SET ended_at = ?, target = ?, verdict = ?, report = ? WHERE id = ?`)
    .run(new Date().toISOString(), report.target.name, report.verdict, JSON.stringify(report), id);
}

/** Ends a run that could not run its scenarios (it keeps no report; the UI says so). */
export function abandonProbeRun(store: Store, id: number): void {
  store.db.prepare(`UPDATE probe_runs SET ended_at = ? WHERE id = ? AND ended_at IS NULL`).run(new Date().toISOString(), id);
}

/** Probe runs, newest first. */
export function listProbeRuns(store: Store, limit = 200): ProbeRunSummary[] {
  if (!hasTable(store)) return [];
  return (store.db.prepare(`SELECT id, probe, started_at, ended_at, target, verdict FROM probe_runs ORDER BY id DESC LIMIT ?`).all(limit) as Row[]).map(summary);
}

/** One run with its report (null while it runs); throws E_NO_PROBE_RUN when there is none. */
export function getProbeRun(store: Store, id: number): ProbeRunSummary & { report: unknown } {
  const r = hasTable(store) ? store.db.prepare(`SELECT * FROM probe_runs WHERE id = ?`).get(id) as Row | undefined : undefined;
  if (!r) throw new StoreError('E_NO_PROBE_RUN', `no probe run ${id} in ${store.path}; see the probe runs in the UI (acp-inspect serve)`);
  return { ...summary(r), report: r.report ? JSON.parse(r.report) as unknown : null };
}
