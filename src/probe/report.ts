/**
 * The probe report: the contract both probes (agent and client) print with `--json`, write with
 * `--report FILE`, keep in the store for the UI's scorecard and render as HTML. Pure: no IO.
 */

/**
 * How much a scenario's result weighs, from the spec's own words: *required* rests on a "must" or
 * "required" of the spec (or of JSON-RPC 2.0 itself), or on the spec's statement of what a method
 * does; *capability* is the same for a feature the target advertised; a "should" is *advisory*; where
 * the spec says "not shown", or puts the rule on the other peer, the result is *info*; UNSTABLE
 * methods and fields are *unstable* ("not part of the specification", 9 rule 5). Only required and
 * capability failures make a target not conformant.
 */
export type Tier = 'required' | 'capability' | 'advisory' | 'info' | 'unstable';
export type ScenarioStatus = 'pass' | 'fail' | 'skip' | 'info';
export type Verdict = 'conformant' | 'not conformant';
export type ProbeKind = 'agent' | 'client';

/** A checker finding, as `check --json` prints it. */
export interface ProbeFinding {
  seq: number;
  severity: 'error' | 'warning' | 'info';
  rule: string;
  message: string;
  spec: string;
}

export interface ScenarioResult {
  id: string;
  title: string;
  tier: Tier;
  status: ScenarioStatus;
  /** Section of the spec the scenario tests, e.g. "9 rule 2". */
  spec: string;
  /** The words of the spec (or of JSON-RPC 2.0) that this result's tier rests on. */
  quote?: string;
  /** One line: why it passed, failed or was skipped, or what was seen (info). */
  why: string;
  /** Id of the scenario's recording in the store (null when it did not run). */
  recording: number | null;
  /** The checker's findings over the exchange that are the target's (as `check --json`). */
  findings: ProbeFinding[];
  /** Findings the probe's deliberate provocations caused: the probe's, not the target's. */
  probeFindings?: ProbeFinding[];
  /** Wall time of the scenario (ms). */
  durationMs?: number;
  /** Ran on a process shared with other scenarios (after a handshake done once), not on its own. */
  sharedProcess?: boolean;
  /** For a failure: the command that exports it as a fixture reproducing it (its last prompt turn, or the whole exchange). */
  reproduce?: string;
}

/**
 * A finding of the target's outside what any scenario was about (the handshake, a session's
 * creation...): reported once for the run, however many scenarios' recordings show it, with the tier
 * its rule rests on (grounds.ts: an error on a "must" is required; the checker's other errors and its
 * warnings advisory; an info info).
 */
export interface AmbientFinding extends ProbeFinding {
  tier: Tier;
  /** The recording where it was first seen (its `seq` is in that one). */
  recording: number;
  /** The scenarios whose recordings show it. */
  scenarios: string[];
}

export interface ProbeTarget {
  name: string | null;
  version: string | null;
  command: string[] | null;
}

export interface ScenarioCounts {
  pass: number;
  fail: number;
  skip: number;
  info: number;
  total: number;
}

export interface ProbeReport {
  probe: ProbeKind;
  target: ProbeTarget;
  verdict: Verdict;
  counts: ScenarioCounts;
  scenarios: ScenarioResult[];
  /** Findings outside what the scenarios were about, once each (by rule). */
  ambient?: AmbientFinding[];
  /** With `--baseline FILE`: the known failures, the new ones (which fail the run) and the stale entries. */
  baseline?: { file: string; known: string[]; unexpected: string[]; stale: string[] };
  /** Id of the probe run in the store (the UI's scorecard: `?probe=ID`). */
  run?: number;
  /** The database the recordings are in. */
  db?: string;
  startedAt?: string;
  durationMs?: number;
  /** The agent's start-up and handshake, timed once (the `initialize` scenario, on its own process). */
  handshakeMs?: number;
  /** acp-inspect's version. */
  tool?: string;
}

export const TIERS: readonly Tier[] = ['required', 'capability', 'advisory', 'info', 'unstable'];

const deciding = (tier: Tier): boolean => tier === 'required' || tier === 'capability';

/** "not conformant" exactly when a required or capability scenario failed, or an ambient finding is required. */
export function verdictOf(scenarios: readonly ScenarioResult[], ambient: readonly AmbientFinding[] = []): Verdict {
  return scenarios.some((s) => s.status === 'fail' && deciding(s.tier)) || ambient.some((a) => deciding(a.tier)) ? 'not conformant' : 'conformant';
}


export function countScenarios(scenarios: readonly ScenarioResult[]): ScenarioCounts {
  const c: ScenarioCounts = { pass: 0, fail: 0, skip: 0, info: 0, total: scenarios.length };
  for (const s of scenarios) c[s.status]++;
  return c;
}

/** Builds the report from the scenario results (verdict and counts derived, never passed in). */
export function buildReport(probe: ProbeKind, target: ProbeTarget, scenarios: ScenarioResult[], extra: Pick<ProbeReport, 'run' | 'db' | 'startedAt' | 'durationMs' | 'tool' | 'ambient'> = {}): ProbeReport {
  return { probe, target, verdict: verdictOf(scenarios, extra.ambient), counts: countScenarios(scenarios), scenarios, ...extra };
}

/**
 * The exit code of a probe command: 0 conformant, 1 not conformant (2, could not run, is the CLI's);
 * with a baseline, 0 when every failure that decides is one the baseline lists.
 */
export function exitCodeOf(report: ProbeReport): 0 | 1 {
  if (report.baseline) return report.baseline.unexpected.length ? 1 : 0;
  return report.verdict === 'conformant' ? 0 : 1;
}

/** Checks the shape of a report read back (from the store or a file); returns why it is not one. */
export function reportProblem(v: unknown): string | undefined {
  const r = v as Partial<ProbeReport> | null;
  if (!r || typeof r !== 'object') return 'not an object';
  if (r.probe !== 'agent' && r.probe !== 'client') return 'no "probe" of agent or client';
  if (!Array.isArray(r.scenarios)) return 'no "scenarios" array';
  if (r.verdict !== 'conformant' && r.verdict !== 'not conformant') return 'no "verdict"';
  return undefined;
}

/** The ecosystem matrix of `probe agents` (src/probe/agents.ts): a column per agent, a row per scenario, each cell its recording. */
export interface MatrixCell {
  status: ScenarioStatus;
  tier: Tier;
  why: string;
  recording: number | null;
}

export interface MatrixColumn {
  id: string;
  name: string | null;
  version: string | null;
  verdict: Verdict | null;
  /** Why the agent could not be probed at all. */
  couldNotRun?: string;
  run?: number;
  durationMs?: number;
  handshakeMs?: number;
  cells: Record<string, MatrixCell>;
  /** Ambient findings by rule: their tier and recording. */
  ambient: Record<string, { tier: Tier; recording: number; message: string }>;
}

export interface Matrix {
  probe: 'agents';
  /** Its id in the store (the UI shows it at `?matrix=ID`). */
  id?: number;
  db: string;
  startedAt: string;
  scenarios: Array<{ id: string; tier: Tier; spec: string; title: string }>;
  agents: MatrixColumn[];
}
