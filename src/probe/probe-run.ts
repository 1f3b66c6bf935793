/**
 * A probe run at the edge: the store it records into (one probe_runs row, one recording per
 * scenario) and the outputs of its report (`--json`, `--report FILE`, `--html FILE`). Both probes
 * use it the same way: open, record each scenario, finish with the scenario results.
 */
import { statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CliError } from '../errors.js';
import { Store } from '../store/store.js';
import { defaultDbPath } from '../store/paths.js';
import { abandonProbeRun, createProbeRun, finishProbeRun } from '../store/probe-runs.js';
import type { Item } from '../wire/frame.js';
import { packageVersion } from '../version.js';
import { recordScenario, scenarioRecordingName, type RecordedScenario, type ScenarioExchange } from './record.js';
import { buildReport, type AmbientFinding, type ProbeKind, type ProbeReport, type ProbeTarget, type ScenarioResult } from './report.js';
import { probeReportHtml } from './html.js';

export interface ProbeOutputs {
  /** Print the JSON report on stdout. */
  json?: boolean;
  /** Write the JSON report to this file. */
  report?: string;
  /** Write the HTML report to this file. */
  html?: string;
}

/** Refuses, before anything runs, an output file whose folder does not exist. */
export function checkOutputs(out: ProbeOutputs, more: ReadonlyArray<readonly [flag: string, file: string | undefined]> = []): void {
  for (const [flag, file] of [['--report', out.report], ['--html', out.html], ...more] as const) {
    if (file === undefined) continue;
    const dir = dirname(resolve(file));
    let ok = false;
    try { ok = statSync(dir).isDirectory(); } catch { /* reported below */ }
    if (!ok) throw new CliError(`${flag} ${file}: the folder ${dir} does not exist; create it or write elsewhere`, 2);
  }
}

function writeOutput(flag: string, file: string, text: string): void {
  try {
    writeFileSync(file, text);
  } catch (e) {
    throw new CliError(`${flag} ${file}: cannot write it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); the runs are in the database, see acp-inspect list`, 2);
  }
}

export class ProbeRun {
  readonly id: number;
  readonly startedAt = new Date().toISOString();
  private readonly t0 = performance.now();

  private constructor(readonly store: Store, readonly kind: ProbeKind) {
    this.id = createProbeRun(store, kind, this.startedAt);
  }

  /** Opens the database (default: the usual one) and starts a run in it. */
  static open(kind: ProbeKind, db?: string): ProbeRun {
    return new ProbeRun(Store.open(db ?? defaultDbPath()), kind);
  }

  /** The recording name of one of this run's scenarios. */
  recordingName(scenario: string): string {
    return scenarioRecordingName(this.kind, this.id, scenario);
  }

  /** Stores a scenario's exchange as a recording named after the run and the scenario, checked. */
  record(scenario: string, x: Omit<ScenarioExchange, 'name' | 'probe'>): RecordedScenario {
    return recordScenario(this.store, { ...x, name: this.recordingName(scenario), probe: { kind: this.kind, run: this.id, scenario } });
  }

  /** Builds the report, keeps it with the run (for the UI's scorecard) and returns it. */
  finish(target: ProbeTarget, scenarios: ScenarioResult[], ambient?: AmbientFinding[], baseline?: (r: ProbeReport) => ProbeReport['baseline']): ProbeReport {
    const report = buildReport(this.kind, target, scenarios, {
      ...(ambient ? { ambient } : {}),
      run: this.id, db: resolve(this.store.path), startedAt: this.startedAt, durationMs: Math.round(performance.now() - this.t0), tool: packageVersion(),
    });
    const b = baseline?.(report);
    if (b) report.baseline = b;
    finishProbeRun(this.store, this.id, report);
    return report;
  }

  /** Writes the report where asked; returns what goes on stdout for `--json` (or undefined). */
  write(report: ProbeReport, out: ProbeOutputs): string | undefined {
    const json = `${JSON.stringify(report, null, 2)}\n`;
    if (out.report) writeOutput('--report', out.report, json);
    if (out.html) writeOutput('--html', out.html, probeReportHtml(report, this.scenarioItems(report)));
    return out.json ? json : undefined;
  }

  /** Items of each scenario's recording (for the HTML report). */
  scenarioItems(report: ProbeReport): Map<number, Item[]> {
    const m = new Map<number, Item[]>();
    for (const s of report.scenarios) {
      if (s.recording === null) continue;
      try { m.set(s.recording, this.store.readItems(s.recording, 0, 2000)); } catch { /* deleted meanwhile */ }
    }
    return m;
  }

  /** Ends the run without a report (it could not run); a finished run is left as it is. */
  abandon(): void {
    try { abandonProbeRun(this.store, this.id); } catch { /* the store's own error is already on its way */ }
  }

  close(): void {
    this.store.close();
  }
}
