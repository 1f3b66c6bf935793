/**
 * `probe agent`: runs the scenarios against an agent command, a few at once. A scenario that needs a
 * fresh agent process gets one (a crash stays that scenario's failure); the others take turns on their
 * worker's shared process, after a handshake done once. The `initialize` scenario runs first: what the agent
 * advertises there decides which capability scenarios apply. Each exchange becomes a recording of the
 * probe run, checked; a scenario passes when its own expectation holds and the checker finds no error
 * of the agent's among its own frames. Findings outside every scenario's frames are ambient: once
 * for the run.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CliError } from '../../errors.js';
import { ProbeRun, checkOutputs, type ProbeOutputs } from '../probe-run.js';
import { compareBaseline, readBaseline, writeBaseline } from '../baseline.js';
import { defaultDbPath } from '../../store/paths.js';
import type { Frame, Item } from '../../wire/frame.js';
import { type AmbientFinding, type ProbeFinding, type ProbeReport, type ScenarioResult } from '../report.js';
import { gradeByChecker, renumber } from '../record.js';
import { tierOfFinding } from '../grounds.js';
import { startAgent, type AgentProcess } from './agent-process.js';
import { installClientSide, type ClientSide } from './client-side.js';
import { Driver, ScenarioStop, fail, isObj, within, type AgentFacts, type AgentProbeSettings, type Handshake, type Outcome } from './driver.js';
import { AGENT_SCENARIOS, AGENT_SCENARIO_IDS, type AgentScenario } from './scenarios.js';

export { AGENT_SCENARIOS };

export interface ProbeAgentOptions {
  command: string[];
  db?: string;
  only?: string[];
  timeoutMs?: number;
  cwd?: string;
  auth?: string;
  parallel?: number;
  outputs?: ProbeOutputs;
  /** Known failures (a file --write-baseline wrote): the run fails only on others. */
  baseline?: string;
  /** Writes the run's failures as a baseline to this file. */
  writeBaseline?: string;
  /** Where the agent process starts (default: the current folder). */
  startIn?: string;
  env?: NodeJS.ProcessEnv;
  /** Told of each scenario as it ends (the CLI prints progress on a terminal). */
  onScenario?: (r: ScenarioResult, done: number, total: number) => void;
}

export const DEFAULT_TIMEOUT_MS = 15_000;
/** Scenarios at once: most of a scenario is waiting for the agent, so more than the cores. */
export const DEFAULT_PARALLEL = 6;

