/**
 * The agent probe's scenarios, as data: id, title, tier, the spec section they test, when they
 * apply, what the probe advertises, which checker rules its provocations set off, and a short script
 * of what to send and what passes. Scenarios that depend on what a model chose to do (ask a
 * permission, stream before answering) skip with their reason instead of failing.
 */
import type { Frame } from '../../wire/frame.js';
import type { Tier } from '../report.js';
import { describeReply, errorCode, updateKind, type Reply } from '../connection.js';
import type { PermissionPolicy } from './client-side.js';
import { type AgentFacts, type AgentProbeSettings, type Driver, type Outcome, fail, first, graded, info, isObj, isTurnUpdate, pass, skip, text, within } from './driver.js';

/** The words tiers rest on, where several scenarios share them. */
export const QUOTES = {
  reply: 'JSON-RPC 2.0 (4): "When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications."',
  noReply: 'JSON-RPC 2.0 (4.1): "The Server MUST NOT reply to a Notification"',
  nullId: 'JSON-RPC 2.0 (5): "If there was an error in detecting the id in the Request object (e.g. Parse error/Invalid Request), it MUST be Null."',
  notShown: '"Which other method returns which other error, and the content of `data` for any code, are not shown." (7 rule 4)',
  mustSupport: '"Every agent must support `session/new`, `session/prompt`, `session/cancel` and `session/update`." (4.4 rule 2)',
  cancelShould: '"agent should stop model requests, abort tool calls, send pending updates, then answer the prompt request with the cancelled stop reason" (3, a running prompt turn on `session/cancel`)',
  unstable: '"Features marked UNSTABLE are not part of the specification and may change or vanish at any time." (9 rule 5)',
  promptBlocks: '"`image`, `audio` and `resource` blocks are accepted only when the matching prompt capability is true. The client must adapt to the prompt capabilities." (4.4 rule 3): a rule on the client, the sender',
  versions: '"If the agent supports it, it answers with the same version; otherwise with the latest it supports." (9 rule 2): it says what an agent does, with no "must"',
  protocolVersion: 'the initialize result: "protocolVersion req" (4.1), "`req` means required"; ProtocolVersion is "an integer" (2.13)',
  methodNotFound: 'JSON-RPC 2.0 (5.1): "-32601 Method not found: The method does not exist / is not available."; "-32601 covers methods that do not exist or are not available." (7 rule 3): the code\'s meaning, with no "must" to use it',
  stopReasons: '"The stop reason values of a prompt turn and any further turn states are not shown." (3)',
} as const;

/** Where the spec states what a method does, with no "must": a failure there is advisory (reported, never deciding). */
const says = (words: string): string => `${words}: it says what the agent does, with no "must"`;

/** A request that got no answer at all: JSON-RPC's own "must reply", whatever the scenario's tier. */
const unanswered = (o: Outcome): Outcome => graded(o, 'required', QUOTES.reply);

export interface AgentScenario {
  id: string;
  title: string;
  /** The tier of its main expectation (a part resting on other words says so in its outcome: `graded`). */
  tier: Tier;
  /** Section of the spec (shared spec numbering), e.g. "9 rule 2". */
  spec: string;
  /** The spec's (or JSON-RPC 2.0's) words that `tier` rests on. */
  quote: string;
  /** Why the scenario does not apply to this agent (it is then skipped), from its `initialize` answer. */
  skipUnless?: (facts: AgentFacts, settings: AgentProbeSettings) => string | undefined;
  /**
   * What the probe advertises (a process of its own: capabilities are the handshake's) and how it
   * answers the permission requests of the scenario's own sessions (default: nothing; allow).
   */
  client?: { fs?: boolean; terminal?: boolean; permission?: PermissionPolicy };
  /** Checker rules the provocations set off away from the provoking frame (the probe's findings). */
  provokes?: string[];
  /** Waits for whole turns: scheduled first, so that the short scenarios fill in around it. */
  long?: boolean;
  /**
   * Needs no process of its own: it runs on one that other such scenarios share, one after another,
   * each with its own session, after a handshake done once (see run.ts). Only for scenarios that
   * advertise no client capability (`client.permission` is fine: a policy of the client's, applied to
   * the scenario's own sessions, not part of the handshake) and whose provocations cannot leave the
   * connection unusable. A
   * session/new with bad params is not one: an agent may set up the session after its answer and fail
   * then (auggie exits at the next prompt after a relative cwd), which would fail the next scenario.
   */
  shared?: boolean;
  /**
   * Makes a session, ends its process and reopens the session in a new one (`d.restart`). When more
   * than one such scenario runs, one process makes all their sessions (one scenario after the other)
   * and one new process reopens them (see run.ts, Reopener).
   */
  reopens?: boolean;
  run(d: Driver): Promise<Outcome>;
}

/** Prompts a model acts on; a scripted agent ignores them. */
export const PROMPTS = {
  pong: 'Reply with the single word pong.',
  long: 'Count slowly from 1 to 300, one number per line.',
  tools: 'Read the file probe-readme.txt in the current folder, then create a file named probe-out.txt containing the word pong, then run the shell command `echo pong`.',
  permission: 'Create a file named probe-permission.txt containing the word pong.',
} as const;

