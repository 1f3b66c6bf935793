/**
 * The agent an editor launches in place of a real one (`acp-inspect probe client`). It answers
 * `initialize` and `session/new`; on the first `session/prompt` it runs the client battery inside
 * that turn, hands the results to `onRunEnd` (which records and reports them), tells the person the
 * verdict in a final agent message and ends the turn with `end_turn`. A later prompt `/probe fs`
 * runs part of the battery again. If the client hangs up or dies mid-battery, the scenario running
 * then fails, the rest are listed as not run, and `onRunEnd` still gets the run.
 * No store, no files, no process handling here: the command (and the tests) supply the streams.
 */
import { randomBytes } from 'node:crypto';
import { isAbsolute } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { M } from '../../spec/methods.js';
import type { Frame, Item } from '../../wire/frame.js';
import type { IncomingRequest, Reply } from '../connection.js';
import { connectStdio } from './stdio.js';
import { type Selection, probeCommandWords, probeHelp, selectScenarios } from './battery.js';
import { HANDSHAKE_ID } from './scenarios-requests.js';
import { PROBE_CONFIG, PROBE_MODES } from './scenarios-updates.js';
import { type Answer, type ClientFacts, type ClientScenario, type Outcome, type ScenarioContext, type SendOpts, type Status, type Tier, isObject } from './scenario.js';

/** The probe's protocol version (spec 9). */
const PROTOCOL_VERSION = 1;

export interface ScenarioResult {
  id: string;
  title: string;
  tier: Tier;
  spec: string;
  /** The words `tier` rests on. */
  quote: string;
  status: Status;
  why: string;
  /** Index range [from, to) of this scenario's items in `ClientProbeRun.items`; empty when it did not run. */
  from: number;
  to: number;
  /** Rules the scenario provokes on purpose (their findings are the probe's). */
  provokes?: readonly string[];
  /** False for scenarios that never ran (gated off, not asked for, or after a disconnect). */
  ran: boolean;
}

export interface ClientProbeRun {
  /** The client as it named itself in `initialize` (null: it did not). */
  target: { name: string | null; version: string | null };
  client: ClientFacts;
  startedAt: string;
  /** How the run ended. */
  ended: 'turn-end' | 'cancelled' | 'disconnected' | 'aborted';
  scenarios: ScenarioResult[];
  /** Every frame of the connection so far, both ways, as recording items. */
  items: Item[];
  /** Seqs (in `items`) of the frames the probe sent as provocations. */
  provoked: ReadonlySet<number>;
  /** Items [0, handshake) came before the first prompt (initialize, session/new): every scenario builds on them. */
  handshake: number;
  /** Index in `items` of the prompt request whose turn this run is (-1: the client never sent one). */
  prompt: number;
  /** The session's cwd. */
  cwd: string;
  /** Items [from, to) end the turn (the final message and the prompt's answer); empty until `endTurn` ran, or when the client was gone. */
  tail: { from: number; to: number };
}

export interface ClientProbeOptions {
  input: Readable;
  output: Writable;
  /** Per-request timeout in ms (default 10 000). */
  timeoutMs?: number;
  /** Scenario ids or groups to run (from --only); empty: the whole battery. */
  only?: string[];
  /** Diagnostics (stderr). */
  log?: (text: string) => void;
  /**
   * Called once per battery run when it ends (turn end, cancel, disconnect, abort). It calls
   * `endTurn` with the lines saying where the report and the recordings are, and the scenarios as
   * finally graded (the final message and the prompt's answer go out then, and are added to
   * `run.tail`). If it never calls `endTurn`, the turn ends after it returns.
   */
  onRunEnd: (run: ClientProbeRun, endTurn: (where: string[], graded?: ReadonlyArray<Pick<ScenarioResult, 'id' | 'status' | 'why'>>) => void) => Promise<void> | void;
  /** Called as each scenario ends, with its item range (the command checks it then, so the checker's start-up costs fall inside the battery). */
  onScenarioEnd?: (slice: { items: readonly Item[]; from: number; to: number }) => void;
}

export interface ClientProbe {
  /** Resolves when the client has disconnected and any run in progress has been handed to `onRunEnd`. */
  done: Promise<void>;
  /** Ends a battery in progress now (the probe is being terminated); `cause` says why, e.g. "the probe was ended by SIGTERM". */
  abort(cause: string): Promise<void>;
}

