/**
 * `acp-inspect probe client` at the edge: the probe speaks ACP on this process's stdin/stdout (the
 * editor launched it as its agent), and each battery run becomes a probe run in the store, one
 * recording per scenario (the handshake it builds on, then the scenario's own lines), checked, with
 * the JSON report and the HTML report written where asked. Diagnostics go to stderr only: stdout is
 * the client's. Ends when the client hangs up; a SIGTERM/SIGINT/SIGHUP mid-battery reports first.
 */
import { resolve } from 'node:path';
import { checkItems } from '../../check/checker.js';
import { Correlator } from '../../wire/correlate.js';
import type { Item } from '../../wire/frame.js';
import { frameFromText } from '../../wire/make-frame.js';
import { Store } from '../../store/store.js';
import { defaultDbPath } from '../../store/paths.js';
import { ProbeRun } from '../probe-run.js';
import type { ProbeFinding, ScenarioResult } from '../report.js';
import { HANDSHAKE_ID } from './scenarios-requests.js';
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
    onRunEnd: (r, endTurn) => reportRun(r, endTurn, db, opts, log),
    // Checked once as each scenario ends: the checker's lazy start-up (validators, the unknown-variant
    // tables) then costs nothing between the end of the turn and the report on disk.
    onScenarioEnd: (x) => { checkItems(x.items.slice(x.from, x.to)); },
  });
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.once(sig, () => {
      void probe.abort(`the probe was ended by ${sig}`).finally(() => process.exit(0));
    });
  }
  await probe.done;
}

/**
 * Ends the turn with the verdict and where to look, then records every scenario that ran, finishes
 * the probe run and writes the reports, all without yielding to the event loop.
 */
function reportRun(r: ClientProbeRun, endTurn: (where: string[]) => void, db: string, opts: ProbeClientOptions, log: (t: string) => void): void {
  const run = ProbeRun.open('client', db);
  const dbArg = opts.db ? ` --db ${JSON.stringify(resolve(opts.db))}` : '';
  try {
    const where = [
      ...(opts.report ? [`Report: ${resolve(opts.report)}`] : []),
      ...(opts.html ? [`HTML report: ${resolve(opts.html)}`] : []),
      `Probe run ${run.id}, one recording per scenario named "${run.recordingName('<scenario>')}" in ${resolve(db)}: `
        + `list them with \`acp-inspect list${dbArg} --search "${run.recordingName('')}"\`; \`acp-inspect serve${dbArg}\` shows the run's scorecard (?probe=${run.id}).`,
    ];
    endTurn(where);
    // One transaction for all the recordings: the client may end the probe soon after the turn ends.
    const results: ScenarioResult[] = run.store.db.transaction(() => r.scenarios.map((s) => {
      const base = { id: s.id, title: s.title, tier: s.tier, status: s.status, spec: s.spec, why: s.why, recording: null, findings: [] };
      if (!s.ran) return base;
      const { items, provoked } = scenarioItems(r, s.from, s.to);
      const rec = run.record(s.id, { items, provoked, provokes: [...(s.provokes ?? []), ...PROBE_RULES], command: null, cwd: r.cwd || null, startedAt: r.startedAt });
      // The handshake every recording starts with is graded once, by its own scenario.
      const own = (f: ProbeFinding): boolean => s.id === HANDSHAKE_ID || f.seq > r.handshake + 1;
      const findings = rec.findings.filter(own);
      const durationMs = Math.round((r.items[s.to - 1]?.t ?? 0) - (r.items[s.from]?.t ?? 0));
      return { ...base, ...gradeByChecker(s, findings), recording: rec.recordingId, findings, probeFindings: rec.probeFindings.filter(own), ...(s.to > s.from ? { durationMs } : {}) };
    }))();
    const report = run.finish({ name: r.target.name, version: r.target.version, command: null }, results);
    run.write(report, { report: opts.report, html: opts.html });
    log(`acp-inspect probe client: ${report.verdict} (${report.counts.pass} passed, ${report.counts.fail} failed); ${where.join(' ')}`);
  } finally {
    run.close();
  }
}

/**
 * Rules about the agent's side that only the probe can break, and only when the client made it: a
 * turn it ends while a request to the client is still unanswered (the client did not answer in time,
 * which its scenario already fails).
 */
const PROBE_RULES = ['turn-ended-with-pending-requests'];

/** A scenario that passed fails when the checker found an error of the client's in its exchange; an info notes it. */
function gradeByChecker(s: { status: ScenarioResult['status']; why: string }, findings: ProbeFinding[]): Pick<ScenarioResult, 'status' | 'why'> {
  const errors = findings.filter((f) => f.severity === 'error');
  if (!errors.length || (s.status !== 'pass' && s.status !== 'info')) return { status: s.status, why: s.why };
  const e = errors[0]!;
  const found = `the checker found ${e.rule} at #${e.seq} (spec ${e.spec}): ${e.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`;
  return s.status === 'pass' ? { status: 'fail', why: found } : { status: 'info', why: `${s.why}; ${found}` };
}

/**
 * The items of one scenario's recording: the handshake (initialize, session/new), the prompt of its
 * turn, the scenario's own lines and the end of the turn, numbered from 1 and correlated afresh; `provoked`
 * renumbered with them.
 */
export function scenarioItems(r: ClientProbeRun, from: number, to: number): { items: Item[]; provoked: Set<number> } {
  const prompt = r.prompt >= 0 ? [r.items[r.prompt]!] : [];
  const picked = [...r.items.slice(0, r.handshake), ...prompt, ...r.items.slice(from, to), ...r.items.slice(r.tail.from, r.tail.to)];
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
  // A turn the client left before it ended: the prompt it never got an answer to is not its fault.
  if (r.prompt >= 0 && r.tail.to === r.tail.from) provoked.add(r.handshake + 1);
  return { items, provoked };
}