/** How long the probe watches for updates that come after an answer they should have preceded. */
const LATE_MS = 500;
/** How long an answer to `$/cancel_request` is waited for before the turn is cancelled with `session/cancel`. */
const CANCEL_REQUEST_WAIT_MS = 3000;
const STOP_REASONS = ['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled'];
const cap = (f: AgentFacts, ...path: string[]): unknown => path.reduce<unknown>((v, k) => (isObj(v) ? v[k] : undefined), f.agentCapabilities);
const present = (v: unknown): boolean => v !== undefined && v !== null && v !== false;
const stopReasonOf = (r: Reply): string | undefined => (isObj(r.result) && typeof r.result.stopReason === 'string' ? r.result.stopReason : undefined);
const updatesOf = (d: Driver, sessionId: string, from: number, to = Infinity): Frame[] =>
  d.conn.received().filter((f) => f.seq > from && f.seq < to && f.method === 'session/update' && f.kind === 'notification' && f.sessionId === sessionId);
/** Responses from the agent since item `from` that answer none of the probe's requests. */
const strayAnswers = (d: Driver, from: number): Frame[] =>
  d.conn.received().filter((f) => f.seq > from && (f.kind === 'result' || f.kind === 'error') && f.replyTo === undefined);
const conversationUpdatesOf = (d: Driver, sessionId: string, from: number, to = Infinity): Frame[] =>
  updatesOf(d, sessionId, from, to).filter(isTurnUpdate);

/**
 * Prompts and waits for the turn to show it runs (its first update, or a request to the client such
 * as a permission asked before any update) or for the answer, whichever comes first.
 */
async function promptUntilFirstUpdate(d: Driver, sessionId: string, prompt: unknown[], opts: { provoke?: boolean } = {}) {
  const reply = d.prompt(sessionId, prompt, opts);
  const got = await first(reply, d.turnRunning(sessionId));
  return { reply, got };
}

/** Cancels a turn that is still running and waits for its answer (to end a scenario cleanly). */
async function endTurn(d: Driver, sessionId: string, reply: Promise<Reply>): Promise<Reply> {
  d.cancel(sessionId);
  return reply;
}

/**
 * `session/load` or `session/resume` of a session that had a turn, as an editor does after a restart:
 * the process that ran the session is ended (the session is then a stored one, part 3), and a new
 * process is asked to reopen it. Never on the session's own connection, where it is still open: an
 * agent may refuse that, or lose the history it stored.
 */
async function reopen(d: Driver, method: 'session/load' | 'session/resume', sessionId: string): Promise<{ r: Reply; from: number; note: string }> {
  await d.restart();
  await d.initialize();
  await d.authenticate();
  const from = d.conn.items.length;
  const r = await d.request(method, { sessionId, cwd: d.settings.cwd, mcpServers: [] });
  return { r, from, note: ' (in a new process, the one that ran the session ended)' };
}

/** A content block the agent may only get when it advertised the prompt capability. */
function contentScenario(id: string, capability: 'image' | 'audio' | 'embeddedContext', block: Record<string, unknown>, what: string, meaning: string): AgentScenario {
  return {
    id, tier: 'info', spec: '4.4 rule 3', quote: QUOTES.promptBlocks, shared: true,
    title: `a prompt with ${what}: what the agent does with it, advertised (promptCapabilities.${capability}) or not`,
    async run(d) {
      const advertised = cap(d.facts!, 'promptCapabilities', capability) === true;
      const { sessionId } = await d.ready();
      const { reply, got } = await promptUntilFirstUpdate(d, sessionId, [...text(PROMPTS.pong), block], { provoke: !advertised });
      const r = 'a' in got ? got.a : undefined;
      const accepted = r ? r.result !== undefined : 'b' in got && got.b !== undefined;
      if (!('a' in got)) await endTurn(d, sessionId, reply);
      if (advertised) {
        const q = says(`${capability}: "${meaning}" (2.3, PromptCapabilities); "accepted only when the matching prompt capability is true" (4.4 rule 3)`);
        if (accepted) return graded(pass(`${what} accepted (promptCapabilities.${capability} advertised)`), 'advisory', q);
        if (!r) return unanswered(fail(`no answer and no update for a prompt with ${what}`));
        return graded(fail(`${what} refused although promptCapabilities.${capability} is advertised: ${describeReply(r)}`), 'advisory', q);
      }
      if (r?.error) return info(`${what} refused (${describeReply(r)}); promptCapabilities.${capability} is not advertised`);
      if (accepted) return info(`${what} accepted although promptCapabilities.${capability} is not advertised (the spec binds the client not to send it)`);
      return unanswered(fail(`no answer and no update for a prompt with ${what}`));
    },
  };
}

const SESSION_CAP = (name: string) => (f: AgentFacts): string | undefined =>
  present(cap(f, 'sessionCapabilities', name)) ? undefined : `sessionCapabilities.${name} is not advertised`;