type Respond = (answer: { result: unknown } | { error: { code: number; message: string } }) => void;

/** The shared connection's reply as a scenario's Answer, with the time it took. */
function toAnswer(r: Reply, ms: number): Answer {
  if (r.timeout) return { kind: 'timeout', ms };
  if (r.closed) return { kind: 'closed', ms };
  if (r.error) return { kind: 'error', error: r.error, ms };
  return { kind: 'result', result: r.result, ms };
}

interface Session { id: string; cwd: string; cancelled: boolean; onCancel: Array<() => void> }

interface ActiveRun { finish: (ended: ClientProbeRun['ended'], reason: string) => Promise<void>; finished: Promise<void> }

/** Starts the probe on the given streams. */
export function startClientProbe(opts: ClientProbeOptions): ClientProbe {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const log = opts.log ?? (() => {});
  const runTag = randomBytes(3).toString('hex');
  const sessions = new Map<string, Session>();
  let client: ClientFacts = { caps: { readTextFile: false, writeTextFile: false, terminal: false, plan: false } };
  let handshake = 0;
  let prompted = false;
  let initialized = false;
  let active: ActiveRun | undefined;
  let scratchCount = 0;

  const io = connectStdio(opts.input, opts.output, timeoutMs, (f) => { if (f.kind === 'notification') onNotification(f); });
  const { conn } = io;
  conn.onRequest = (req) => onRequest(req.method, req.params, (answer) => {
    if ('error' in answer) conn.respondError(req.id, answer.error.code, answer.error.message);
    else conn.respond(req.id, answer.result);
  });

  /** Sends a request; `reply` settles with the client's answer, a timeout or the client's end. */
  function ask(method: string, params: Record<string, unknown>, o: SendOpts = {}): { id: number; reply: Promise<Answer> } {
    const start = conn.now();
    const p = conn.request(method, params, { provoke: o.provoke, timeoutMs: o.timeoutMs ?? timeoutMs });
    return { id: p.id, reply: p.then((r) => toAnswer(r, conn.now() - start)) };
  }

  function onNotification(f: Frame): void {
    const p = isObject(f.json) && isObject(f.json.params) ? f.json.params : {};
    const session = typeof p.sessionId === 'string' ? sessions.get(p.sessionId) : undefined;
    if (f.method === M.cancel && session) {
      session.cancelled = true;
      for (const fn of session.onCancel.splice(0)) fn();
    }
  }

  function onRequest(method: string, p: IncomingRequest['params'], respond: Respond): void {
    const session = typeof p.sessionId === 'string' ? sessions.get(p.sessionId) : undefined;
    const noSession = (): void => respond({ error: { code: -32602, message: `unknown session ${JSON.stringify(p.sessionId)}` } });
    switch (method) {
      case M.initialize: {
        initialized = true;
        client = clientFactsOf(p);
        respond({ result: {
          protocolVersion: PROTOCOL_VERSION,
          agentCapabilities: { loadSession: false, promptCapabilities: { image: true, audio: true, embeddedContext: true }, mcpCapabilities: { http: false, sse: false } },
          agentInfo: { name: 'acp-inspect-probe', title: 'ACP client probe (acp-inspect)', version: PROBE_VERSION },
          authMethods: [],
        } });
        return;
      }
      case M.sessionNew: {
        if (typeof p.cwd !== 'string' || !isAbsolute(p.cwd) || !Array.isArray(p.mcpServers)) {
          respond({ error: { code: -32602, message: 'session/new needs an absolute cwd and an mcpServers array' } });
          return;
        }
        const id = `probe-${runTag}-${sessions.size + 1}`;
        sessions.set(id, { id, cwd: p.cwd, cancelled: false, onCancel: [] });
        respond({ result: {
          sessionId: id,
          modes: { currentModeId: PROBE_MODES[0]!.id, availableModes: PROBE_MODES },
          configOptions: PROBE_CONFIG('quick'),
        } });
        return;
      }
      case M.setMode:
        if (!session) return noSession();
        if (PROBE_MODES.some((m) => m.id === p.modeId)) respond({ result: {} });
        else respond({ error: { code: -32602, message: `unknown mode ${JSON.stringify(p.modeId)}` } });
        return;
      case M.setConfigOption:
        if (!session) return noSession();
        if (p.configId === 'probe-depth' && (p.value === 'quick' || p.value === 'thorough')) respond({ result: { configOptions: PROBE_CONFIG(p.value) } });
        else respond({ error: { code: -32602, message: `unknown config option or value ${JSON.stringify(p.configId)}=${JSON.stringify(p.value)}` } });
        return;
      case M.prompt:
        if (!session) return noSession();
        if (active) {
          respond({ error: { code: -32603, message: 'a probe turn is already running in this connection' } });
          return;
        }
        onPrompt(session, promptText(p.prompt), respond);
        return;
      default:
        respond({ error: { code: -32601, message: `method not found: ${method}` } });
    }
  }

  function onPrompt(session: Session, text: string, respond: Respond): void {
    const words = probeCommandWords(text);
    if (words === null && prompted) {
      say(session, `This is the ACP client probe: it has no model. ${probeHelp()}`);
      respond({ result: { stopReason: 'end_turn' } });
      return;
    }
    if (words?.length === 1 && words[0] === 'help') {
      say(session, probeHelp());
      respond({ result: { stopReason: 'end_turn' } });
      return;
    }
    if (!prompted) handshake = conn.items.length - 1;
    const prompt = conn.items.length - 1;
    prompted = true;
    session.cancelled = false;
    const selection = selectScenarios(words ?? opts.only ?? []);
    active = runBattery(session, selection, prompt, respond);
    void active.finished.then(() => { active = undefined; });
  }

  function say(session: Session, text: string): void {
    conn.notify(M.update, { sessionId: session.id, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } });
  }

  function runBattery(session: Session, selection: Selection, prompt: number, respond: Respond): ActiveRun {
    const startedAt = new Date().toISOString();
    const results: ScenarioResult[] = [];
    const cleanups: Array<() => Promise<void> | void> = [];
    let answersExtensions = true;
    let current: { s: ClientScenario; from: number } | undefined;
    let finishing: Promise<void> | undefined;
    let resolveFinished: () => void = () => {};
    const finished = new Promise<void>((r) => { resolveFinished = r; });

    const ctx: ScenarioContext = {
      sessionId: session.id, cwd: session.cwd, client, timeoutMs,
      request: (method, params, o) => ask(method, params, o).reply,
      send: ask,
      notify: (method, params, o) => { conn.notify(method, params, o); },
      update: (update, o) => { conn.notify(M.update, { sessionId: session.id, update }, o); },
      say: (text) => say(session, text),
      waitForCancel: (ms) => new Promise((resolve) => {
        if (session.cancelled) return resolve(true);
        if (ms <= 0) return resolve(false);
        const timer = setTimeout(() => resolve(session.cancelled), ms);
        session.onCancel.push(() => { clearTimeout(timer); resolve(true); });
      }),
      alive: async () => {
        if (conn.isClosed) return { ok: false, why: 'the client disconnected' };
        if (!answersExtensions) return { ok: true, why: 'the client is still connected' };
        const r = await ask('_acp-inspect/alive', { sessionId: session.id }).reply;
        if (r.kind === 'result' || r.kind === 'error') return { ok: true, why: 'the client still answers requests' };
        return { ok: false, why: r.kind === 'closed' ? 'the client disconnected' : `the client stopped answering (a request went unanswered for ${Math.round(r.ms)} ms)` };
      },
      scratchName: () => `.acp-inspect-probe-${runTag}-${++scratchCount}.txt`,
      atEnd: (fn) => { cleanups.push(fn); },
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    };

    const record = (s: ClientScenario, o: Outcome, from: number, ran: boolean): void => {
      results.push({ id: s.id, title: s.title, tier: o.tier ?? s.tier, spec: s.spec, quote: o.quote ?? s.quote, status: o.status, why: o.why, from, to: ran ? conn.items.length : from, ran, ...(s.provokes ? { provokes: s.provokes } : {}) });
    };

    /**
     * Ends the run; `cause` ("the client disconnected") explains the scenario cut short and those not
     * run. A client's own cancel or disconnect is its choice, not a defect: what ran is graded, the
     * scenario it cut short and the rest are not, and the message names the `/probe` that runs them.
     */
    const finish = (ended: ClientProbeRun['ended'], cause: string): Promise<void> => finishing ??= (async () => {
      const during = current ? ` during ${current.s.id}` : '';
      const rest = selection.scenarios.filter((s) => !results.some((r) => r.id === s.id) && !s.gate?.(client) && !(s.person && !selection.asked.has(s.id))).map((s) => s.id);
      const again = rest.length ? `; "/probe ${rest.join(' ')}" runs ${rest.length === 1 ? 'it' : 'them'}` : '';
      if (current) {
        const choice = ended === 'aborted' ? '' : ', which a client may do, so it is not graded';
        record(current.s, { status: 'skip', why: `not finished: ${cause} during this scenario${choice}${again}` }, current.from, true);
        current = undefined;
      }
      for (const s of selection.scenarios) {
        if (!results.some((r) => r.id === s.id)) record(s, { status: 'skip', why: `not run: ${cause}${during}${again}` }, conn.items.length, false);
      }
      for (const f of cleanups.splice(0)) {
        try { await f(); } catch (e) { log(`probe: cleanup failed: ${(e as Error).message}`); }
      }
      const ordered = selection.scenarios.map((s) => results.find((r) => r.id === s.id)!);
      const run: ClientProbeRun = {
        target: { name: client.name ?? null, version: client.version ?? null }, client, startedAt, ended, scenarios: ordered,
        items: conn.items, provoked: conn.provoked, handshake, prompt, cwd: session.cwd, tail: { from: conn.items.length, to: conn.items.length },
      };
      let turnEnded = false;
      const endTurn = (where: string[], graded?: ReadonlyArray<Pick<ScenarioResult, 'id' | 'status' | 'why'>>): void => {
        if (turnEnded || conn.isClosed) return;
        turnEnded = true;
        run.tail.from = conn.items.length;
        const shown = graded ? ordered.map((o) => ({ ...o, ...pickGrade(graded.find((g) => g.id === o.id)) })) : ordered;
        say(session, `\n\n${summaryText(shown, where)}`);
        respond({ result: { stopReason: ended === 'cancelled' ? 'cancelled' : 'end_turn' } });
        run.tail.to = conn.items.length;
      };
      try {
        await opts.onRunEnd(run, endTurn);
      } catch (e) {
        log(`probe: could not record or report the run: ${(e as Error).message}`);
        endTurn([`The report could not be written: ${(e as Error).message}`]);
      }
      endTurn([]);
      await io.flush();
      resolveFinished();
    })();

    void (async () => {
      say(session, `ACP client probe: running ${selection.scenarios.length} scenarios against ${client.name ?? 'this client'}.`
        + (selection.unknown.length ? ` (Not a group or scenario: ${selection.unknown.join(', ')}.)` : '') + '\n');
      for (const s of selection.scenarios) {
        if (finishing) return;
        if (session.cancelled) return void finish('cancelled', 'the client cancelled the turn (session/cancel)');
        const gated = s.gate?.(client);
        if (gated) { record(s, { status: 'skip', why: gated }, conn.items.length, false); continue; }
        if (s.person && !selection.asked.has(s.id)) {
          record(s, { status: 'skip', why: `needs a person: send "/probe ${s.id}" and ${s.person}` }, conn.items.length, false);
          continue;
        }
        const from = conn.items.length;
        current = { s, from };
        let o: Outcome;
        try {
          o = await s.run(ctx);
        } catch (e) {
          o = { status: 'skip', why: `the probe itself failed: ${(e as Error).message}` };
        }
        if (finishing) return;
        if (conn.isClosed) return void finish('disconnected', 'the client disconnected');
        current = undefined;
        // A client may cancel the turn (a person pressing Stop, or its own choice): a scenario it cut
        // short is not failed for it; the run ends there, grading what ran and naming what did not.
        if (session.cancelled && !s.person) {
          if (o.status === 'fail') { current = { s, from }; return void finish('cancelled', 'the client cancelled the turn (session/cancel)'); }
          o = { ...o, why: `${o.why} (the client then cancelled the turn)` };
        }
        if (s.id === 'extension-request' && o.status === 'fail') answersExtensions = false;
        record(s, o, from, true);
        opts.onScenarioEnd?.({ items: conn.items, from, to: conn.items.length });
      }
      await finish(session.cancelled ? 'cancelled' : 'turn-end', '');
    })();

    void io.closed.then(() => finish('disconnected', 'the client disconnected'));
    return { finish, finished };
  }

  const done = (async () => {
    await io.closed;
    if (active) await active.finished;
    else if (initialized && !prompted) await reportNoPrompt();
  })();

  /**
   * A client that hung up after initialize without ever sending a prompt (it crashed on the probe's
   * answers, or someone closed it): reported too, with the handshake failed and the rest not run.
   */
  async function reportNoPrompt(): Promise<void> {
    const why = 'the client disconnected before sending a prompt, so nothing else ran (if it was closed on purpose, ignore this run)';
    const scenarios: ScenarioResult[] = selectScenarios(opts.only ?? []).scenarios.map((s) => ({
      id: s.id, title: s.title, tier: s.tier, spec: s.spec, quote: s.quote, ran: s.id === HANDSHAKE_ID, from: 0, to: s.id === HANDSHAKE_ID ? conn.items.length : 0,
      status: s.id === HANDSHAKE_ID ? 'fail' : 'skip', why: s.id === HANDSHAKE_ID ? why : 'not run: the client disconnected before sending a prompt',
    }));
    const run: ClientProbeRun = {
      target: { name: client.name ?? null, version: client.version ?? null }, client, startedAt: new Date().toISOString(), ended: 'disconnected',
      scenarios, items: conn.items, provoked: conn.provoked, handshake: 0, prompt: -1, cwd: [...sessions.values()][0]?.cwd ?? '', tail: { from: 0, to: 0 },
    };
    try {
      await opts.onRunEnd(run, () => {});
    } catch (e) {
      log(`probe: could not record or report the run: ${(e as Error).message}`);
    }
  }

  return {
    done,
    async abort(cause: string) {
      if (active) await active.finish('aborted', cause);
    },
  };
}