/** Runs the probe; throws CliError (exit 2) when it could not run at all. */
export async function probeAgent(opts: ProbeAgentOptions): Promise<{ report: ProbeReport; text?: string }> {
  if (!opts.command.length) throw new CliError('probe agent needs the agent command after --, e.g. acp-inspect probe agent -- npx my-agent', 2);
  const unknown = (opts.only ?? []).filter((id) => !AGENT_SCENARIO_IDS.includes(id));
  if (unknown.length) throw new CliError(`no scenario ${unknown.map((u) => JSON.stringify(u)).join(', ')}; the scenarios are: ${AGENT_SCENARIO_IDS.join(', ')}`, 2);
  if (opts.timeoutMs !== undefined && opts.timeoutMs < 1) throw new CliError('--timeout must be at least 1 ms', 2);
  checkOutputs(opts.outputs ?? {}, [['--write-baseline', opts.writeBaseline]]);
  const baseline = opts.baseline === undefined ? undefined : readBaseline(opts.baseline, 'agent', AGENT_SCENARIO_IDS);
  let scratch: string | undefined;
  let cwd: string;
  if (opts.cwd !== undefined) {
    cwd = resolve(opts.cwd);
    let isDir = false;
    try { isDir = statSync(cwd).isDirectory(); } catch { /* reported below */ }
    if (!isDir) throw new CliError(`--cwd ${opts.cwd} is not a folder; pass an existing folder`, 2);
  } else {
    scratch = mkdtempSync(join(tmpdir(), 'acp-inspect-probe-'));
    cwd = scratch;
    writeFileSync(join(cwd, 'probe-readme.txt'), 'pong\n');
  }
  const settings: AgentProbeSettings = { command: opts.command, cwd, timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, auth: opts.auth, startIn: opts.startIn };
  const run = ProbeRun.open('agent', opts.db);
  /** The initialize scenario's process until a pool takes it (ended below when none does). */
  let live: LiveProcess | undefined;
  try {
    // initialize first, always: it tells which scenarios apply.
    const init = AGENT_SCENARIOS.find((s) => s.id === 'initialize')!;
    // Its process is kept, when the shared scenarios can take it, so that they need one start-up fewer.
    const sharing = AGENT_SCENARIOS.some((s) => s.shared && (!opts.only || opts.only.includes(s.id)));
    const first = await runScenario(run, init, settings, undefined, opts.env, undefined, sharing);
    live = first.live;
    if (!first.facts && first.couldNotRun) throw new CliError(first.couldNotRun, 2);
    // Another version is the answer of an agent that does not support version 1 (9 rule 2): no defect,
    // and nothing this probe can test.
    const v = first.facts?.protocolVersion;
    if (v !== undefined && Number.isInteger(v) && v !== 1) {
      throw new CliError(`the agent answered initialize with protocol version ${v}: it does not support version 1, the only one this probe tests (9 rule 2)`, 2);
    }
    // Nothing else runs unless version 1 was negotiated (initialize then fails, saying why).
    const facts = first.facts?.protocolVersion === 1 ? first.facts : undefined;
    if (facts) {
      if (opts.auth && !facts.authMethods.some((m) => m.id === opts.auth)) {
        throw new CliError(`--auth ${opts.auth} is not an advertised authentication method (advertised: ${facts.authMethods.map((m) => m.id).join(', ') || 'none'})`, 2);
      }
    }
    const wanted = AGENT_SCENARIOS.filter((s) => s.id !== 'initialize' && (!opts.only || opts.only.includes(s.id)));
    const results = new Map<string, ScenarioResult>();
    const runs = new Map<string, ScenarioRun>([['initialize', first]]);
    // initialize is reported when asked for, and always when it failed (nothing else could run then).
    if (!opts.only || opts.only.includes('initialize') || first.result.status !== 'pass') results.set('initialize', first.result);
    const total = wanted.length + 1;
    let done = 0;
    const told = (r: ScenarioResult): void => opts.onScenario?.(r, ++done, total);
    told(gradeScenario(first, new Set()).result);
    // Each worker keeps one process for the scenarios that can share one (started when it first
    // runs one), so they run one after another on it; the others get a process each. The long ones
    // first (of each kind, see next), so that the short ones fill in around them.
    const queue = [...wanted.filter((s) => s.long), ...wanted.filter((s) => !s.long)];
    const nWorkers = Math.max(1, Math.min(opts.parallel ?? DEFAULT_PARALLEL, queue.length));
    const pools = facts ? Array.from({ length: nWorkers }, (_, w) => new SharedAgent(settings, facts, opts.env, (n, proc) => run.record(`shared process ${w + 1}${n > 1 ? `.${n}` : ''}`, {
      items: proc.conn.items, provoked: proc.conn.provoked, command: settings.command, cwd: settings.cwd, startedAt: run.startedAt,
      pid: proc.child.pid ?? null, exitCode: proc.exit?.code ?? null, exitSignal: proc.exit?.signal ?? null,
    }))) : [];
    if (live && pools[0]) {
      const kept = live;
      live = undefined;
      await pools[0].adopt(kept);
    }
    // The reopening scenarios that apply, when more than one does: their sessions share two processes (see Reopener).
    const reopening = facts ? queue.filter((s) => s.reopens && s.skipUnless?.(facts, settings) === undefined).map((s) => s.id) : [];
    const reopener = facts && reopening.length > 1 ? new Reopener(reopening, settings, facts, opts.env, (life, n, proc) => run.record(`reopened sessions' ${life} process${n > 1 ? ` ${n}` : ''}`, {
      items: proc.conn.items, provoked: proc.conn.provoked, command: settings.command, cwd: settings.cwd, startedAt: run.startedAt,
      pid: proc.child.pid ?? null, exitCode: proc.exit?.code ?? null, exitSignal: proc.exit?.signal ?? null,
    })) : undefined;
    const runOne = async (s: AgentScenario, w: number): Promise<void> => {
      if (!facts) {
        results.set(s.id, { ...blank(s, 'skip', ''), status: 'skip', why: 'initialize did not negotiate protocol version 1, so nothing else can run', recording: null, findings: [] });
        told(results.get(s.id)!);
        return;
      }
      const reason = s.skipUnless?.(facts, settings);
      if (reason !== undefined) {
        results.set(s.id, { ...blank(s, 'skip', ''), status: 'skip', why: reason, recording: null, findings: [] });
        told(results.get(s.id)!);
        return;
      }
      const paired = reopener?.ids.includes(s.id);
      const sr = await runScenario(run, s, settings, facts, opts.env, paired ? reopener : s.shared ? pools[w] : undefined).finally(() => paired && reopener!.done(s.id));
      runs.set(s.id, sr);
      // Told graded by what is known so far; the report grades again once every scenario ran.
      const r = gradeScenario(sr, ambientRules(runs)).result;
      results.set(s.id, r);
      told(r);
    };
    // A worker whose shared process runs takes the shared scenarios first; one that has none takes
    // those that start a process of their own first, so that a shared process is started only for
    // the shared scenarios still left when they are done: an agent's start-up is most of a run.
    const next = (w: number): AgentScenario | undefined => {
      const warm = !!pools[w]?.warm();
      const i = queue.findIndex((s) => !!s.shared === warm);
      return queue.splice(Math.max(i, 0), 1)[0];
    };
    const workers = Array.from({ length: nWorkers }, async (_, w) => {
      for (let s = next(w); s; s = next(w)) {
        if (!reopener?.ids.includes(s.id)) {
          await runOne(s, w);
          continue;
        }
        // The reopening scenarios run together, on one worker: each waits on the others for the
        // processes they share, so none may wait in the queue behind them.
        const group = reopener.ids.map((id) => AGENT_SCENARIOS.find((x) => x.id === id)!);
        for (const g of group) if (queue.includes(g)) queue.splice(queue.indexOf(g), 1);
        await Promise.all(group.map((g) => runOne(g, w)));
      }
    });
    await Promise.all(workers).finally(() => Promise.all([...pools, ...(reopener ? [reopener] : [])].map((p) => p.close())));
    // Graded now that the run's ambient findings are known: each once for the run.
    const rules = ambientRules(runs);
    const moved: Array<{ id: string; ambient: Array<ProbeFinding & { recording: number }> }> = [];
    for (const [id, sr] of runs) {
      if (!results.has(id)) continue;
      const g = gradeScenario(sr, rules);
      results.set(id, g.result);
      moved.push({ id, ambient: g.moved.map((f) => ({ ...f, recording: sr.result.recording! })) });
    }
    const ambient = ambientOf([...[...runs].map(([id, sr]) => ({ id, ambient: sr.ambient ?? [] })), ...moved]);
    const ordered = AGENT_SCENARIOS.map((s) => results.get(s.id)).filter((r): r is ScenarioResult => r !== undefined);
    const info = facts?.agentInfo;
    const report = run.finish({ name: info?.name ?? null, version: info?.version ?? null, command: opts.command }, ordered, ambient,
      (r) => {
        if (first.handshakeMs !== undefined) r.handshakeMs = first.handshakeMs;
        return baseline && compareBaseline(r, opts.baseline!, baseline);
      });
    if (opts.writeBaseline !== undefined) writeBaseline(opts.writeBaseline, report);
    return { report, text: run.write(report, opts.outputs ?? {}) };
  } catch (e) {
    run.abandon();
    throw e;
  } finally {
    if (live) {
      await live.proc.stop();
      live.client.dispose();
    }
    run.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

/** A process scenarios share, with its handshake done. */
interface SharedProcess {
  proc: AgentProcess;
  client: ClientSide;
  handshake: Handshake;
  /** Items of the handshake: the start of every shared scenario's recording. */
  handshakeEnd: number;
}

/**
 * The process the shared scenarios take turns on: started, and its handshake (initialize,
 * authenticate) done, when the first of them needs it, and again after one left it busy or it died.
 * When its handshake fails, `take` gives nothing and the scenario starts a process of its own (where
 * the failure is the scenario's to report).
 */
class SharedAgent {
  private current: SharedProcess | undefined;
  private kept = 0;
  private broken = false;
  /** Every process it started, so that none outlives the run whatever happened. */
  private readonly started = new Set<AgentProcess>();

  /** `keep` stores a shared process's whole exchange (the n-th this pool started) as a recording once it ends (its findings are its scenarios'). */
  constructor(private readonly settings: AgentProbeSettings, private readonly facts: AgentFacts, private readonly env: NodeJS.ProcessEnv | undefined,
    private readonly keep: (n: number, proc: AgentProcess) => void) {}

  /** Whether its process runs (a shared scenario needs no start-up here). */
  warm(): boolean {
    return !!this.current && !this.current.proc.exit;
  }

  async take(): Promise<SharedProcess | undefined> {
    if (this.current && !this.current.proc.exit) return this.current;
    this.current = undefined;
    if (this.broken) return undefined;
    this.current = await startShared(this.settings, this.facts, this.env, (p) => this.started.add(p));
    if (!this.current) this.broken = true;
    return this.current;
  }

  /**
   * Keeps a process whose `initialize` the initialize scenario did (and passed on, idle) as this
   * pool's first process, after `authenticate` when --auth asks for it, instead of starting another:
   * one agent start-up fewer. One it cannot use is ended; `take` then starts its own as before.
   */
  async adopt(live: LiveProcess): Promise<void> {
    const { proc, client, init } = live;
    this.started.add(proc);
    if (!this.current && !this.broken && !proc.exit) {
      const d = new Driver(() => ({ proc, client }), this.settings, this.facts, { fs: false, terminal: false }, async () => {});
      try {
        await d.authenticate();
        if (!proc.exit) {
          this.current = { proc, client, handshake: { init, authed: !!this.settings.auth }, handshakeEnd: proc.conn.items.length };
          return;
        }
      } catch { /* ended below; take() starts a process of its own, where a failure is reported as before */ }
    }
    await proc.stop();
    client.dispose();
  }

  /** After a scenario: ends the process when the scenario left it `busy`. */
  async release(busy: boolean): Promise<void> {
    if (!busy || !this.current) return;
    const { proc, client } = this.current;
    this.current = undefined;
    await proc.stop();
    client.dispose();
    this.keep(++this.kept, proc);
  }

  async close(): Promise<void> {
    await this.release(true);
    await Promise.all([...this.started].map((p) => p.stop()));
  }
}

/**
 * Starts an agent process for scenarios to share and does its handshake (initialize, authenticate);
 * undefined, the process ended, when the handshake fails (a scenario then starts a process of its
 * own, where the failure is its to report).
 */
async function startShared(settings: AgentProbeSettings, facts: AgentFacts, env: NodeJS.ProcessEnv | undefined, started: (p: AgentProcess) => void): Promise<SharedProcess | undefined> {
  const proc = startAgent(settings.command, { cwd: settings.startIn ?? process.cwd(), env, timeoutMs: settings.timeoutMs });
  started(proc);
  const client = installClientSide(proc.conn, { fs: false, terminal: false, cwd: settings.cwd });
  const d = new Driver(() => ({ proc, client }), settings, facts, { fs: false, terminal: false }, async () => {});
  try {
    const init = await d.initialize();
    await d.authenticate();
    return { proc, client, handshake: { init, authed: !!settings.auth }, handshakeEnd: proc.conn.items.length };
  } catch {
    await proc.stop();
    client.dispose();
    return undefined;
  }
}

/** A promise with its resolve, for the order the reopening scenarios keep. */
function signal(): { done: Promise<void>; set: () => void } {
  let set!: () => void;
  const done = new Promise<void>((r) => { set = r; });
  return { done, set };
}

/**
 * The two lives of the sessions that the reopening scenarios (session/load, session/resume) reopen,
 * when more than one of them runs: one process makes each scenario's session and its turn, one
 * scenario after the other; once every one is done with it, it is ended, and one new process (its
 * handshake done) reopens them, one scenario after the other. Two agent start-ups instead of two
 * each, and every session is still reopened only once the process that ran it is gone, as after an
 * editor's restart. A process one of them left busy (a request unanswered, a permission held) or
 * that died is not handed on: the next scenario gets another (or a process of its own).
 */
class Reopener {
  private life1: Promise<SharedProcess | undefined> | undefined;
  private life2: Promise<SharedProcess | undefined> | undefined;
  private readonly lives1: SharedProcess[] = [];
  private readonly started = new Set<AgentProcess>();
  private readonly spoiled = new Set<AgentProcess>();
  /** Per scenario: done with the first process; done altogether. */
  private readonly firstDone = new Map<string, ReturnType<typeof signal>>();
  private readonly finished = new Map<string, ReturnType<typeof signal>>();
  private readonly recorded = { first: 0, second: 0 };

  /** `keep` stores a process's whole exchange as a recording once it ends (the n-th of its life: one, unless one was left busy). */
  constructor(readonly ids: readonly string[], private readonly settings: AgentProbeSettings, private readonly facts: AgentFacts, private readonly env: NodeJS.ProcessEnv | undefined,
    private readonly keep: (life: 'first' | 'second', n: number, proc: AgentProcess) => void) {
    for (const id of ids) {
      this.firstDone.set(id, signal());
      this.finished.set(id, signal());
    }
  }

  private before(id: string): string[] {
    return this.ids.slice(0, this.ids.indexOf(id));
  }

  private start(): Promise<SharedProcess | undefined> {
    return startShared(this.settings, this.facts, this.env, (p) => this.started.add(p));
  }

  /** The first process, for scenario `id` to make its session on, once the scenarios before it are done with it. */
  async first(id: string): Promise<SharedProcess | undefined> {
    await Promise.all(this.before(id).map((b) => this.firstDone.get(b)!.done));
    const had = this.life1 && await this.life1;
    if (!this.life1 || (had && !this.usable(had))) {
      this.life1 = this.start();
      const l = await this.life1;
      if (l) this.lives1.push(l);
    }
    const l = await this.life1;
    return l && this.usable(l) ? l : undefined;
  }

  /**
   * Scenario `id` is done with the first process: once every scenario is, the first process is ended
   * and the second started; it is given to `id` once the scenarios before it are done altogether.
   */
  async second(id: string): Promise<SharedProcess | undefined> {
    this.firstDone.get(id)!.set();
    await Promise.all([...this.firstDone.values()].map((x) => x.done));
    this.life2 ??= this.endFirst().then(() => this.start());
    const l = await this.life2;
    await Promise.all(this.before(id).map((b) => this.finished.get(b)!.done));
    return l && this.usable(l) ? l : undefined;
  }

  /** A scenario left this process busy (a request unanswered, a permission held, its time up): not handed on. */
  spoil(proc: AgentProcess): void {
    this.spoiled.add(proc);
  }

  /** Whether a process can be handed to the next scenario: alive, nothing waiting on either side. */
  private usable(l: SharedProcess): boolean {
    return !this.spoiled.has(l.proc) && !l.proc.exit && l.proc.conn.pending === 0 && l.client.held.length === 0;
  }

  /** Scenario `id` ended (its recording made), wherever it ran. */
  done(id: string): void {
    this.firstDone.get(id)!.set();
    this.finished.get(id)!.set();
  }

  private async endFirst(): Promise<void> {
    for (const l of this.lives1.splice(0)) await this.end('first', l);
  }

  private async end(life: 'first' | 'second', l: SharedProcess): Promise<void> {
    l.client.cancelHeld();
    await l.proc.stop();
    l.client.dispose();
    this.keep(life, ++this.recorded[life], l.proc);
  }

  async close(): Promise<void> {
    await this.endFirst();
    const l2 = this.life2 && await this.life2;
    if (l2) await this.end('second', l2);
    await Promise.all([...this.started].map((p) => p.stop()));
  }
}

/** Rules seen outside the focus of any scenario so far. */
const ambientRules = (runs: ReadonlyMap<string, ScenarioRun>): Set<string> => new Set([...runs.values()].flatMap((r) => (r.ambient ?? []).map((f) => f.rule)));

function factsOf(result: Record<string, unknown>): AgentFacts {
  return {
    protocolVersion: typeof result.protocolVersion === 'number' ? result.protocolVersion : NaN,
    agentCapabilities: isObj(result.agentCapabilities) ? result.agentCapabilities : {},
    authMethods: Array.isArray(result.authMethods) ? result.authMethods.filter(isObj).filter((m) => typeof m.id === 'string').map((m) => ({ id: m.id as string, name: typeof m.name === 'string' ? m.name : undefined })) : [],
    agentInfo: isObj(result.agentInfo) ? { name: typeof result.agentInfo.name === 'string' ? result.agentInfo.name : undefined, version: typeof result.agentInfo.version === 'string' ? result.agentInfo.version : undefined } : undefined,
  };
}

/** Runs one scenario in its own agent process, records it and grades it. */
async function runScenario(run: ProbeRun, s: AgentScenario, settings: AgentProbeSettings, facts: AgentFacts | undefined, env?: NodeJS.ProcessEnv,
  pool?: SharedAgent | Reopener, keepAlive = false): Promise<ScenarioRun> {
  const startedAt = new Date().toISOString();
  const caps = { fs: !!s.client?.fs, terminal: !!s.client?.terminal, permission: s.client?.permission };
  const reopener = pool instanceof Reopener ? pool : undefined;
  // A shared process (its handshake done), when the scenario takes one and one could be started: its
  // worker's, or (a reopening scenario) the first of the reopened sessions' two processes.
  let shared = pool && (await (reopener ? reopener.first(s.id) : (pool as SharedAgent).take()));
  const t0 = performance.now();
  let from = 0;
  const onShared = (next: SharedProcess | undefined): void => {
    shared = next;
    from = next ? next.proc.conn.items.length : 0;
    if (next) next.proc.conn.focusFrom = undefined;
  };
  onShared(shared);
  // The process starts where the probe was started, as an editor starts it in the project, so a
  // relative command (`node my-agent.js`) works; the session folder is what session/new names.
  const launch = (): { proc: AgentProcess; client: ClientSide; handshake?: Handshake } => {
    if (shared) return shared;
    const proc = startAgent(settings.command, { cwd: settings.startIn ?? process.cwd(), env, timeoutMs: settings.timeoutMs });
    return { proc, client: installClientSide(proc.conn, { fs: caps.fs, terminal: caps.terminal, cwd: settings.cwd }) };
  };
  /** The scenario's exchange: its process's, or on a shared one the handshake and its own part, renumbered. */
  const exchange = (proc: AgentProcess): { items: Item[]; provoked: ReadonlySet<number>; focusFrom: number } => {
    const c = proc.conn;
    if (!shared || proc !== shared.proc) return { items: c.items, provoked: c.provoked, focusFrom: c.focusFrom ?? Infinity };
    // What the agent still says about an earlier scenario's sessions (a tool call that outlived its
    // turn, a late permission request) and the probe's answers to it are that scenario's business, not
    // this one's: left out here (the shared process's own recording keeps every line).
    const earlier = new Set(c.items.slice(shared.handshakeEnd, from).flatMap((i) => ('sessionId' in i && i.sessionId !== undefined ? [i.sessionId] : [])));
    const dropped = new Set<number>();
    const own = c.items.slice(from).filter((i) => {
      const theirs = ('sessionId' in i && i.sessionId !== undefined && earlier.has(i.sessionId)) || ('replyTo' in i && i.replyTo !== undefined && dropped.has(i.replyTo));
      if (theirs) dropped.add(i.seq);
      return !theirs;
    });
    const r = renumber([...c.items.slice(0, shared.handshakeEnd), ...own], c.provoked);
    return { items: r.items, provoked: r.provoked, focusFrom: (c.focusFrom !== undefined ? r.seqOf.get(c.focusFrom) : undefined) ?? Infinity };
  };
  const record = (name: string, proc: AgentProcess) => run.record(name, {
    // Before the scenario's first frame of its own, the findings are ambient; a process that ran only setup is all ambient.
    ...exchange(proc), provokes: s.provokes, command: settings.command, cwd: settings.cwd, startedAt,
    pid: proc.child.pid ?? null, exitCode: proc.exit?.code ?? null, exitSignal: proc.exit?.signal ?? null,
  });
  // A process the scenario is done with (before a restart) is kept as the scenario's setup recording.
  let setups = 0;
  const ambient: Array<ProbeFinding & { recording: number }> = [];
  const retire = async (proc: AgentProcess, client: ClientSide): Promise<void> => {
    // The first of the reopened sessions' processes is ended by the reopener once every reopening
    // scenario is done with it; the next process is its second (or, when that cannot be had, one of
    // the scenario's own).
    const firstLife = reopener && shared && proc === shared.proc;
    if (!firstLife) {
      client.cancelHeld();
      await proc.stop();
      client.dispose();
    }
    const setup = record(`${s.id} (setup${++setups > 1 ? ` ${setups}` : ''})`, proc);
    ambient.push(...setup.ambient.map((f) => ({ ...f, recording: setup.recordingId })));
    onShared(firstLife ? await reopener.second(s.id) : undefined);
  };
  const d = new Driver(launch, settings, facts, caps, retire);
  // A scenario never takes longer than a few turns' worth; then it fails instead of hanging the run.
  const limitMs = d.turnTimeout() * 3;
  let outcome: Outcome;
  let unfinished = false;
  try {
    outcome = await within(s.run(d), limitMs, undefined) ?? (unfinished = true, fail(`the scenario did not finish in ${limitMs} ms`));
  } catch (e) {
    outcome = e instanceof ScenarioStop ? e.outcome : fail(`the probe failed: ${(e as Error).message}`);
  }
  const { proc, client } = d;
  const crashed = proc.exit && !proc.exit.stoppedByProbe ? proc.exit : undefined;
  // The initialize scenario's process, when it passed and is idle on its first process: kept running
  // for the shared scenarios (the caller hands it over or ends it). Its recording is this scenario's
  // exchange up to here, as with a process of its own.
  const initReplyNow = keepAlive ? proc.conn.received().find((f) => f.kind === 'result' && f.method === 'initialize') : undefined;
  const live: LiveProcess | undefined = keepAlive && outcome.status === 'pass' && !unfinished && !proc.exit && !proc.spawnError && setups === 0
    && proc.conn.pending === 0 && client.held.length === 0 && initReplyNow && isObj(initReplyNow.json) && isObj(initReplyNow.json.result)
    ? { proc, client, init: initReplyNow.json.result } : undefined;
  if (live) {
    // left running: handed over to a shared pool by the caller
  } else if (shared && proc === shared.proc) {
    // Kept for the next scenario, unless this one left it busy (a request still waiting, a
    // permission held) or it is gone: then it is ended, and the next one gets a new process.
    const busy = unfinished || proc.conn.pending > 0 || client.held.length > 0 || !!proc.exit;
    client.cancelHeld();
    // The reopener ends its processes itself, once every reopening scenario is done.
    if (!reopener) await (pool as SharedAgent).release(busy);
    else if (busy) reopener.spoil(proc);
  } else {
    client.cancelHeld();
    await proc.stop();
    client.dispose();
  }
  if (proc.spawnError) return { result: blank(s, 'fail', proc.spawnError), couldNotRun: proc.spawnError };

  let newFacts: AgentFacts | undefined;
  let handshakeMs: number | undefined;
  let couldNotRun: string | undefined;
  if (s.id === 'initialize') {
    const initReply = proc.conn.received().find((f) => f.kind === 'result' && f.method === 'initialize');
    if (initReply && isObj(initReply.json) && isObj(initReply.json.result)) newFacts = factsOf(initReply.json.result);
    // The handshake, timed once: from the spawn to initialize's answer (the agent's start-up included).
    if (initReply) handshakeMs = Math.round(initReply.t);
    else if (!crashed && !proc.spawnError && !proc.conn.received().some((f) => f.kind === 'result' || f.kind === 'error')) {
      // No answer in the time given, the process still running: a slow start-up (a loaded machine, a
      // cold cache) looks the same as none, so the probe says it could not run rather than grade it.
      couldNotRun = `the agent did not answer initialize within ${d.startTimeout()} ms of its start (its start-up included); if it starts slowly, give it a longer --timeout`;
    } else if (crashed && !proc.conn.received().some((f) => f.kind === 'result' || f.kind === 'error')) {
      // Exited without answering anything: what it wrote instead (`probe agent -- ls`) says why.
      const tail = proc.stderrReason();
      const junk = proc.conn.received().find((f) => f.kind === 'invalid');
      couldNotRun = `the agent exited (${crashed.signal ?? `code ${crashed.code}`}) before answering initialize`
        + (junk ? `; its stdout is not ACP (first line: ${JSON.stringify(junk.raw.slice(0, 80))})` : '')
        + (tail ? `: ${tail.slice(0, 200)}` : '');
    }
  }
  // An exit the outcome already accounts for (graded on its own words) stays as the outcome says.
  if (crashed && outcome.status !== 'fail' && !outcome.tier) {
    outcome = fail(`the agent exited (${crashed.signal ?? `code ${crashed.code}`}) during the scenario${proc.stderrReason() ? `: ${proc.stderrReason()!.slice(0, 120)}` : ''}`);
  }
  const x = exchange(proc);
  const recorded = record(s.id, proc);
  ambient.push(...recorded.ambient.map((f) => ({ ...f, recording: recorded.recordingId })));
  return {
    result: { ...blank(s, outcome.status, outcome.why), tier: outcome.tier ?? s.tier, quote: outcome.quote ?? s.quote, recording: recorded.recordingId, findings: recorded.findings, probeFindings: recorded.probeFindings, durationMs: Math.round(performance.now() - t0), ...(shared ? { sharedProcess: true } : {}) },
    ungraded: outcome,
    fixture: fixtureCommand(run, recorded.recordingId, x.items.filter((i): i is Frame => i.dir === 'c2a' || i.dir === 'a2c')),
    ambient,
    facts: newFacts,
    handshakeMs,
    couldNotRun,
    ...(live ? { live } : {}),
  };
}

/** The initialize scenario's process, left running for the shared scenarios (its handshake done). */
interface LiveProcess {
  proc: AgentProcess;
  client: ClientSide;
  /** initialize's result on it. */
  init: Record<string, unknown>;
}

/** What a scenario left: its result before the checker's grading, and the findings outside its focus. */
interface ScenarioRun {
  /** The initialize scenario's process, still running, when it was asked to be kept and could be. */
  live?: LiveProcess;
  result: ScenarioResult;
  /** Its own outcome, before the checker's say (graded once the run's ambient findings are known). */
  ungraded?: Outcome;
  fixture?: string;
  ambient?: Array<ProbeFinding & { recording: number }>;
  facts?: AgentFacts;
  /** initialize's answer, ms after the spawn (the initialize scenario). */
  handshakeMs?: number;
  couldNotRun?: string;
}

/**
 * Grades a scenario by the checker once the run is over. A rule that shows outside the focus of any
 * scenario (the handshake, a session's creation) is ambient for the whole run: reported once, never
 * a scenario's failure, even where it shows inside one's focus (an update sent before the
 * `session/new` answer fails no scenario that opens a session for its own purpose).
 */
export function gradeScenario(sr: ScenarioRun, ambientRules: ReadonlySet<string>): { result: ScenarioResult; moved: ProbeFinding[] } {
  if (!sr.ungraded) return { result: sr.result, moved: [] };
  const own = sr.result.findings.filter((f) => !ambientRules.has(f.rule));
  const moved = sr.result.findings.filter((f) => ambientRules.has(f.rule));
  const scenarioTier = sr.result.tier;
  const o = { ...sr.ungraded, ...gradeByChecker({ ...sr.ungraded, tier: scenarioTier }, own) };
  const result: ScenarioResult = { ...sr.result, status: o.status, why: o.why, tier: o.tier ?? scenarioTier, quote: o.quote ?? sr.result.quote, findings: own };
  if (o.status === 'fail' && sr.fixture) result.reproduce = sr.fixture;
  return { result, moved };
}

/** The run's ambient findings, once per rule, with the scenarios whose recordings show them. */
export function ambientOf(runs: ReadonlyArray<{ id: string; ambient: ReadonlyArray<ProbeFinding & { recording: number }> }>): AmbientFinding[] {
  const byRule = new Map<string, AmbientFinding>();
  for (const r of runs) {
    for (const f of r.ambient) {
      const a = byRule.get(f.rule);
      if (!a) byRule.set(f.rule, { ...f, tier: tierOfFinding(f), scenarios: [r.id] });
      else if (!a.scenarios.includes(r.id)) a.scenarios.push(r.id);
    }
  }
  return [...byRule.values()];
}

/** `acp-inspect export` of a failed scenario's last prompt turn (or its whole exchange) as a fixture. */
function fixtureCommand(run: ProbeRun, recording: number, frames: Frame[]): string {
  const prompt = frames.filter((f) => f.dir === 'c2a' && f.kind === 'request' && f.method === 'session/prompt').pop();
  const db = resolve(run.store.path) === resolve(defaultDbPath()) ? '' : ` --db ${shellQuote(run.store.path)}`;
  return `acp-inspect export ${recording}${prompt ? ` --turn ${prompt.seq}` : ''}${db} -o probe-${recording}.jsonl`;
}

const shellQuote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

function blank(s: AgentScenario, status: ScenarioResult['status'], why: string): ScenarioResult {
  return { id: s.id, title: s.title, tier: s.tier, spec: s.spec, quote: s.quote, status, why, recording: null, findings: [] };
}