export const AGENT_SCENARIOS: AgentScenario[] = [
  // ---- required (a "must" or "req", or JSON-RPC 2.0's MUST), and advisory where the spec only says what an agent does
  {
    id: 'initialize', tier: 'required', spec: '9 rule 2',
    quote: QUOTES.protocolVersion,
    title: 'initialize with version 1 is answered with a protocol version and capabilities',
    async run(d) {
      const r = await d.initialize(1, {}, true);
      if (typeof r.protocolVersion !== 'number' || !Number.isInteger(r.protocolVersion)) return fail(`initialize answered protocolVersion ${JSON.stringify(r.protocolVersion)}, not an integer`);
      // Another version is what an agent that does not support 1 answers (9 rule 2), no defect: the
      // probe then cannot run (run.ts says so, exit 2).
      if (r.protocolVersion !== 1) return graded(info(`asked for version 1, the agent answered ${r.protocolVersion}: it does not support version 1, the one this probe tests`), 'info', QUOTES.versions);
      return pass(`answered protocol version ${r.protocolVersion}`);
    },
  },
  {
    id: 'version-unsupported', tier: 'advisory', spec: '9 rule 2', provokes: ['version-mismatch'],
    quote: QUOTES.versions,
    title: 'initialize with an unsupported version (65535) is answered with a version the agent supports',
    async run(d) {
      const r = await d.request('initialize', { protocolVersion: 65535, clientCapabilities: d.clientCapabilities(), clientInfo: { name: 'acp-inspect-probe', version: '1' } }, { provoke: true, timeoutMs: d.startTimeout() });
      // Its process is new: no answer in the time given, the process still running, looks the same as
      // a slow start-up (a loaded machine), which the other scenarios on a process of their own skip.
      if (r.timeout && !d.proc.exit) return skip(`not graded: this scenario's own process did not answer initialize within ${d.startTimeout()} ms of its start (a slow start-up, or no answer to version 65535; give it a longer --timeout to tell)`);
      if (!r.error && r.result === undefined) return unanswered(fail(`initialize 65535 got ${describeReply(r)}${d.exitNote()}; every request gets a response`));
      if (!isObj(r.result)) return fail(`initialize 65535 got ${describeReply(r)}; an agent that does not support the version asked for "answers ... with the latest it supports" (9 rule 2)`);
      const v = r.result.protocolVersion;
      if (v === 65535) return fail('the agent accepted protocol version 65535, which it cannot support; it "answers ... with the latest it supports" (9 rule 2)');
      if (typeof v !== 'number' || !Number.isInteger(v)) return graded(fail(`protocolVersion ${JSON.stringify(v)} is not an integer`), 'required', QUOTES.protocolVersion);
      return pass(`answered version ${v}`);
    },
  },
  {
    id: 'prompt-turn', shared: true, long: true, tier: 'required', spec: '4.4 rule 2', quote: `${QUOTES.mustSupport}; the session/prompt result: "stopReason StopReason req" (4.1)`, title: 'session/new, then a prompt turn ends with a stop reason',
    async run(d) {
      const { sessionId } = await d.ready();
      const r = await d.prompt(sessionId, text(PROMPTS.pong));
      const reason = stopReasonOf(r);
      if (!reason) return fail(`session/prompt got ${describeReply(r)}${d.exitNote()}`);
      if (!STOP_REASONS.includes(reason)) return graded(info(`stop reason ${JSON.stringify(reason)} is not one of the SDK's ${STOP_REASONS.join(', ')}`), 'info', QUOTES.stopReasons);
      return pass(`turn ended ${reason} after ${updatesOf(d, sessionId, 0).length} updates`);
    },
  },
  {
    id: 'session-new-missing-fields', tier: 'info', spec: '7 rule 4', quote: QUOTES.notShown,
    title: 'session/new without its required fields: which answer the agent gives (-32602, invalid params, is JSON-RPC\'s code for it)',
    async run(d) {
      await d.initialize();
      await d.authenticate();
      const r = await d.request('session/new', {}, { provoke: true });
      if (r.error || r.result !== undefined) return info(`answered ${describeReply(r)}${errorCode(r) === -32602 ? '' : ' (JSON-RPC\'s code for invalid params is -32602)'}`);
      return unanswered(fail(`session/new with no cwd and no mcpServers got ${describeReply(r)}${d.exitNote()}; every request gets a response`));
    },
  },
  {
    id: 'unknown-method', shared: true, tier: 'advisory', spec: '7 rule 3', quote: QUOTES.methodNotFound,
    title: 'an unknown method gets -32601 (method not found)',
    async run(d) {
      await d.initialize();
      const r = await d.request('acp_inspect_probe/no_such_method', {}, { provoke: true });
      if (errorCode(r) === -32601) return pass('answered -32601');
      if (!r.error && r.result === undefined) return unanswered(fail(`an unknown method got ${describeReply(r)}${d.exitNote()}; every request gets a response`));
      return fail(`an unknown method got ${describeReply(r)}; -32601 is the code for a method that does not exist`);
    },
  },
  {
    id: 'extension-request', shared: true, tier: 'required', spec: '4.3', quote: QUOTES.reply, title: 'an `_`-prefixed extension request gets a response (a result or an error)',
    async run(d) {
      await d.initialize();
      const r = await d.request('_acp_inspect/probe', { probe: true });
      if (r.result !== undefined || r.error) return pass(`answered: ${describeReply(r)}`);
      return fail(`an extension request got ${describeReply(r)}${d.exitNote()}; every request needs a response`);
    },
  },
  {
    id: 'unknown-notifications', shared: true, tier: 'required', spec: '4.3', quote: QUOTES.noReply, title: 'unknown `_` and `$/` notifications are ignored and the connection stays usable',
    async run(d) {
      await d.initialize();
      const from = d.conn.items.length;
      d.conn.notify('_acp_inspect/notice', { probe: true }, { provoke: true });
      d.conn.notify('$/acp_inspect_probe', { probe: true }, { provoke: true });
      // The agent reads in order: whatever it says to the notifications comes around its answers to
      // the requests that follow them (and a moment is left for a late one).
      await d.authenticate();
      await d.newSession();
      await d.conn.settle(100);
      const answered = strayAnswers(d, from);
      if (answered.length) return fail(`the agent answered a notification (#${answered[0]!.seq}: ${answered[0]!.raw.slice(0, 100)}); notifications get no response`);
      return pass('ignored both; session/new still works');
    },
  },
  {
    id: 'unknown-session', shared: true, tier: 'info', spec: '7 rule 4', quote: QUOTES.notShown, title: 'a prompt to a session that does not exist: what the agent answers',
    async run(d) {
      await d.initialize();
      await d.authenticate();
      const r = await d.request('session/prompt', { sessionId: 'acp-inspect-no-such-session', prompt: text(PROMPTS.pong) }, { provoke: true });
      if (r.error || r.result !== undefined) return info(`answered ${describeReply(r)}`);
      return unanswered(fail(`a prompt to an unknown session got ${describeReply(r)}${d.exitNote()}; every request gets a response`));
    },
  },
  {
    id: 'not-json', tier: 'required', spec: '7', quote: QUOTES.nullId,
    title: 'a line that is not JSON gets a parse error (-32700, id null) or nothing; whether the connection stays usable is reported',
    async run(d) {
      await d.initialize();
      const from = d.conn.items.length;
      d.conn.sendRaw('{"jsonrpc":"2.0", this line is not JSON', { provoke: true });
      try {
        await d.authenticate();
        await d.newSession();
      } catch (e) {
        if (!d.conn.isClosed) throw e;
      }
      await d.conn.settle(100);
      const answers = strayAnswers(d, from);
      const bad = answers.find((f) => !(isObj(f.json) && f.json.id === null));
      if (bad) return fail(`answered the non-JSON line with #${bad.seq}: ${bad.raw.slice(0, 100)}; its id must be null`);
      const notParse = answers.find((f) => !(f.kind === 'error' && isObj(f.json) && isObj(f.json.error) && f.json.error.code === -32700));
      if (notParse) return graded(fail(`answered the non-JSON line with #${notParse.seq}: ${notParse.raw.slice(0, 100)}; -32700 (parse error) is the code for it`), 'advisory', 'JSON-RPC 2.0 (5.1): "-32700 Parse error: Invalid JSON was received by the server.": the code\'s meaning, with no "must" to use it');
      // The spec says nothing of a client that writes a line that is not JSON (it binds the client to
      // write only ACP messages): an agent that gives up on such a connection breaks no rule of it.
      if (d.conn.isClosed || d.proc.exit) return graded(info(`the connection did not survive a line that was not JSON${d.exitNote()}`), 'info', 'the spec does not say what a peer does with a line that is not JSON');
      return pass(`${answers.length ? 'answered -32700' : 'ignored it'}; session/new still works`);
    },
  },
  {
    id: 'prompt-resource-link', shared: true, tier: 'required', spec: '4.4 rule 3', quote: '"every agent must accept `text` and `resource_link` blocks" (4.4 rule 3)', title: 'a prompt with a resource_link block is accepted (every agent must)',
    async run(d) {
      const { sessionId } = await d.ready();
      const link = { type: 'resource_link', uri: `file://${d.settings.cwd}/probe-readme.txt`, name: 'probe-readme.txt', mimeType: 'text/plain' };
      const { reply, got } = await promptUntilFirstUpdate(d, sessionId, [...text(PROMPTS.pong), link]);
      if ('a' in got) {
        if (got.a.result !== undefined) return pass(`accepted; the turn ended ${stopReasonOf(got.a) ?? '?'}`);
        return fail(`a prompt with a resource_link got ${describeReply(got.a)}${d.exitNote()}`);
      }
      if (!got.b) return fail(`no answer and no update in ${d.turnTimeout()} ms`);
      await endTurn(d, sessionId, reply);
      return pass('accepted (the turn started streaming; the probe then cancelled it)');
    },
  },
  {
    id: 'cancel-mid-turn', shared: true, tier: 'required', spec: '3', client: { permission: 'hold' }, quote: QUOTES.mustSupport,
    title: 'session/cancel after the first update: the turn ends `cancelled`, pending requests are resolved, no update after the answer',
    async run(d) {
      const { sessionId } = await d.ready();
      const { reply, got } = await promptUntilFirstUpdate(d, sessionId, text(PROMPTS.long));
      if ('a' in got) return skip(`the turn ended (${describeReply(got.a)}) before any update, so there was no moment to cancel mid-turn`);
      if (!got.b) return fail(`no update and no answer in ${d.turnTimeout()} ms${d.exitNote()}`);
      d.cancel(sessionId, { provoke: true });
      let r = await within(reply, d.settings.timeoutMs, { timeout: true } as Reply);
      let reason = stopReasonOf(r);
      if (r.error) return graded(fail(`after session/cancel the prompt got ${describeReply(r)}; it should be answered with the cancelled stop reason`), 'advisory', QUOTES.cancelShould);
      if (!reason) return fail(`after session/cancel the prompt got ${describeReply(r)}${d.exitNote()}; an agent must support session/cancel, and the prompt must be answered`);
      let note = '';
      if (reason !== 'cancelled') {
        // The cancel may have crossed the answer of a turn that was ending anyway (a short scripted
        // turn). Once more, with the cancel in the same write as the prompt: the agent reads it while
        // the turn runs, whatever the turn's length.
        const first = reason;
        const again = d.conn.batch(() => {
          const p = d.prompt(sessionId, text(PROMPTS.long));
          d.cancel(sessionId, { provoke: true });
          return p;
        });
        r = await within(again, d.settings.timeoutMs, { timeout: true } as Reply);
        reason = stopReasonOf(r);
        if (r.error) return graded(fail(`after session/cancel the turn ended "${first}", and a second turn cancelled right after its prompt got ${describeReply(r)}; it should be answered with the cancelled stop reason`), 'advisory', QUOTES.cancelShould);
        if (!reason) return fail(`after session/cancel the turn ended "${first}", and a second turn cancelled right after its prompt got ${describeReply(r)}${d.exitNote()}; the prompt must be answered`);
        if (reason !== 'cancelled') return graded(fail(`after session/cancel the turn ended "${first}", and a second turn cancelled right after its prompt ended "${reason}"; it should be "cancelled"`), 'advisory', QUOTES.cancelShould);
        note = ` (the first cancel crossed the end of a short turn, answered "${first}"; a turn cancelled right after its prompt ended cancelled)`;
      }
      await d.conn.settle(LATE_MS);
      const late = conversationUpdatesOf(d, sessionId, r.frame!.seq);
      if (late.length) return graded(fail(`${late.length} session/update of the turn (${updateKind(late[0]!)}) after the cancelled answer (first #${late[0]!.seq}); pending updates should come before the answer`), 'advisory', QUOTES.cancelShould);
      return pass(`answered cancelled; no update after the answer${note}`);
    },
  },
  {
    id: 'cancel-pending-permission', shared: true, long: true, tier: 'required', spec: '3', client: { permission: 'hold' }, quote: QUOTES.mustSupport,
    title: 'session/cancel while a permission request is pending: the probe answers it `cancelled`, the turn ends `cancelled`',
    async run(d) {
      const { sessionId } = await d.ready();
      const reply = d.prompt(sessionId, text(PROMPTS.permission));
      const got = await first(reply, d.nextRequest('session/request_permission', d.turnTimeout()));
      if ('a' in got) return skip(`the agent asked no permission in this turn (${describeReply(got.a)}); it depends on what the model chose to do`);
      if (!got.b) return fail(`no permission request and no answer in ${d.turnTimeout()} ms${d.exitNote()}`);
      d.cancel(sessionId, { provoke: true });
      const r = await within(reply, d.settings.timeoutMs, { timeout: true } as Reply);
      const reason = stopReasonOf(r);
      if (reason === 'cancelled') return pass('the permission was answered cancelled; the turn ended cancelled');
      if (reason) return graded(fail(`after session/cancel with a pending permission (answered cancelled) the prompt got stopReason "${reason}"; it should be "cancelled"`), 'advisory', QUOTES.cancelShould);
      if (r.error) return graded(fail(`after session/cancel with a pending permission (answered cancelled) the prompt got ${describeReply(r)}; it should be answered with the cancelled stop reason`), 'advisory', QUOTES.cancelShould);
      return fail(`after session/cancel with a pending permission the prompt got ${describeReply(r)}${d.exitNote()}; an agent must support session/cancel, and the prompt must be answered`);
    },
  },
  {
    id: 'capabilities-off', shared: true, long: true, tier: 'advisory', spec: '4.4 rule 4',
    quote: says('"`fs/read_text_file` and `fs/write_text_file` exist only when the matching client capability is true; `terminal/*` only when `terminal` is true." (4.4 rule 4)'),
    title: 'with every client capability off, the agent never calls fs/* or terminal/*',
    async run(d) {
      const { sessionId } = await d.ready();
      const r = await d.prompt(sessionId, text(PROMPTS.tools));
      const gated = d.client.called.filter((m) => m.startsWith('fs/') || m.startsWith('terminal/'));
      if (gated.length) return fail(`called ${[...new Set(gated)].join(', ')} although the client advertised neither fs nor terminal`);
      if (!stopReasonOf(r)) return graded(fail(`the turn got ${describeReply(r)}${d.exitNote()}`), 'required', `${QUOTES.mustSupport}; the session/prompt result: "stopReason StopReason req" (4.1)`);
      return pass(`no fs/terminal call in a turn asked to read, write and run (ended ${stopReasonOf(r)})`);
    },
  },
  {
    id: 'cancel-request', shared: true, long: true, tier: 'required', spec: '7 rule 2',
    quote: '"After `$/cancel_request`, the receiver must answer the original request with either a valid response (partial results or a cancellation marker) or an error with code -32800." (7 rule 2)',
    title: '$/cancel_request for a running prompt: the prompt is still answered (a result, or -32800)',
    async run(d) {
      const { sessionId } = await d.ready();
      const reply = d.conn.request('session/prompt', { sessionId, prompt: text(PROMPTS.long) }, { timeoutMs: d.turnTimeout() });
      const got = await first(reply, d.turnRunning(sessionId));
      if ('a' in got) return skip(`the turn ended (${describeReply(got.a)}) before any update, so there was no moment to cancel the request`);
      if (!got.b) return fail(`no update and no answer in ${d.turnTimeout()} ms${d.exitNote()}`);
      d.conn.notify('$/cancel_request', { requestId: reply.id });
      // An agent that honours it answers at once; one that ignores it (4.3 allows that) is then
      // cancelled the ordinary way, and passes the same: a short wait decides nothing.
      let r = await within(reply, Math.min(d.settings.timeoutMs, CANCEL_REQUEST_WAIT_MS), undefined);
      let note = '';
      if (!r) {
        // Ignoring a `$/` notification is allowed (4.3): end the turn the ordinary way, then judge.
        d.cancel(sessionId);
        r = await within(reply, d.settings.timeoutMs, { timeout: true } as Reply);
        note = ' after session/cancel (it ignored $/cancel_request, which 4.3 allows)';
      }
      if (errorCode(r) === -32800) return pass(`answered -32800 (request cancelled)${note}`);
      if (r.result !== undefined) return pass(`answered with a result (stopReason ${stopReasonOf(r) ?? '?'})${note}`);
      return fail(`after $/cancel_request the prompt got ${describeReply(r)}${note}${d.exitNote()}; it must be a result or -32800`);
    },
  },

  // ---- capability-gated: advisory, but for a `req` field of a result --------------------------
  {
    id: 'authenticate', tier: 'advisory', spec: '5', quote: says('"After success, `session/new` does not return the authentication-required error." (5 rule 2)'),
    title: 'with authMethods: session/new gets -32000 before authenticate (--auth), and works after it',
    skipUnless: (f, s) => (!f.authMethods.length ? 'the agent advertises no authentication methods'
      : !s.auth ? `pass --auth METHOD_ID to test authentication (advertised: ${f.authMethods.map((m) => m.id).join(', ')})` : undefined),
    async run(d) {
      await d.initialize();
      const before = await d.request('session/new', { cwd: d.settings.cwd, mcpServers: [] });
      await d.authenticate();
      await d.newSession();
      if (errorCode(before) === -32000) return pass(`-32000 before authenticate; session/new works after authenticate ${d.settings.auth}`);
      if (before.result !== undefined) return pass(`the agent does not require authentication before session/new; authenticate ${d.settings.auth} works`);
      return graded(info(`before authenticate, session/new got ${describeReply(before)} (the authentication-required error is -32000); authenticate ${d.settings.auth} works`), 'info', '"The authentication-required error has code -32000 and may be returned by `session/new`." (5 rule 5): may, and which other error another answer is is not shown (7 rule 4)');
    },
  },
  {
    id: 'set-mode', shared: true, tier: 'advisory', spec: '3', title: 'session/set_mode with an advertised mode works; what a bogus mode id gets is reported',
    quote: says('session/set_mode: "mode is one of the `availableModes` given at creation or load" → "current mode changed" (3)'),
    async run(d) {
      const { sessionId, result } = await d.ready();
      const modes = isObj(result.modes) && Array.isArray(result.modes.availableModes) ? result.modes.availableModes.filter(isObj) : [];
      if (!modes.length) return skip('session/new offered no modes');
      const current = isObj(result.modes) ? result.modes.currentModeId : undefined;
      const target = (modes.find((m) => m.id !== current) ?? modes[0]!).id;
      const ok = await d.request('session/set_mode', { sessionId, modeId: target });
      if (!ok.error && ok.result === undefined) return unanswered(fail(`set_mode to the advertised mode ${JSON.stringify(target)} got ${describeReply(ok)}${d.exitNote()}; every request gets a response`));
      if (ok.result === undefined) return fail(`set_mode to the advertised mode ${JSON.stringify(target)} got ${describeReply(ok)}`);
      const bad = await d.request('session/set_mode', { sessionId, modeId: 'acp-inspect-no-such-mode' }, { provoke: true });
      const q = '"`session/set_mode` is valid only with a mode id advertised in `availableModes`." (4.4 rule 8): a rule on the client; the answer to an invalid one is not shown (7 rule 4)';
      if (!bad.error && bad.result === undefined) return unanswered(fail(`set_mode to a mode that was never advertised got ${describeReply(bad)}; every request gets a response`));
      return graded(info(`mode ${JSON.stringify(target)} set; the bogus mode got ${describeReply(bad)}`), 'info', q);
    },
  },
  {
    id: 'set-config-option', shared: true, tier: 'advisory', spec: '4.1', title: 'session/set_config_option with an offered value works; what a bogus value gets is reported',
    quote: 'the spec says of no set_config_option that it must succeed; its result, when it does: "configOptions SessionConfigOption[] req (full set with current values)" (4.1)',
    async run(d) {
      const { sessionId, result } = await d.ready();
      const opts = Array.isArray(result.configOptions) ? result.configOptions.filter(isObj) : [];
      const select = opts.find((o) => (o.type === 'select' || o.type === undefined) && Array.isArray(o.options) && o.options.length);
      if (!select) return skip(opts.length ? 'no select config option with values to set' : 'session/new offered no config options');
      const values = (select.options as unknown[]).filter(isObj).flatMap((o) => (Array.isArray(o.options) ? o.options.filter(isObj) : [o]));
      const value = (values.find((v) => v.value !== select.currentValue) ?? values[0])?.value;
      const ok = await d.request('session/set_config_option', { sessionId, configId: select.id, value });
      if (!ok.error && ok.result === undefined) return unanswered(fail(`setting ${String(select.id)} to ${JSON.stringify(value)} got ${describeReply(ok)}${d.exitNote()}; every request gets a response`));
      if (ok.error) return fail(`setting ${String(select.id)} to the offered value ${JSON.stringify(value)} got ${describeReply(ok)}`);
      if (!isObj(ok.result) || !Array.isArray(ok.result.configOptions)) return graded(fail(`setting ${String(select.id)} to ${JSON.stringify(value)} got ${describeReply(ok)}; the result is the full configOptions`), 'capability', 'the session/set_config_option result: "configOptions SessionConfigOption[] req (full set with current values)" (4.1), "`req` means required"');
      const bad = await d.request('session/set_config_option', { sessionId, configId: select.id, value: 'acp-inspect-no-such-value' }, { provoke: true });
      if (!bad.error && bad.result === undefined) return unanswered(fail(`setting ${String(select.id)} to a value never offered got ${describeReply(bad)}; every request gets a response`));
      return graded(info(`${String(select.id)} set to ${JSON.stringify(value)}; the bogus value got ${describeReply(bad)}`), 'info', QUOTES.notShown);
    },
  },
  {
    id: 'session-load', long: true, reopens: true, tier: 'advisory', spec: '6 rule 2', quote: says('"`session/load` streams the whole conversation history as notifications before completing." (6 rule 2)'), title: 'session/load replays the history as updates before it answers',
    skipUnless: (f) => (f.agentCapabilities.loadSession === true ? undefined : 'loadSession is not advertised'),
    async run(d) {
      const { sessionId } = await d.ready();
      const turn = await d.prompt(sessionId, text(PROMPTS.pong));
      if (!stopReasonOf(turn)) return fail(`the turn before the load got ${describeReply(turn)}`);
      const { r, from, note } = await reopen(d, 'session/load', sessionId);
      if (!r.error && r.result === undefined) return unanswered(fail(`session/load got ${describeReply(r)}${note}${d.exitNote()}; every request gets a response`));
      if (r.result === undefined) return fail(`session/load got ${describeReply(r)}${note}`);
      await d.conn.settle(LATE_MS);
      const before = conversationUpdatesOf(d, sessionId, from, r.frame!.seq);
      const after = conversationUpdatesOf(d, sessionId, r.frame!.seq);
      if (after.length) return fail(`${after.length} history update(s) after the load's answer (first #${after[0]!.seq}, ${updateKind(after[0]!)}); history comes before it`);
      if (!before.length) return fail('session/load answered without replaying any history (the session had a turn)');
      return pass(`replayed ${before.length} updates, then answered${note}`);
    },
  },
  {
    id: 'session-resume', long: true, reopens: true, tier: 'advisory', spec: '3', quote: says('Session stored → `session/resume` (capability `resume`) → active: "history is not replayed" (3)'), title: 'session/resume reopens a session (after a turn) without replaying its history',
    skipUnless: SESSION_CAP('resume'),
    async run(d) {
      const { sessionId } = await d.ready();
      // A session is stored once it has a turn.
      const turn = await d.prompt(sessionId, text(PROMPTS.pong));
      if (!stopReasonOf(turn)) return fail(`the turn before the resume got ${describeReply(turn)}`);
      await d.conn.settle(200);
      const { r, from, note } = await reopen(d, 'session/resume', sessionId);
      if (!r.error && r.result === undefined) return unanswered(fail(`session/resume got ${describeReply(r)}${note}${d.exitNote()}; every request gets a response`));
      if (r.result === undefined) return fail(`session/resume of a session with one turn got ${describeReply(r)}${note}`);
      const replayed = conversationUpdatesOf(d, sessionId, from, r.frame!.seq);
      if (replayed.length) return fail(`session/resume sent ${replayed.length} update(s) before answering; resume does not replay history${note}`);
      return pass(`resumed${note}`);
    },
  },
  {
    id: 'session-list', shared: true, tier: 'capability', spec: '4.1', quote: 'the session/list result: "sessions SessionInfo[] req" (4.1), "`req` means required"', title: 'session/list answers a sessions array',
    skipUnless: SESSION_CAP('list'),
    async run(d) {
      const { sessionId } = await d.ready();
      const r = await d.request('session/list', {});
      if (!r.error && r.result === undefined) return unanswered(fail(`session/list got ${describeReply(r)}${d.exitNote()}; every request gets a response`));
      if (r.error) return graded(fail(`session/list got ${describeReply(r)} although sessionCapabilities.list is advertised`), 'advisory', says('`list` "gates the method of the same name" (2.3)'));
      if (!isObj(r.result) || !Array.isArray(r.result.sessions)) return fail(`session/list got ${describeReply(r)}; the result has a sessions array`);
      const listed = r.result.sessions.some((s) => isObj(s) && s.sessionId === sessionId);
      return pass(`${r.result.sessions.length} session(s)${listed ? ', including the new one' : ''}`);
    },
  },
  {
    id: 'session-close', shared: true, tier: 'advisory', spec: '3', title: 'session/close works; what a prompt to the closed session gets is reported',
    quote: says('Session active → `session/close` (capability `close`) → closed (3); its result: "empty" (4.1)'),
    skipUnless: SESSION_CAP('close'),
    async run(d) {
      const { sessionId } = await d.ready();
      // What an agent sends on its own after session/new (available commands...) comes first, as in an
      // editor, where a session is not closed within a millisecond of its creation.
      await d.conn.settle(500);
      const r = await d.request('session/close', { sessionId });
      if (!r.error && r.result === undefined) return unanswered(fail(`session/close got ${describeReply(r)}${d.exitNote()}; every request gets a response`));
      if (r.result === undefined) return fail(`session/close got ${describeReply(r)}`);
      const after = await d.request('session/prompt', { sessionId, prompt: text(PROMPTS.pong) }, { provoke: true, timeoutMs: d.settings.timeoutMs });
      if (!after.error && after.result === undefined) return unanswered(fail(`a prompt to the closed session got ${describeReply(after)}; every request gets a response`));
      return graded(info(`closed; a prompt to it got ${describeReply(after)}`), 'info', QUOTES.notShown);
    },
  },
  {
    id: 'session-fork', shared: true, tier: 'unstable', spec: '9 rule 5', quote: `${QUOTES.unstable}; \`session/fork\` is marked UNSTABLE (4.1)`, title: 'session/fork answers a new, different session id',
    skipUnless: SESSION_CAP('fork'),
    async run(d) {
      const { sessionId } = await d.ready();
      const r = await d.request('session/fork', { sessionId, cwd: d.settings.cwd, mcpServers: [] });
      if (!isObj(r.result) || typeof r.result.sessionId !== 'string') return fail(`session/fork got ${describeReply(r)}${d.exitNote()}`);
      if (r.result.sessionId === sessionId) return fail('session/fork answered the same session id');
      return pass('forked into a new session');
    },
  },

  // ---- info: the spec binds the client --------------------------------------------------------
  {
    id: 'session-new-relative-cwd', tier: 'info', spec: '2.1', title: 'session/new with a relative cwd: what the agent answers',
    quote: '"Fields named `path`, `cwd` and each entry of `additionalDirectories` are absolute paths." (2.1): a rule on the sender, the client; the answer to a relative one is not shown (7 rule 4)',
    async run(d) {
      await d.initialize();
      await d.authenticate();
      const r = await d.request('session/new', { cwd: 'relative/folder', mcpServers: [] }, { provoke: true });
      if (r.error || r.result !== undefined) return info(`answered ${describeReply(r)}`);
      return unanswered(fail(`session/new with a relative cwd got ${describeReply(r)}${d.exitNote()}; every request gets a response`));
    },
  },
  contentScenario('prompt-image', 'image', { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==' }, 'an image block', 'prompts may include image blocks'),
  contentScenario('prompt-audio', 'audio', { type: 'audio', mimeType: 'audio/wav', data: 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=' }, 'an audio block', 'prompts may include audio blocks'),
  contentScenario('prompt-embedded-resource', 'embeddedContext', { type: 'resource', resource: { uri: 'file:///probe/note.txt', mimeType: 'text/plain', text: 'pong' } }, 'an embedded resource block', 'prompts may include embedded resource blocks'),

  // ---- info ----------------------------------------------------------------------------------
  {
    id: 'capabilities-on', long: true, tier: 'info', spec: '2.3', client: { fs: true, terminal: true },
    quote: 'the client advertised fs and terminal: whether an agent uses them is its choice ("Every capability is optional", 9 rule 3)',
    title: 'with fs and terminal advertised: which client methods the agent uses',
    async run(d) {
      const { sessionId } = await d.ready();
      const r = await d.prompt(sessionId, text(PROMPTS.tools));
      const used = [...new Set(d.client.called.filter((m) => m !== 'session/request_permission'))];
      return info(`${used.length ? `used ${used.join(', ')}` : 'called no fs/terminal method'}; the turn ${stopReasonOf(r) ? `ended ${stopReasonOf(r)}` : `got ${describeReply(r)}`}`);
    },
  },
  {
    id: 'concurrent-prompts', shared: true, long: true, tier: 'info', spec: '3', quote: '"The stop reason values of a prompt turn and any further turn states are not shown." (3)',
    title: 'two prompts on one session at once: what the agent does with the second',
    async run(d) {
      const { sessionId } = await d.ready();
      const a = d.prompt(sessionId, text(PROMPTS.pong));
      await new Promise((r) => setTimeout(r, 50));
      const b = d.prompt(sessionId, text(PROMPTS.pong), { provoke: true });
      const ra = await a;
      // An agent that queues the second turn runs it once the first ended: a short turn, so it is
      // answered well within the probe's answer time after that (not a whole turn's time).
      const firstAnswered = ra.error !== undefined || ra.result !== undefined;
      let rb = firstAnswered ? await within(b, d.settings.timeoutMs, { timeout: true } as Reply) : await b;
      // A second turn that shows it runs (an update of the session after the first answer) gets a whole
      // turn's time, as any turn does: a long turn, or a loaded machine, is no unanswered request.
      if (rb.timeout && firstAnswered && ra.frame && conversationUpdatesOf(d, sessionId, ra.frame.seq).length) rb = await b;
      const say = (r: Reply) => (stopReasonOf(r) ? `ended ${stopReasonOf(r)}` : describeReply(r));
      if (!rb.error && rb.result === undefined) {
        return unanswered(fail(`first prompt ${say(ra)}; the second got ${describeReply(rb)}${ra.result !== undefined || ra.error ? ` in the ${d.settings.timeoutMs} ms after the first was answered` : ''}${d.exitNote()}; every request gets a response`));
      }
      if (!ra.error && ra.result === undefined) return unanswered(fail(`the first prompt got ${describeReply(ra)}${d.exitNote()}; the second ${say(rb)}; every request gets a response`));
      return info(`first prompt ${say(ra)}; second ${say(rb)}`);
    },
  },
  {
    id: 'permission-rejected', shared: true, long: true, tier: 'info', spec: '4.2', client: { permission: 'reject' },
    quote: 'what an agent does after a rejected permission is not shown (4.2, 2.13: RequestPermissionOutcome)',
    title: 'a rejected permission: how the turn goes on',
    async run(d) {
      const { sessionId } = await d.ready();
      const r = await d.prompt(sessionId, text(PROMPTS.permission));
      const asked = d.conn.received().some((f) => f.kind === 'request' && f.method === 'session/request_permission' && f.sessionId === sessionId);
      return info(`${asked ? 'asked permission, the probe rejected it' : 'asked no permission (model-dependent)'}; the turn ${stopReasonOf(r) ? `ended ${stopReasonOf(r)}` : `got ${describeReply(r)}`}`);
    },
  },
];

/** Ids of every scenario (for `--only` checks and `--list`). */
export const AGENT_SCENARIO_IDS = AGENT_SCENARIOS.map((s) => s.id);
