/**
 * What a scenario drives: one agent process behind a ProbeConnection (the probe as the client),
 * with the usual steps (initialize, authenticate, session/new, a prompt) as helpers that stop the
 * scenario with a clear `fail` or `skip` when a step it depends on does not work.
 */
import type { Frame } from '../../wire/frame.js';
import type { Tier } from '../report.js';
import { CONVERSATION_UPDATES } from '../../spec/transitions.js';
import { describeReply, errorCode, updateKind, type ProbeConnection, type Reply, type SendOptions } from '../connection.js';
import type { AgentProcess } from './agent-process.js';
import type { ClientSide, PermissionPolicy } from './client-side.js';

/** What the agent said about itself in the first `initialize` (the `initialize` scenario). */
export interface AgentFacts {
  protocolVersion: number;
  agentCapabilities: Record<string, unknown>;
  authMethods: Array<{ id: string; name?: string }>;
  agentInfo?: { name?: string; version?: string };
}

export interface AgentProbeSettings {
  command: string[];
  /** The session folder (absolute). */
  cwd: string;
  /** Where the agent process starts (default: the current folder, as an editor starts it in the project). */
  startIn?: string;
  /** ms to wait for each answer. */
  timeoutMs: number;
  /** Advertised authentication method to use. */
  auth?: string;
}

/** A scenario's result before the checker's say. */
export interface Outcome {
  status: 'pass' | 'fail' | 'skip' | 'info';
  why: string;
  /** The tier this result is graded at, when a part of the scenario rests on other words than the scenario's (with `quote`). */
  tier?: Tier;
  /** The spec's words for `tier`. */
  quote?: string;
}

/** Thrown by a helper to end the scenario with this outcome. */
export class ScenarioStop extends Error {
  constructor(readonly outcome: Outcome) {
    super(outcome.why);
  }
}

export const pass = (why: string): Outcome => ({ status: 'pass', why });
export const fail = (why: string): Outcome => ({ status: 'fail', why });
export const skip = (why: string): Outcome => ({ status: 'skip', why });
export const info = (why: string): Outcome => ({ status: 'info', why });
/** A result graded on other words of the spec than its scenario's (a "should" inside a "must" scenario...). */
export const graded = (o: Outcome, tier: Tier, quote: string): Outcome => ({ ...o, tier, quote });

export const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Extra ms the first answer of an agent process may take, for the process to start. */
export const START_ALLOWANCE_MS = 10_000;

/** The probe's own clientInfo. */
export const PROBE_CLIENT_INFO = { name: 'acp-inspect-probe', title: 'acp-inspect probe', version: '1' };

export interface SessionInfo {
  sessionId: string;
  result: Record<string, unknown>;
}

/**
 * The handshake already done on a process that scenarios share: `initialize`'s result, and whether
 * `authenticate` succeeded. A scenario on it skips those steps (initialize is once per connection).
 */
export interface Handshake {
  init: Record<string, unknown>;
  authed: boolean;
}

/** Starts a new agent process for the scenario (or hands over a shared one), with its client side installed. */
export type Launch = () => { proc: AgentProcess; client: ClientSide; handshake?: Handshake };

export class Driver {
  proc: AgentProcess;
  conn: ProbeConnection;
  client: ClientSide;
  /** Set on a shared process whose handshake is done. */
  handshake: Handshake | undefined;

  /**
   * `launch` starts an agent process (the first one at once); `retire` stops one the scenario is done
   * with and keeps its exchange (see `restart`).
   */
  constructor(private readonly launch: Launch, readonly settings: AgentProbeSettings, readonly facts: AgentFacts | undefined,
    private readonly caps: { fs: boolean; terminal: boolean; permission?: PermissionPolicy }, private readonly retire: (proc: AgentProcess, client: ClientSide) => Promise<void>) {
    ({ proc: this.proc, client: this.client, handshake: this.handshake } = launch());
    this.conn = this.proc.conn;
  }

  /**
   * Stops this agent process (its exchange is kept as the scenario's setup recording) and starts a
   * new one: for what a new connection does with what the last one stored (load, resume).
   */
  async restart(): Promise<void> {
    await this.retire(this.proc, this.client);
    ({ proc: this.proc, client: this.client, handshake: this.handshake } = this.launch());
    this.conn = this.proc.conn;
  }

  request(method: string, params: unknown, opts?: SendOptions): Promise<Reply> {
    return this.conn.request(method, params, opts);
  }

  /** The client capabilities this scenario advertises. */
  clientCapabilities(): Record<string, unknown> {
    return { fs: { readTextFile: this.caps.fs, writeTextFile: this.caps.fs }, terminal: this.caps.terminal };
  }

  /** A setup step's request: findings around it are ambient, not the scenario's (see ProbeConnection.focusFrom). */
  private setupRequest(method: string, params: unknown, opts?: SendOptions): Promise<Reply> {
    return this.conn.asSetup(() => this.request(method, params, opts));
  }

  /**
   * `initialize` with protocol version 1 (or `version`); stops the scenario when it gets no result.
   * A setup step, unless `own` (the scenario is about the handshake itself).
   */
  async initialize(version = 1, opts: SendOptions = {}, own = false): Promise<Record<string, unknown>> {
    if (this.handshake && !own && version === 1) return this.handshake.init;
    const params = { protocolVersion: version, clientCapabilities: this.clientCapabilities(), clientInfo: PROBE_CLIENT_INFO };
    const r = await (own ? this.request : this.setupRequest).call(this, 'initialize', params, { timeoutMs: this.startTimeout(), ...opts });
    // A new process of a scenario that is not about the handshake, slower to start than the time given
    // (the agent answered initialize in the initialize scenario): a slow start-up, not what the scenario provokes.
    if (!own && r.timeout && !this.proc.exit) {
      throw new ScenarioStop(skip(`not graded: this scenario's own process did not answer initialize within ${this.startTimeout()} ms of its start (a slow start-up; give it a longer --timeout)`));
    }
    if (!isObj(r.result)) throw new ScenarioStop(fail(`initialize got ${describeReply(r)}${this.exitNote()}`));
    return r.result;
  }

