/**
 * Keeps a scenario's exchange as an ordinary recording in the store (named after the probe run and
 * the scenario, so it lists, shows and exports like any other), checks it with the full checker,
 * stores every finding with it, and splits them: the findings the probe's deliberate provocations
 * caused are the probe's, the rest are the target's.
 */
import type { Item } from '../wire/frame.js';
import { peerInfoOf } from '../wire/peer-info.js';
import type { Store } from '../store/store.js';
import { checkItems } from '../check/checker.js';
import { Correlator } from '../wire/correlate.js';
import { frameFromText } from '../wire/make-frame.js';
import type { ProbeFinding, ProbeKind, ScenarioResult } from './report.js';
import { quoteOfFinding, tierOfFinding } from './grounds.js';

export interface ScenarioExchange {
  /** Recording name, e.g. "probe agent #3: cancel-mid-turn". */
  name: string;
  items: Item[];
  /** Seqs of the frames the probe sent as provocations. */
  provoked: ReadonlySet<number>;
  /** Rule ids the scenario's provocations are expected to trigger (the probe's wherever they are). */
  provokes?: readonly string[];
  /** Seq where what the scenario is about begins: the target's findings before it are ambient (default 0: none is). */
  focusFrom?: number;
  command: string[] | null;
  cwd: string | null;
  startedAt: string;
  pid?: number | null;
  exitCode?: number | null;
  exitSignal?: string | null;
  /** Header fields naming the probe run (kept in the transcript header). */
  probe: { kind: ProbeKind; run: number; scenario: string };
}

export interface RecordedScenario {
  recordingId: number;
  /** The target's findings. */
  findings: ProbeFinding[];
  /** The probe's (caused by its provocations). */
  probeFindings: ProbeFinding[];
  /** The target's findings before the focus (ambient: the handshake, the session's creation). */
  ambient: ProbeFinding[];
}

/**
 * Items picked from a longer exchange (the handshake, then one scenario's part of a connection
 * several scenarios shared), renumbered from 1 as an exchange of their own: frames are made again so
 * that answers point at their requests' new seqs. Returns the provoked seqs and each old seq's new one.
 */
export function renumber(picked: readonly Item[], provoked: ReadonlySet<number>): { items: Item[]; provoked: Set<number>; seqOf: Map<number, number> } {
  const correlator = new Correlator();
  const out = new Set<number>();
  const seqOf = new Map<number, number>();
  const items = picked.map((it, i): Item => {
    const seq = i + 1;
    seqOf.set(it.seq, seq);
    if (it.dir !== 'c2a' && it.dir !== 'a2c') return { ...it, seq };
    const f = frameFromText(seq, it.t, it.dir, it.raw, it.size);
    correlator.observe(f);
    if (provoked.has(it.seq)) out.add(seq);
    return f;
  });
  return { items, provoked: out, seqOf };
}

/** Splits checker findings into the target's and the probe's. Pure. */
export function attributeFindings(findings: readonly ProbeFinding[], provoked: ReadonlySet<number>, provokes: readonly string[] = []): { target: ProbeFinding[]; probe: ProbeFinding[] } {
  const target: ProbeFinding[] = [];
  const probe: ProbeFinding[] = [];
  for (const f of findings) (provoked.has(f.seq) || provokes.includes(f.rule) ? probe : target).push(f);
  return { target, probe };
}

/** Stores the exchange as a recording, checks it and stores its findings. */
export function recordScenario(store: Store, x: ScenarioExchange): RecordedScenario {
  const id = store.createRecording({
    name: x.name,
    startedAt: x.startedAt,
    status: 'running',
    command: x.command,
    cwd: x.cwd,
    header: { acpInspect: 'recording', version: 1, probe: x.probe },
  });
  store.appendItems(id, x.items);
  const all = checkItems(x.items).map((f): ProbeFinding => ({ seq: f.seq, severity: f.severity, rule: f.rule, message: f.message, spec: f.spec }));
  store.replaceFindings(id, all);
  const info = peerInfoOf(x.items);
  store.updateRecording(id, {
    status: 'complete',
    ended_at: new Date().toISOString(),
    exit_code: x.exitCode ?? null,
    exit_signal: x.exitSignal ?? null,
    pid: x.pid ?? null,
    client_name: info.clientName ?? null,
    client_version: info.clientVersion ?? null,
    agent_name: info.agentName ?? null,
    agent_version: info.agentVersion ?? null,
    protocol_version: info.protocolVersion ?? null,
  });
  const { target, probe } = attributeFindings(all, x.provoked, x.provokes);
  const focus = x.focusFrom ?? 0;
  return { recordingId: id, findings: target.filter((f) => f.seq >= focus), probeFindings: probe, ambient: target.filter((f) => f.seq < focus) };
}

/** The recording name of a scenario: "probe agent #RUN: SCENARIO". */
export function scenarioRecordingName(kind: ProbeKind, run: number, scenario: string): string {
  return `probe ${kind} #${run}: ${scenario}`;
}

/**
 * A scenario graded by the full checker after its own expectation: one that passed, or failed only on
 * a weaker tier, fails as required when the checker found an error of the target's in its exchange
 * that rests on a "must" (grounds.ts); a pass with only the checker's other errors fails as advisory;
 * an info notes it. Both probes grade so.
 */
export function gradeByChecker(s: { status: ScenarioResult['status']; why: string; tier?: ScenarioResult['tier'] }, findings: readonly ProbeFinding[]): Pick<ScenarioResult, 'status' | 'why'> & { tier?: ScenarioResult['tier']; quote?: string } {
  const errors = findings.filter((f) => f.severity === 'error');
  const must = errors.filter((f) => tierOfFinding(f) === 'required');
  const weakFail = s.status === 'fail' && (s.tier === 'advisory' || s.tier === 'info');
  if (!errors.length || (s.status !== 'pass' && s.status !== 'info' && !weakFail)) return { status: s.status, why: s.why };
  const e = must[0] ?? errors[0]!;
  const found = `the checker found ${e.rule} at #${e.seq} (spec ${e.spec}): ${e.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`;
  if (s.status === 'info') return { status: 'info', why: `${s.why}; ${found}` };
  if (!must.length) return weakFail ? { status: s.status, why: s.why } : { status: 'fail', why: found, tier: 'advisory', quote: quoteOfFinding(e) };
  return { status: 'fail', why: weakFail ? `${found}; and ${s.why}` : found, tier: 'required', quote: quoteOfFinding(e) };
}
