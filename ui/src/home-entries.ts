/**
 * The rows of the home page: recordings, and each probe run as one row holding its scenario
 * recordings (named "probe agent #RUN: SCENARIO"), placed where its newest recording would be, so a
 * run of 29 scenarios is one row and not 29. A run with no recording in the list (one that could not
 * run its scenarios) still gets its row, by its start time, unless a search is on.
 */
import type { ProbeRunSummary, RecordingSummary } from './api.js';

export type HomeEntry =
  | { kind: 'recording'; r: RecordingSummary }
  | { kind: 'run'; run: ProbeRunSummary; recs: RecordingSummary[] };

/** The probe run a recording belongs to, from its name; null for any other recording. */
export function probeRunOf(name: string | null): { probe: 'agent' | 'client'; run: number } | null {
  const m = /^probe (agent|client) #(\d+): /.exec(name ?? '');
  return m ? { probe: m[1] as 'agent' | 'client', run: Number(m[2]) } : null;
}

export function homeEntries(recordings: readonly RecordingSummary[], runs: readonly ProbeRunSummary[], searching: boolean): HomeEntry[] {
  const byId = new Map(runs.map((r) => [r.id, r]));
  const groups = new Map<number, Extract<HomeEntry, { kind: 'run' }>>();
  const entries: HomeEntry[] = [];
  for (const r of recordings) {
    const of = probeRunOf(r.name);
    if (!of) { entries.push({ kind: 'recording', r }); continue; }
    let g = groups.get(of.run);
    if (!g) {
      g = { kind: 'run', run: byId.get(of.run) ?? { id: of.run, probe: of.probe, startedAt: r.startedAt, endedAt: null, target: null, verdict: null }, recs: [] };
      groups.set(of.run, g);
      entries.push(g);
    }
    g.recs.push(r);
  }
  if (searching) return entries;
  for (const run of runs) {
    if (groups.has(run.id)) continue;
    const at = entries.findIndex((e) => (e.kind === 'run' ? e.run.startedAt : e.r.startedAt) < run.startedAt);
    entries.splice(at < 0 ? entries.length : at, 0, { kind: 'run', run, recs: [] });
  }
  return entries;
}
