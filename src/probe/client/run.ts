/**
 * `acp-inspect probe client` at the edge: the probe speaks ACP on this process's stdin/stdout (the
 * editor launched it as its agent), and each battery run becomes a probe run in the store, one
 * recording per scenario (the handshake it builds on, then the scenario's own lines), checked, with
 * the JSON report and the HTML report written where asked. Diagnostics go to stderr only: stdout is
 * the client's. Ends when the client hangs up; a SIGTERM/SIGINT/SIGHUP mid-battery reports first.
 */
import { resolve } from 'node:path';
import { Correlator } from '../../wire/correlate.js';
import type { Item } from '../../wire/frame.js';
import { frameFromText } from '../../wire/make-frame.js';
import { Store } from '../../store/store.js';
import { defaultDbPath } from '../../store/paths.js';
import { ProbeRun } from '../probe-run.js';
import type { ScenarioResult } from '../report.js';
import { type ClientProbeRun, startClientProbe } from './agent.js';

export interface ProbeClientOptions {
  db?: string;
  report?: string;
  html?: string;
  only?: string[];
  timeoutMs?: number;
}

/** Runs the probe on stdio until the client disconnects. */
export async function runProbeClient(opts: ProbeClientOptions): Promise<void> {
  const db = opts.db ?? defaultDbPath();
  Store.open(db).close(); // a database that cannot be opened is a one-line error before any ACP is spoken
  const log = (text: string): void => { process.stderr.write(`${text}\n`); };
  const probe = startClientProbe({
    input: process.stdin, output: process.stdout, timeoutMs: opts.timeoutMs, only: opts.only, log,
    onRunEnd: async (r) => reportRun(r, db, opts, log),
  });
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.once(sig, () => {
      void probe.abort(`the probe was ended by ${sig} during this scenario`).finally(() => process.exit(0));
    });
  }
  await probe.done;
}

/** Records every scenario that ran, finishes the probe run and writes the reports; returns what the final message says about them. */
function reportRun(r: ClientProbeRun, db: string, opts: ProbeClientOptions, log: (t: string) => void): string[] {
  const run = ProbeRun.open('client', db);
  try {
    const results: ScenarioResult[] = r.scenarios.map((s) => {
      const base = { id: s.id, title: s.title, tier: s.tier, status: s.status, spec: s.spec, why: s.why, recording: null, findings: [] };
      if (!s.ran) return base;
      const { items, provoked } = scenarioItems(r, s.from, s.to);
      const rec = run.record(s.id, { items, provoked, provokes: s.provokes, command: null, cwd: r.cwd, startedAt: r.startedAt });
      return { ...base, recording: rec.recordingId, findings: rec.findings, probeFindings: rec.probeFindings };
    });
    const report = run.finish({ name: r.target.name, version: r.target.version, command: null }, results);
    run.write(report, { report: opts.report, html: opts.html });
    const where = [
      ...(opts.report ? [`Report: ${resolve(opts.report)}`] : []),
      ...(opts.html ? [`HTML report: ${resolve(opts.html)}`] : []),
      `Probe run ${run.id} in ${resolve(db)}: \`acp-inspect serve\` shows its scorecard; each scenario is a recording (\`acp-inspect show ID\`, the ids are in the report).`,
    ];
    log(`acp-inspect probe client: ${report.verdict} (${report.counts.pass} passed, ${report.counts.fail} failed); ${where.join(' ')}`);
    return where;
  } finally {
    run.close();
  }
}

/**
 * The items of one scenario's recording: the handshake (initialize, session/new, the prompt) and
 * the scenario's own lines, numbered from 1 and correlated afresh; `provoked` renumbered with them.
 */
export function scenarioItems(r: ClientProbeRun, from: number, to: number): { items: Item[]; provoked: Set<number> } {
  const picked = [...r.items.slice(0, r.prefix), ...r.items.slice(from, to)];
  const correlator = new Correlator();
  const provoked = new Set<number>();
  const items: Item[] = picked.map((it, i) => {
    const seq = i + 1;
    if (it.dir !== 'c2a' && it.dir !== 'a2c') return { ...it, seq };
    const f = frameFromText(seq, it.t, it.dir, it.raw, it.size);
    correlator.observe(f);
    if (r.provoked.has(it.seq)) provoked.add(seq);
    return f;
  });
  return { items, provoked };
}
