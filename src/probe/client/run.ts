/**
 * `acp-inspect probe client` at the edge: the probe speaks ACP on this process's stdin/stdout (the
 * editor launched it as its agent), and each battery run becomes a probe run in the store, one
 * recording per scenario (the handshake it builds on, then the scenario's own lines), checked, with
 * the JSON report and the HTML report written where asked. Diagnostics go to stderr only: stdout is
 * the client's. Ends when the client hangs up; a SIGTERM/SIGINT/SIGHUP mid-battery reports first.
 */
import { resolve } from 'node:path';
import { checkItems } from '../../check/checker.js';
import type { Item } from '../../wire/frame.js';
import { Store } from '../../store/store.js';
import { defaultDbPath } from '../../store/paths.js';
import { CliError } from '../../errors.js';
import { ProbeRun, checkOutputs } from '../probe-run.js';
import { attributeFindings, gradeByChecker, renumber } from '../record.js';
import type { ProbeFinding, ScenarioResult } from '../report.js';
import { HANDSHAKE_ID } from './scenarios-requests.js';
import { type ClientProbeOptions, type ClientProbeRun, startClientProbe } from './agent.js';

export interface ProbeClientOptions {
  db?: string;
  report?: string;
  html?: string;
  only?: string[];
  timeoutMs?: number;
}

/** Runs the probe on stdio until the client disconnects. */
export async function runProbeClient(opts: ProbeClientOptions): Promise<void> {
  // Bad outputs and a database that cannot be opened are one-line errors before any ACP is spoken.
  checkOutputs({ report: opts.report, html: opts.html });
  if (opts.timeoutMs !== undefined && opts.timeoutMs < 1) throw new CliError('--timeout must be at least 1 ms', 2);
  const db = opts.db ?? defaultDbPath();
  Store.open(db).close();
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
 * Reports a battery run. First it grades every scenario in memory (its expectation, then the checker
 * over its exchange) and writes the JSON report, so that the verdict in the final message is the
 * report's and the report is on disk before the turn ends (a client may kill the probe right after:
 * acpx sends SIGKILL 1.5 s after SIGTERM). Then it ends the turn, keeps every scenario as a recording
 * (with the end of the turn in it) and writes the reports again with the recordings named.
 */
function reportRun(r: ClientProbeRun, endTurn: EndTurn, db: string, opts: ProbeClientOptions, log: (t: string) => void): void {
  const run = ProbeRun.open('client', db);
  const dbArg = opts.db ? ` --db ${JSON.stringify(resolve(opts.db))}` : '';
  const target = { name: r.target.name, version: r.target.version, command: null };
  try {
    const where = [
      ...(opts.report ? [`Report: ${resolve(opts.report)}`] : []),
      ...(opts.html ? [`HTML report: ${resolve(opts.html)}`] : []),
      `Probe run ${run.id}, one recording per scenario named "${run.recordingName('<scenario>')}" in ${resolve(db)}: `
        + `list them with \`acp-inspect list${dbArg} --search "${run.recordingName('')}"\`; \`acp-inspect serve${dbArg}\` shows the run's scorecard (?probe=${run.id}).`,
    ];
    const graded = r.scenarios.map((s) => gradeScenario(r, s));
    run.write(run.finish(target, graded), { report: opts.report });
    endTurn(where, graded);
    // One transaction for all the recordings.
    const results: ScenarioResult[] = run.store.db.transaction(() => r.scenarios.map((s, i) => {
      if (!s.ran) return graded[i]!;
      const { items, provoked } = scenarioItems(r, s.from, s.to);
      const rec = run.record(s.id, { items, provoked, provokes: provokedRules(s), command: null, cwd: r.cwd || null, startedAt: r.startedAt });
      return { ...graded[i]!, recording: rec.recordingId, findings: rec.findings.filter(ownFinding(r, s)), probeFindings: rec.probeFindings.filter(ownFinding(r, s)) };
    }))();
    const report = run.finish(target, results);
    run.write(report, { report: opts.report, html: opts.html });
    log(`acp-inspect probe client: ${report.verdict} (${report.counts.pass} passed, ${report.counts.fail} failed); ${where.join(' ')}`);
  } finally {
    run.close();
  }
}

type EndTurn = Parameters<ClientProbeOptions['onRunEnd']>[1];

/** A scenario graded by its expectation and by the checker over its exchange so far (no recording yet). */
export function gradeScenario(r: ClientProbeRun, s: ClientProbeRun['scenarios'][number]): ScenarioResult {
  const base: ScenarioResult = { id: s.id, title: s.title, tier: s.tier, status: s.status, spec: s.spec, quote: s.quote, why: s.why, recording: null, findings: [] };
  if (!s.ran) return base;
  const { items, provoked } = scenarioItems(r, s.from, s.to);
  const all = checkItems(items).map((f): ProbeFinding => ({ seq: f.seq, severity: f.severity, rule: f.rule, message: f.message, spec: f.spec }));
  const { target, probe } = attributeFindings(all, provoked, provokedRules(s));
  const findings = target.filter(ownFinding(r, s));
  const durationMs = Math.round((r.items[s.to - 1]?.t ?? 0) - (r.items[s.from]?.t ?? 0));
  return { ...base, ...gradeByChecker(s, findings), findings, probeFindings: probe.filter(ownFinding(r, s)), ...(s.to > s.from ? { durationMs } : {}) };
}

/** The handshake every recording starts with is graded once, by its own scenario. */
const ownFinding = (r: ClientProbeRun, s: { id: string }) => (f: ProbeFinding): boolean => s.id === HANDSHAKE_ID || f.seq > r.handshake + 1;

const provokedRules = (s: { provokes?: readonly string[] }): string[] => [...(s.provokes ?? []), ...PROBE_RULES];

/**
 * Rules about the agent's side that only the probe can break, and only when the client made it: a
 * turn it ends while a request to the client is still unanswered (the client did not answer in time,
 * which its scenario already fails).
 */
const PROBE_RULES = ['turn-ended-with-pending-requests'];

/**
 * The items of one scenario's recording: the handshake (initialize, session/new), the prompt of its
 * turn, the scenario's own lines with the answers to its requests, and the end of the turn, numbered
 * from 1 and correlated afresh; `provoked` renumbered with them.
 */
export function scenarioItems(r: ClientProbeRun, from: number, to: number): { items: Item[]; provoked: Set<number> } {
  const prompt = r.prompt >= 0 ? [r.items[r.prompt]!] : [];
  // A late answer belongs with its request: one that came in a later scenario (after a timeout) is
  // taken into this one, and one in this range to an earlier scenario's request is left out.
  const answers = (it: Item, lo: number, hi: number): boolean => {
    const to = (it as { replyTo?: number }).replyTo;
    return to !== undefined && to - 1 >= lo && to - 1 < hi;
  };
  const own = r.items.slice(from, to).filter((it) => (it as { replyTo?: number }).replyTo === undefined || answers(it, from, to) || answers(it, 0, r.handshake));
  const late = r.items.slice(to, r.tail.from > to ? r.tail.from : r.items.length).filter((it) => answers(it, from, to));
  const picked = [...r.items.slice(0, r.handshake), ...prompt, ...own, ...late, ...r.items.slice(r.tail.from, r.tail.to)];
  const { items, provoked } = renumber(picked, r.provoked);
  // A turn the client left before it ended: the prompt it never got an answer to is not its fault.
  if (r.prompt >= 0 && r.tail.to === r.tail.from) provoked.add(r.handshake + 1);
  return { items, provoked };
}