  /** `authenticate` with the `--auth` method, when one was given. */
  async authenticate(): Promise<void> {
    if (!this.settings.auth || this.handshake?.authed) return;
    const r = await this.setupRequest('authenticate', { methodId: this.settings.auth });
    if (r.result === undefined) throw new ScenarioStop(fail(`authenticate with ${this.settings.auth} got ${describeReply(r)}`));
  }

  /** `session/new` in the session folder; stops with skip when authentication is needed and no --auth was given. */
  async newSession(opts: SendOptions = {}): Promise<SessionInfo> {
    const r = await this.setupRequest('session/new', { cwd: this.settings.cwd, mcpServers: [] }, opts);
    if (errorCode(r) === -32000 && !this.settings.auth) {
      const ids = this.facts?.authMethods.map((m) => m.id).join(', ') || 'none advertised';
      throw new ScenarioStop(skip(`session/new needs authentication (-32000); pass --auth METHOD_ID (advertised: ${ids})`));
    }
    if (!isObj(r.result) || typeof r.result.sessionId !== 'string') throw new ScenarioStop(fail(`session/new got ${describeReply(r)}${this.exitNote()}`));
    return { sessionId: r.result.sessionId, result: r.result };
  }

  /** initialize, authenticate (with --auth), session/new. */
  async ready(): Promise<SessionInfo> {
    await this.initialize();
    await this.authenticate();
    return this.newSession();
  }

  /** Sends `session/prompt` (the session's permission requests then get the scenario's policy); the promise resolves with its answer. */
  prompt(sessionId: string, prompt: unknown[], opts: SendOptions = {}): Promise<Reply> {
    this.client.newTurn(sessionId, this.caps.permission ?? 'allow');
    return this.request('session/prompt', { sessionId, prompt }, { timeoutMs: this.turnTimeout(), ...opts });
  }

  /**
   * Sends `session/cancel` for the session's turn; from then on the probe answers each permission
   * request of that turn `cancelled`, those already pending and those still to come.
   */
  cancel(sessionId: string, opts: SendOptions = {}): void {
    this.conn.notify('session/cancel', { sessionId }, opts);
    this.client.cancelTurn(sessionId);
  }

  /** The first answer of a new process also waits for the process to start (npx, a cold cache, a loaded machine). */
  startTimeout(): number {
    return this.settings.timeoutMs + START_ALLOWANCE_MS;
  }

  /** How long a whole turn may take: a model may think; several answers' worth. */
  turnTimeout(): number {
    return this.settings.timeoutMs * 4;
  }

  /**
   * The first sign that a turn of `sessionId` runs: one of its conversation updates (a message,
   * thought, tool call or plan), or a request of the session to the client (a permission asked
   * before any update); undefined after a turn's time or when the agent is gone. A session-level
   * update (available commands, mode, config...) is not one: an agent may send it before the turn starts.
   */
  turnRunning(sessionId: string): Promise<Frame | undefined> {
    return this.conn.waitFor((f) => f.sessionId === sessionId && (f.kind === 'request' || (f.kind === 'notification' && isTurnUpdate(f))), this.turnTimeout());
  }

  /** The next request from the agent with this method, or undefined. */
  nextRequest(method: string, timeoutMs = this.settings.timeoutMs): Promise<Frame | undefined> {
    return this.conn.waitFor((f) => f.kind === 'request' && f.method === method, timeoutMs);
  }

  /** ", and the agent exited (code 1): <stderr>" when it did. */
  exitNote(): string {
    const x = this.proc.exit;
    if (!x || x.stoppedByProbe) return '';
    const tail = this.proc.stderrReason();
    return `; the agent exited (${x.signal ?? `code ${x.code}`})${tail ? `: ${tail.slice(0, 120)}` : ''}`;
  }
}

/**
 * An update that belongs to a turn or to the conversation's history (the checker's conversation
 * updates, and the UNSTABLE plan updates). Session-level ones (available commands, mode, config,
 * session info, usage) may come at any time: they neither show that a turn runs, nor break "no
 * update after the cancelled answer", nor count as replayed history.
 */
export const isTurnUpdate = (f: Frame): boolean => {
  const k = f.method === 'session/update' ? updateKind(f) : undefined;
  return k !== undefined && (CONVERSATION_UPDATES.has(k) || k === 'plan_update' || k === 'plan_removed');
};

/** A plain prompt as content blocks. */
export const text = (t: string): Array<Record<string, unknown>> => [{ type: 'text', text: t }];

/** `p`, or `fallback` after `ms` (the timer is cleared either way, so nothing keeps the process alive). */
export function within<T, F>(p: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<F>((res) => { timer = setTimeout(() => res(fallback), ms); })]).finally(() => clearTimeout(timer));
}

/** Races a promise against a settle signal: which of the two came first. */
export async function first<A, B>(a: Promise<A>, b: Promise<B>): Promise<{ a: A } | { b: B }> {
  return Promise.race([a.then((v) => ({ a: v })), b.then((v) => ({ b: v }))]);
}
