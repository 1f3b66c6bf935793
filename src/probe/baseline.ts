/**
 * CI baselines of a probe: the failures a team knows of, by scenario id (and `ambient:RULE` for an
 * ambient finding that decides), so that a run fails only on a new one. As the MCP conformance
 * suite's expected failures: an entry that now passes is stale, and reported so the baseline can
 * shrink. Reading and writing the file is here; comparing is pure.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { CliError } from '../errors.js';
import type { ProbeKind, ProbeReport } from './report.js';

/** The file: `{"acpInspect":"probe-baseline","version":1,"probe":"agent","failures":["cancel-mid-turn", ...]}`. */
export interface BaselineFile {
  acpInspect: 'probe-baseline';
  version: 1;
  probe: ProbeKind;
  failures: string[];
}

/** What a run says about its baseline (kept in the report). */
export interface BaselineResult {
  file: string;
  /** Failures of the run that the baseline lists. */
  known: string[];
  /** Failures that decide the verdict and the baseline does not list: they fail the run. */
  unexpected: string[];
  /** Entries whose scenario ran and did not fail (or whose ambient finding is gone): the baseline may drop them. */
  stale: string[];
}

const ambientId = (rule: string): string => `ambient:${rule}`;

/** Reads a baseline; a missing, unreadable or malformed file, or an unknown id, is a one-line CliError (exit 2). */
export function readBaseline(file: string, probe: ProbeKind, ids: readonly string[]): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new CliError(`--baseline ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); write one with --write-baseline FILE`, 2);
  }
  let v: Partial<BaselineFile>;
  try {
    v = JSON.parse(text) as Partial<BaselineFile>;
  } catch {
    throw new CliError(`--baseline ${file}: not JSON; a baseline is what --write-baseline writes`, 2);
  }
  if (v?.acpInspect !== 'probe-baseline' || !Array.isArray(v.failures) || !v.failures.every((f) => typeof f === 'string')) {
    throw new CliError(`--baseline ${file}: not a probe baseline (no "acpInspect":"probe-baseline" with a "failures" array of scenario ids); write one with --write-baseline FILE`, 2);
  }
  if (v.probe !== probe) throw new CliError(`--baseline ${file}: a baseline of probe ${String(v.probe)}, not probe ${probe}`, 2);
  const unknown = v.failures.filter((f) => !ids.includes(f) && !/^ambient:[\w-]+$/.test(f));
  if (unknown.length) throw new CliError(`--baseline ${file}: no scenario ${unknown.map((u) => JSON.stringify(u)).join(', ')}; see --list`, 2);
  return v.failures;
}

/** The run's failures as baseline entries: every failed scenario (any tier) and every deciding ambient finding. */
export function failuresOf(report: ProbeReport): string[] {
  return [
    ...report.scenarios.filter((s) => s.status === 'fail').map((s) => s.id),
    ...(report.ambient ?? []).filter((a) => a.tier === 'required' || a.tier === 'capability').map((a) => ambientId(a.rule)),
  ];
}

/** Compares a run with its baseline. Pure. */
export function compareBaseline(report: ProbeReport, file: string, entries: readonly string[]): BaselineResult {
  const deciding = new Set([
    ...report.scenarios.filter((s) => s.status === 'fail' && (s.tier === 'required' || s.tier === 'capability')).map((s) => s.id),
    ...(report.ambient ?? []).filter((a) => a.tier === 'required' || a.tier === 'capability').map((a) => ambientId(a.rule)),
  ]);
  const failed = new Set(failuresOf(report));
  const ran = new Set(report.scenarios.filter((s) => s.status === 'pass' || s.status === 'info' || s.status === 'fail').map((s) => s.id));
  const ambientNow = new Set((report.ambient ?? []).map((a) => ambientId(a.rule)));
  return {
    file,
    known: entries.filter((e) => failed.has(e)),
    unexpected: [...deciding].filter((f) => !entries.includes(f)),
    // An ambient entry is stale when the run opened sessions and the finding did not show.
    stale: entries.filter((e) => !failed.has(e) && (e.startsWith('ambient:') ? !ambientNow.has(e) && ran.size > 0 : ran.has(e))),
  };
}

/** Writes the run's failures as a baseline. */
export function writeBaseline(file: string, report: ProbeReport): void {
  const b: BaselineFile = { acpInspect: 'probe-baseline', version: 1, probe: report.probe, failures: failuresOf(report) };
  try {
    writeFileSync(file, `${JSON.stringify(b, null, 2)}\n`);
  } catch (e) {
    throw new CliError(`--write-baseline ${file}: cannot write it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); the run is in the database, see acp-inspect list`, 2);
  }
}
