/**
 * What a client-probe scenario is: data (id, title, tier, spec section, the group a prompt can ask
 * for, the capability it needs) plus the steps it takes inside the prompt turn and the expectation
 * that grades them. Steps talk to the client only through `ScenarioContext`.
 */

export type Tier = 'required' | 'capability' | 'advisory' | 'info';
export type Status = 'pass' | 'fail' | 'skip' | 'info';

/** Groups a prompt can name (`/probe fs`); also the sections of the final message. */
export type Group = 'updates' | 'tools' | 'permission' | 'fs' | 'terminal' | 'requests';

export const GROUPS: readonly Group[] = ['updates', 'tools', 'permission', 'fs', 'terminal', 'requests'];

/** The client's half of `initialize`, as far as the battery cares. */
export interface ClientFacts {
  caps: {
    readTextFile: boolean;
    writeTextFile: boolean;
    terminal: boolean;
    /** `plan` advertised (UNSTABLE plan_update / plan_removed). */
    plan: boolean;
  };
  name?: string;
  version?: string;
}

/** What became of a request the probe sent. `ms`: from sending it to its answer (or to giving up). */
export type Answer =
  | { kind: 'result'; result: unknown; ms: number }
  | { kind: 'error'; error: { code?: unknown; message?: unknown; data?: unknown }; ms: number }
  | { kind: 'timeout'; ms: number }
  | { kind: 'closed'; ms: number };

/** How a frame is sent: `provoke` marks a deliberate provocation (the findings at it are the probe's). */
export interface SendOpts {
  provoke?: boolean;
  /** ms to wait for the answer (default: the per-request timeout). */
  timeoutMs?: number;
}

export interface Outcome {
  status: Status;
  why: string;
  /** The tier this result is graded at, when a part of the scenario rests on other words than the scenario's (with `quote`). */
  tier?: Tier;
  /** The spec's words for `tier`. */
  quote?: string;
}

export interface ScenarioContext {
  sessionId: string;
  /** The session's cwd, as the client gave it in `session/new`. */
  cwd: string;
  client: ClientFacts;
  /** Per-request timeout (ms). */
  timeoutMs: number;
  /** Sends a request to the client and waits for its answer (or the timeout). */
  request(method: string, params: Record<string, unknown>, opts?: SendOpts): Promise<Answer>;
  /** Sends a request without waiting; `reply` settles like `request`'s. */
  send(method: string, params: Record<string, unknown>, opts?: SendOpts): { id: number; reply: Promise<Answer> };
  notify(method: string, params: unknown, opts?: SendOpts): void;
  /** Sends one `session/update` in this session. */
  update(update: Record<string, unknown>, opts?: SendOpts): void;
  /** Tells the person at the editor something, as an agent message. */
  say(text: string): void;
  /** True once the client has sent `session/cancel` for this session; waits up to `ms` for it. */
  waitForCancel(ms: number): Promise<boolean>;
  /** Whether the client is still connected and answering; a request (an extension method) proves it. */
  alive(): Promise<{ ok: boolean; why: string }>;
  /** A fresh name for a scratch file: `.acp-inspect-probe-<run>-<n>.txt`. */
  scratchName(): string;
  /** Runs `fn` once the battery ends, whatever happened (releases, file removal). */
  atEnd(fn: () => Promise<void> | void): void;
  /** Pauses (ms). */
  sleep(ms: number): Promise<void>;
}

export interface ClientScenario {
  /** Stable kebab-case id (used by --only and `/probe`). */
  id: string;
  title: string;
  /** The tier of its main expectation: required or capability only on a "must", a `req` field or JSON-RPC 2.0's MUST; advisory where the spec only states what a client does. */
  tier: Tier;
  /** The spec's (or JSON-RPC 2.0's) words that `tier` rests on. */
  quote: string;
  /** Section of the spec the expectation enforces, e.g. "4.4 rule 5". */
  spec: string;
  group: Group;
  /** Checker rules the scenario's provocations are expected to trigger: findings of these rules are the probe's. */
  provokes?: readonly string[];
  /** Why the scenario cannot run against this client (a capability it did not advertise). */
  gate?: (client: ClientFacts) => string | undefined;
  /** Set when the scenario needs a person at the editor: what they must do. It runs only when a prompt asks for it. */
  person?: string;
  run(ctx: ScenarioContext): Promise<Outcome>;
}

export const pass = (why: string): Outcome => ({ status: 'pass', why });
export const fail = (why: string): Outcome => ({ status: 'fail', why });
export const info = (why: string): Outcome => ({ status: 'info', why });
export const skip = (why: string): Outcome => ({ status: 'skip', why });
/** A part of a scenario graded on other words than the scenario's. */
export const graded = (o: Outcome, tier: Tier, quote: string): Outcome => ({ ...o, tier, quote });

/** Words several scenarios rest on. */
export const CLIENT_QUOTES = {
  reply: 'JSON-RPC 2.0 (4): "When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications."',
  req: (what: string) => `${what}, "\`req\` means required" (spec, notation)`,
} as const;

/**
 * A request the probe sent that did not get the answer the scenario expects: a request left without
 * any answer is JSON-RPC's "MUST reply", required whatever the scenario's tier; any other answer fails
 * at the scenario's tier. (A disconnect is the client's choice: the run does not grade it.)
 */
export const failAnswer = (r: Answer, why: string): Outcome => (r.kind === 'timeout' ? graded(fail(why), 'required', CLIENT_QUOTES.reply) : fail(why));

/** One line describing a reply that was not the expected kind, for a scenario's `why`. */
export function describeReply(method: string, r: Answer): string {
  switch (r.kind) {
    case 'timeout': return `${method} was not answered within ${Math.round(r.ms)} ms`;
    case 'closed': return `the client disconnected before answering ${method}`;
    case 'error': return `${method} failed: ${errorText(r.error)}`;
    case 'result': return `${method} answered ${clip(JSON.stringify(r.result) ?? 'undefined')}`;
  }
}

export function errorText(e: { code?: unknown; message?: unknown }): string {
  return `error ${String(e.code)}${typeof e.message === 'string' ? ` ${JSON.stringify(clip(e.message))}` : ''}`;
}

export function clip(s: string, n = 80): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