/** The status and why of a graded scenario, if there is one. */
function pickGrade(g: Pick<ScenarioResult, 'status' | 'why'> | undefined): Partial<Pick<ScenarioResult, 'status' | 'why'>> {
  return g ? { status: g.status, why: g.why } : {};
}

/** The version the probe names in agentInfo. */
const PROBE_VERSION = process.env.npm_package_version ?? '0.1.0';

function clientFactsOf(p: Record<string, unknown>): ClientFacts {
  const caps = isObject(p.clientCapabilities) ? p.clientCapabilities : {};
  const fs = isObject(caps.fs) ? caps.fs : {};
  const info = isObject(p.clientInfo) ? p.clientInfo : {};
  return {
    caps: { readTextFile: fs.readTextFile === true, writeTextFile: fs.writeTextFile === true, terminal: caps.terminal === true, plan: isObject(caps.plan) },
    ...(typeof info.name === 'string' ? { name: info.name } : {}),
    ...(typeof info.version === 'string' ? { version: info.version } : {}),
  };
}

/** The text blocks of a prompt, joined. */
function promptText(prompt: unknown): string {
  if (!Array.isArray(prompt)) return '';
  return prompt.map((b) => (isObject(b) && b.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('\n');
}

/** What the client's own cancel or disconnect left unrun, and the `/probe` that runs it. */
function notRunLine(results: ScenarioResult[]): string[] {
  const cut = results.filter((r) => r.status === 'skip' && /^not (run|finished): the client /.test(r.why));
  if (!cut.length) return [];
  const m = /"\/probe [^"]+"/.exec(cut[0]!.why);
  return [`Not graded: ${cut.length} scenario${cut.length === 1 ? '' : 's'}, because the client ${cut[0]!.why.includes('cancelled') ? 'cancelled the turn' : 'disconnected'} (its choice, not a defect)${m ? `; send ${m[0]} to run ${cut.length === 1 ? 'it' : 'them'}` : ''}.`];
}

/** The final agent message: the verdict, every failure with its spec section, and where the report is. */
export function summaryText(results: ScenarioResult[], where: string[]): string {
  const failed = results.filter((r) => r.status === 'fail');
  const blocking = failed.filter((r) => r.tier === 'required' || r.tier === 'capability');
  const count = (st: Status): number => results.filter((r) => r.status === st).length;
  const verdict = blocking.length ? 'NOT CONFORMANT' : 'CONFORMANT';
  const lines = [
    `ACP client probe verdict: ${verdict}. ${count('pass')} passed, ${count('fail')} failed, ${count('skip')} skipped, ${count('info')} info, of ${results.length} scenarios.`,
    ...failed.map((r) => `✗ ${r.id} [${r.tier}, spec ${r.spec}]: ${r.why}`),
    ...notRunLine(results),
    ...where,
    probeHelp(),
  ];
  return lines.join('\n');
}
