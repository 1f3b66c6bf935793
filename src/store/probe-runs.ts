/**
 * Probe runs in the store: each `probe agent|client` run keeps its JSON report here, and the UI
 * shows it as a scorecard linking to the scenarios' recordings (ordinary recordings).
 */
import type { Store } from './store.js';
import type { ProbeMatrixSummary, ProbeRunSummary } from '../view/contract.js';
import { StoreError } from './errors.js';

export type { ProbeMatrixSummary, ProbeRunSummary };

interface Row { id: number; probe: string; started_at: string; ended_at: string | null; target: string | null; verdict: string | null; report?: string | null }

const summary = (r: Row): ProbeRunSummary => ({ id: r.id, probe: r.probe, startedAt: r.started_at, endedAt: r.ended_at, target: r.target, verdict: r.verdict });

/** True when the database has the table (a read-only open of an older file may not). */
function hasTable(store: Store, name: 'probe_runs' | 'probe_matrices' = 'probe_runs'): boolean {
  return !!store.db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name);
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

// ---- probe matrices (acp-inspect probe agents): one row per run over several agents ------------------

interface MatrixRow { id: number; started_at: string; ended_at: string | null; matrix: string }
interface MatrixJson { agents?: Array<{ id: string; verdict: string | null; couldNotRun?: string; cells?: Record<string, { recording: number | null }>; ambient?: Record<string, { recording: number }> }> }

/** Starts a matrix; returns its id. `matrix` is its JSON so far (no agent yet). */
export function createProbeMatrix(store: Store, startedAt: string, matrix: unknown): number {
  return Number(store.db.prepare(`INSERT INTO probe_matrices (started_at, matrix) VALUES (?, ?)`).run(startedAt, JSON.stringify(matrix)).lastInsertRowid);
}

/** Keeps the matrix so far (after each agent), and marks it ended once every agent has run. */
export function updateProbeMatrix(store: Store, id: number, matrix: unknown, ended: boolean): void {
  store.db.prepare(`UPDATE probe_matrices SET matrix = ?, ended_at = ? WHERE id = ?`).run(JSON.stringify(matrix), ended ? new Date().toISOString() : null, id);
}

const agentsOf = (json: string): MatrixJson['agents'] & object => {
  try { return (JSON.parse(json) as MatrixJson).agents ?? []; } catch { return []; }
};

/** Probe matrices, newest first, with their agents' verdicts (their JSON is a few KiB: no frame is read). */
export function listProbeMatrices(store: Store, limit = 200): ProbeMatrixSummary[] {
  if (!hasTable(store, 'probe_matrices')) return [];
  return (store.db.prepare(`SELECT id, started_at, ended_at, matrix FROM probe_matrices ORDER BY id DESC LIMIT ?`).all(limit) as MatrixRow[]).map((r) => ({
    id: r.id, startedAt: r.started_at, endedAt: r.ended_at,
    agents: agentsOf(r.matrix).map((a) => ({ id: a.id, verdict: a.verdict ?? null, couldNotRun: a.couldNotRun !== undefined })),
  }));
}

/**
 * One matrix with its JSON and which of the recordings its cells name are gone (deleted since: the
 * UI shows those cells without a link); throws E_NO_PROBE_MATRIX when there is none. Reads the
 * matrix's row and looks each recording up by its key: no frame is read.
 */
export function getProbeMatrix(store: Store, id: number): { id: number; startedAt: string; endedAt: string | null; matrix: unknown; gone: number[] } {
  const r = hasTable(store, 'probe_matrices') ? store.db.prepare(`SELECT * FROM probe_matrices WHERE id = ?`).get(id) as MatrixRow | undefined : undefined;
  if (!r) throw new StoreError('E_NO_PROBE_MATRIX', `no probe matrix ${id} in ${store.path}; a matrix is made by acp-inspect probe agents --config FILE`);
  const ids = new Set<number>();
  for (const a of agentsOf(r.matrix)) {
    for (const c of Object.values(a.cells ?? {})) if (typeof c.recording === 'number') ids.add(c.recording);
    for (const x of Object.values(a.ambient ?? {})) if (typeof x.recording === 'number') ids.add(x.recording);
  }
  const has = store.db.prepare(`SELECT 1 FROM recordings WHERE id = ?`).pluck();
  return { id: r.id, startedAt: r.started_at, endedAt: r.ended_at, matrix: JSON.parse(r.matrix) as unknown, gone: [...ids].filter((x) => !has.get(x)).sort((a, b) => a - b) };
}
