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
import { type AgentFacts, type AgentProbeSettings, type Driver, type Outcome, fail, first, info, isObj, pass, skip, text, within } from './driver.js';

export interface AgentScenario {
  id: string;
  title: string;
  tier: Tier;
  /** Section of the spec (shared spec numbering), e.g. "9 rule 2". */
  spec: string;
  /** Why the scenario does not apply to this agent (it is then skipped), from its `initialize` answer. */
  skipUnless?: (facts: AgentFacts, settings: AgentProbeSettings) => string | undefined;
  /** What the probe advertises and how it answers permission requests (default: nothing; allow). */
  client?: { fs?: boolean; terminal?: boolean; permission?: PermissionPolicy };
  /** Checker rules the provocations set off away from the provoking frame (the probe's findings). */
  provokes?: string[];
  /** Waits for whole turns: scheduled first, so that the short scenarios fill in around it. */
  long?: boolean;
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
const STOP_REASONS = ['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled'];
const cap = (f: AgentFacts, ...path: string[]): unknown => path.reduce<unknown>((v, k) => (isObj(v) ? v[k] : undefined), f.agentCapabilities);
const present = (v: unknown): boolean => v !== undefined && v !== null && v !== false;
const stopReasonOf = (r: Reply): string | undefined => (isObj(r.result) && typeof r.result.stopReason === 'string' ? r.result.stopReason : undefined);
const updatesOf = (d: Driver, sessionId: string, from: number, to = Infinity): Frame[] =>
  d.conn.received().filter((f) => f.seq > from && f.seq < to && f.method === 'session/update' && f.kind === 'notification' && f.sessionId === sessionId);
/** Responses from the agent since item `from` that answer none of the probe's requests. */
const strayAnswers = (d: Driver, from: number): Frame[] =>
  d.conn.received().filter((f) => f.seq > from && (f.kind === 'result' || f.kind === 'error') && f.replyTo === undefined);
/**
 * Updates that belong to a turn or to the conversation's history: messages, thoughts, tool calls,
 * plans. Session-level ones (available commands, mode, config, session info, usage) may come at any
 * time, so they neither break "no update after the cancelled answer" nor count as replayed history.
 */
const CONVERSATION_UPDATES = new Set(['user_message_chunk', 'agent_message_chunk', 'agent_thought_chunk', 'tool_call', 'tool_call_update', 'plan', 'plan_update', 'plan_removed']);
const conversationUpdatesOf = (d: Driver, sessionId: string, from: number, to = Infinity): Frame[] =>
  updatesOf(d, sessionId, from, to).filter((f) => CONVERSATION_UPDATES.has(updateKind(f) ?? ''));

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
  d.conn.notify('session/cancel', { sessionId });
  d.client.cancelHeld();
  return reply;
}

/**
 * `session/load` or `session/resume` of a session that had a turn: on this connection, or, when the
 * agent will not reopen a session that is open on it ("already loaded"), on a new connection to a
 * new process, where the session is a stored one, as after an editor restart.
 */
async function reopen(d: Driver, method: 'session/load' | 'session/resume', sessionId: string): Promise<{ r: Reply; from: number; note: string }> {
  const params = { sessionId, cwd: d.settings.cwd, mcpServers: [] };
  const from = d.conn.items.length;
  const r = await d.request(method, params);
  if (!r.error || d.conn.isClosed) return { r, from, note: '' };
  await d.restart();
  await d.initialize();
  await d.authenticate();
  const again = d.conn.items.length;
  return { r: await d.request(method, params), from: again, note: ` (in a new process: on the session's own connection it answered ${describeReply(r)})` };
}

/** A content block the agent may only get when it advertised the prompt capability. */
function contentScenario(id: string, capability: 'image' | 'audio' | 'embeddedContext', block: Record<string, unknown>, what: string): AgentScenario {
  return {
    id, tier: 'advisory', spec: '4.4 rule 3',
    title: `a prompt with ${what} is refused unless promptCapabilities.${capability} is advertised`,
    async run(d) {
      const advertised = cap(d.facts!, 'promptCapabilities', capability) === true;
      const { sessionId } = await d.ready();
      const { reply, got } = await promptUntilFirstUpdate(d, sessionId, [...text(PROMPTS.pong), block], { provoke: !advertised });
      const r = 'a' in got ? got.a : undefined;
      const accepted = r ? r.result !== undefined : 'b' in got && got.b !== undefined;
      if (!('a' in got)) await endTurn(d, sessionId, reply);
      if (advertised) return accepted ? pass(`${what} accepted (promptCapabilities.${capability} advertised)`) : fail(`${what} refused although promptCapabilities.${capability} is advertised: ${r ? describeReply(r) : 'no answer'}`);
      if (r?.error) return pass(`${what} refused (${describeReply(r)}); promptCapabilities.${capability} is not advertised`);
      if (accepted) return fail(`${what} accepted although promptCapabilities.${capability} is not advertised; the agent should answer an error`);
      return fail(`no answer and no update for a prompt with ${what}`);
    },
  };
}

const SESSION_CAP = (name: string) => (f: AgentFacts): string | undefined =>
  present(cap(f, 'sessionCapabilities', name)) ? undefined : `sessionCapabilities.${name} is not advertised`;

export const AGENT_SCENARIOS: AgentScenario[] = [
  // ---- required ------------------------------------------------------------------------------
  {
    id: 'initialize', tier: 'required', spec: '9 rule 2', title: 'initialize with version 1 is answered with a protocol version and capabilities',
    async run(d) {
      const r = await d.initialize();
      if (typeof r.protocolVersion !== 'number' || !Number.isInteger(r.protocolVersion)) return fail(`initialize answered protocolVersion ${JSON.stringify(r.protocolVersion)}, not an integer`);
      if (r.protocolVersion !== 1) return fail(`asked for version 1, the agent answered ${r.protocolVersion}; an agent that supports version 1 answers 1, and this probe tests version 1`);
      return pass(`answered protocol version ${r.protocolVersion}`);
    },
  },
  {
    id: 'version-unsupported', tier: 'required', spec: '9 rule 2', provokes: ['version-mismatch'],
    title: 'initialize with an unsupported version (65535) is answered with a version the agent supports',
    async run(d) {
      const r = await d.request('initialize', { protocolVersion: 65535, clientCapabilities: d.clientCapabilities(), clientInfo: { name: 'acp-inspect-probe', version: '1' } }, { provoke: true, timeoutMs: d.startTimeout() });
      if (!isObj(r.result)) return fail(`initialize 65535 got ${describeReply(r)}${d.exitNote()}; the agent must answer with the latest version it supports`);
      const v = r.result.protocolVersion;
      if (v === 65535) return fail('the agent accepted protocol version 65535, which it cannot support; it must answer with the latest it supports');
      if (typeof v !== 'number' || !Number.isInteger(v)) return fail(`protocolVersion ${JSON.stringify(v)} is not an integer`);
      return pass(`answered version ${v}`);
    },
  },
  {
    id: 'prompt-turn', long: true, tier: 'required', spec: '4.4 rule 2', title: 'session/new, then a prompt turn ends with a stop reason',
    async run(d) {
      const { sessionId } = await d.ready();
      const r = await d.prompt(sessionId, text(PROMPTS.pong));
      const reason = stopReasonOf(r);
      if (!reason) return fail(`session/prompt got ${describeReply(r)}${d.exitNote()}`);
      if (!STOP_REASONS.includes(reason)) return fail(`stop reason ${JSON.stringify(reason)} is not one of ${STOP_REASONS.join(', ')}`);
      return pass(`turn ended ${reason} after ${updatesOf(d, sessionId, 0).length} updates`);
    },
  },
  {
    id: 'session-new-missing-fields', tier: 'required', spec: '7', title: 'session/new without its required fields gets -32602 (invalid params)',
    async run(d) {
      await d.initialize();
      await d.authenticate();
      const r = await d.request('session/new', {}, { provoke: true });
      if (errorCode(r) === -32602) return pass('answered -32602');
      if (r.error) return fail(`answered ${describeReply(r)}; missing cwd and mcpServers is invalid params, -32602`);
      return fail(`session/new with no cwd and no mcpServers got ${describeReply(r)}${d.exitNote()}; it must be -32602`);
    },
  },
  {
    id: 'unknown-method', tier: 'required', spec: '7 rule 3', title: 'an unknown method gets -32601 (method not found)',
    async run(d) {
      await d.initialize();
      const r = await d.request('acp_inspect_probe/no_such_method', {}, { provoke: true });
      if (errorCode(r) === -32601) return pass('answered -32601');
      return fail(`an unknown method got ${describeReply(r)}${d.exitNote()}; it must be -32601`);
    },
  },
  {
    id: 'extension-request', tier: 'required', spec: '4.3', title: 'an `_`-prefixed extension request gets a response (a result or an error)',
    async run(d) {
      await d.initialize();
      const r = await d.request('_acp_inspect/probe', { probe: true });
      if (r.result !== undefined || r.error) return pass(`answered: ${describeReply(r)}`);
      return fail(`an extension request got ${describeReply(r)}${d.exitNote()}; every request needs a response`);
    },
  },
  {
    id: 'unknown-notifications', tier: 'required', spec: '4.3', title: 'unknown `_` and `$/` notifications are ignored and the connection stays usable',
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
    id: 'unknown-session', tier: 'required', spec: '7', title: 'a prompt to a session that does not exist gets an error',
    async run(d) {
      await d.initialize();
      await d.authenticate();
      const r = await d.request('session/prompt', { sessionId: 'acp-inspect-no-such-session', prompt: text(PROMPTS.pong) }, { provoke: true });
      if (r.error) return pass(`answered ${describeReply(r)}`);
      return fail(`a prompt to an unknown session got ${describeReply(r)}${d.exitNote()}; it must be an error`);
    },
  },
  {
    id: 'not-json', tier: 'required', spec: '7', title: 'a line that is not JSON gets a parse error (-32700) or is ignored, and the connection stays usable',
    async run(d) {
      await d.initialize();
      const from = d.conn.items.length;
      d.conn.sendRaw('{"jsonrpc":"2.0", this line is not JSON', { provoke: true });
      try {
        await d.authenticate();
        await d.newSession();
      } catch (e) {
        if (d.conn.isClosed) return fail(`the connection did not survive a line that was not JSON${d.exitNote()}`);
        throw e;
      }
      await d.conn.settle(100);
      if (d.proc.exit) return fail(`the connection did not survive a line that was not JSON${d.exitNote()}`);
      const answers = strayAnswers(d, from);
      const bad = answers.find((f) => !(f.kind === 'error' && isObj(f.json) && isObj(f.json.error) && f.json.error.code === -32700));
      if (bad) return fail(`answered the non-JSON line with #${bad.seq}: ${bad.raw.slice(0, 100)}; only a -32700 parse error (or nothing) fits`);
      return pass(`${answers.length ? 'answered -32700' : 'ignored it'}; session/new still works`);
    },
  },
  {
    id: 'prompt-resource-link', tier: 'required', spec: '4.4 rule 3', title: 'a prompt with a resource_link block is accepted (every agent must)',
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
    id: 'cancel-mid-turn', tier: 'required', spec: '3', client: { permission: 'hold' },
    title: 'session/cancel after the first update: the turn ends `cancelled`, pending requests are resolved, no update after the answer',
    async run(d) {
      const { sessionId } = await d.ready();
      const { reply, got } = await promptUntilFirstUpdate(d, sessionId, text(PROMPTS.long));
      if ('a' in got) return skip(`the turn ended (${describeReply(got.a)}) before any update, so there was no moment to cancel mid-turn`);
      if (!got.b) return fail(`no update and no answer in ${d.turnTimeout()} ms${d.exitNote()}`);
      d.conn.notify('session/cancel', { sessionId }, { provoke: true });
      d.client.cancelHeld();
      let r = await within(reply, d.settings.timeoutMs, { timeout: true } as Reply);
      let reason = stopReasonOf(r);
      if (!reason) return fail(`after session/cancel the prompt got ${describeReply(r)}${d.exitNote()}; it must end with stopReason "cancelled"`);
      let note = '';
      if (reason !== 'cancelled') {
        // The cancel may have crossed the answer of a turn that was ending anyway (a short scripted
        // turn). Once more, with the cancel in the same write as the prompt: the agent reads it while
        // the turn runs, whatever the turn's length.
        const first = reason;
        const again = d.conn.batch(() => {
          const p = d.prompt(sessionId, text(PROMPTS.long));
          d.conn.notify('session/cancel', { sessionId }, { provoke: true });
          return p;
        });
        r = await within(again, d.settings.timeoutMs, { timeout: true } as Reply);
        reason = stopReasonOf(r);
        if (reason !== 'cancelled') return fail(`after session/cancel the turn ended "${first}", and a second turn cancelled right after its prompt ${reason ? `ended "${reason}"` : `got ${describeReply(r)}`}; it must be "cancelled"`);
        note = ` (the first cancel crossed the end of a short turn, answered "${first}"; a turn cancelled right after its prompt ended cancelled)`;
      }
      await d.conn.settle(LATE_MS);
      const late = conversationUpdatesOf(d, sessionId, r.frame!.seq);
      if (late.length) return fail(`${late.length} session/update of the turn (${updateKind(late[0]!)}) after the cancelled answer (first #${late[0]!.seq}); updates of a turn come before its answer`);
      const held = d.client.held.length;
      if (held) return fail(`${held} permission request(s) arrived after the cancel and stayed pending`);
      return pass(`answered cancelled; no update after the answer${note}`);
    },
  },
  {
    id: 'cancel-pending-permission', long: true, tier: 'required', spec: '3', client: { permission: 'hold' },
    title: 'session/cancel while a permission request is pending: the probe answers it `cancelled`, the turn ends `cancelled`',
    async run(d) {
      const { sessionId } = await d.ready();
      const reply = d.prompt(sessionId, text(PROMPTS.permission));
      const got = await first(reply, d.nextRequest('session/request_permission', d.turnTimeout()));
      if ('a' in got) return skip(`the agent asked no permission in this turn (${describeReply(got.a)}); it depends on what the model chose to do`);
      if (!got.b) return fail(`no permission request and no answer in ${d.turnTimeout()} ms${d.exitNote()}`);
      d.conn.notify('session/cancel', { sessionId }, { provoke: true });
      d.client.cancelHeld();
      const r = await within(reply, d.settings.timeoutMs, { timeout: true } as Reply);
      const reason = stopReasonOf(r);
      if (reason === 'cancelled') return pass('the permission was answered cancelled; the turn ended cancelled');
      return fail(`after session/cancel with a pending permission the prompt got ${reason ? `stopReason "${reason}"` : describeReply(r)}${d.exitNote()}; it must be "cancelled"`);
    },
  },
  {
    id: 'capabilities-off', long: true, tier: 'required', spec: '4.4 rule 4',
    title: 'with every client capability off, the agent never calls fs/* or terminal/*',
    async run(d) {
      const { sessionId } = await d.ready();
      const r = await d.prompt(sessionId, text(PROMPTS.tools));
      const gated = d.client.called.filter((m) => m.startsWith('fs/') || m.startsWith('terminal/'));
      if (gated.length) return fail(`called ${[...new Set(gated)].join(', ')} although the client advertised neither fs nor terminal`);
      if (!stopReasonOf(r)) return fail(`the turn got ${describeReply(r)}${d.exitNote()}`);
      return pass(`no fs/terminal call in a turn asked to read, write and run (ended ${stopReasonOf(r)})`);
    },
  },
  {
    id: 'cancel-request', long: true, tier: 'required', spec: '7 rule 2',
    title: '$/cancel_request for a running prompt: the prompt is still answered (a result, or -32800)',
    async run(d) {
      const { sessionId } = await d.ready();
      const reply = d.conn.request('session/prompt', { sessionId, prompt: text(PROMPTS.long) }, { timeoutMs: d.turnTimeout() });
      const got = await first(reply, d.turnRunning(sessionId));
      if ('a' in got) return skip(`the turn ended (${describeReply(got.a)}) before any update, so there was no moment to cancel the request`);
      if (!got.b) return fail(`no update and no answer in ${d.turnTimeout()} ms${d.exitNote()}`);
      d.conn.notify('$/cancel_request', { requestId: reply.id });
      let r = await within(reply, d.settings.timeoutMs, undefined);
      let note = '';
      if (!r) {
        // Ignoring a `$/` notification is allowed (4.3): end the turn the ordinary way, then judge.
        d.conn.notify('session/cancel', { sessionId });
        d.client.cancelHeld();
        r = await within(reply, d.settings.timeoutMs, { timeout: true } as Reply);
        note = ' after session/cancel (it ignored $/cancel_request, which 4.3 allows)';
      }
      if (errorCode(r) === -32800) return pass(`answered -32800 (request cancelled)${note}`);
      if (r.result !== undefined) return pass(`answered with a result (stopReason ${stopReasonOf(r) ?? '?'})${note}`);
      return fail(`after $/cancel_request the prompt got ${describeReply(r)}${note}${d.exitNote()}; it must be a result or -32800`);
    },
  },

  // ---- capability ----------------------------------------------------------------------------
  {
    id: 'authenticate', tier: 'capability', spec: '5',
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
      return fail(`before authenticate, session/new got ${describeReply(before)}; authentication required is -32000`);
    },
  },
  {
    id: 'set-mode', tier: 'capability', spec: '4.4 rule 8', title: 'session/set_mode with an advertised mode works; with a bogus mode id it gets an error',
    async run(d) {
      const { sessionId, result } = await d.ready();
      const modes = isObj(result.modes) && Array.isArray(result.modes.availableModes) ? result.modes.availableModes.filter(isObj) : [];
      if (!modes.length) return skip('session/new offered no modes');
      const current = isObj(result.modes) ? result.modes.currentModeId : undefined;
      const target = (modes.find((m) => m.id !== current) ?? modes[0]!).id;
      const ok = await d.request('session/set_mode', { sessionId, modeId: target });
      if (ok.result === undefined) return fail(`set_mode to the advertised mode ${JSON.stringify(target)} got ${describeReply(ok)}`);
      const bad = await d.request('session/set_mode', { sessionId, modeId: 'acp-inspect-no-such-mode' }, { provoke: true });
      if (!bad.error) return fail(`set_mode to a mode that was never advertised got ${describeReply(bad)}; it must be an error`);
      return pass(`mode ${JSON.stringify(target)} set; the bogus mode got ${describeReply(bad)}`);
    },
  },
  {
    id: 'set-config-option', tier: 'capability', spec: '4.1', title: 'session/set_config_option with an offered value works; with a bogus value it gets an error',
    async run(d) {
      const { sessionId, result } = await d.ready();
      const opts = Array.isArray(result.configOptions) ? result.configOptions.filter(isObj) : [];
      const select = opts.find((o) => (o.type === 'select' || o.type === undefined) && Array.isArray(o.options) && o.options.length);
      if (!select) return skip(opts.length ? 'no select config option with values to set' : 'session/new offered no config options');
      const values = (select.options as unknown[]).filter(isObj).flatMap((o) => (Array.isArray(o.options) ? o.options.filter(isObj) : [o]));
      const value = (values.find((v) => v.value !== select.currentValue) ?? values[0])?.value;
      const ok = await d.request('session/set_config_option', { sessionId, configId: select.id, value });
      if (!isObj(ok.result) || !Array.isArray(ok.result.configOptions)) return fail(`setting ${String(select.id)} to ${JSON.stringify(value)} got ${describeReply(ok)}; the result is the full configOptions`);
      const bad = await d.request('session/set_config_option', { sessionId, configId: select.id, value: 'acp-inspect-no-such-value' }, { provoke: true });
      if (!bad.error) return fail(`setting ${String(select.id)} to a value never offered got ${describeReply(bad)}; it must be an error`);
      return pass(`${String(select.id)} set to ${JSON.stringify(value)}; the bogus value got ${describeReply(bad)}`);
    },
  },
  {
    id: 'session-load', long: true, tier: 'capability', spec: '6 rule 2', title: 'session/load replays the history as updates before it answers',
    skipUnless: (f) => (f.agentCapabilities.loadSession === true ? undefined : 'loadSession is not advertised'),
    async run(d) {
      const { sessionId } = await d.ready();
      const turn = await d.prompt(sessionId, text(PROMPTS.pong));
      if (!stopReasonOf(turn)) return fail(`the turn before the load got ${describeReply(turn)}`);
      const { r, from, note } = await reopen(d, 'session/load', sessionId);
      if (r.result === undefined) return fail(`session/load got ${describeReply(r)}${note}${d.exitNote()}`);
      await d.conn.settle(LATE_MS);
      const before = conversationUpdatesOf(d, sessionId, from, r.frame!.seq);
      const after = conversationUpdatesOf(d, sessionId, r.frame!.seq);
      if (after.length) return fail(`${after.length} history update(s) after the load's answer (first #${after[0]!.seq}, ${updateKind(after[0]!)}); history comes before it`);
      if (!before.length) return fail('session/load answered without replaying any history (the session had a turn)');
      return pass(`replayed ${before.length} updates, then answered${note}`);
    },
  },
  {
    id: 'session-resume', long: true, tier: 'capability', spec: '3', title: 'session/resume reopens a session (after a turn) without replaying its history',
    skipUnless: SESSION_CAP('resume'),
    async run(d) {
      const { sessionId } = await d.ready();
      // A session is stored once it has a turn.
      const turn = await d.prompt(sessionId, text(PROMPTS.pong));
      if (!stopReasonOf(turn)) return fail(`the turn before the resume got ${describeReply(turn)}`);
      await d.conn.settle(200);
      const { r, from, note } = await reopen(d, 'session/resume', sessionId);
      if (r.result === undefined) return fail(`session/resume of a session with one turn got ${describeReply(r)}${note}${d.exitNote()}`);
      const replayed = conversationUpdatesOf(d, sessionId, from, r.frame!.seq);
      if (replayed.length) return fail(`session/resume sent ${replayed.length} update(s) before answering; resume does not replay history${note}`);
      return pass(`resumed${note}`);
    },
  },
  {
    id: 'session-list', tier: 'capability', spec: '4.1', title: 'session/list answers a sessions array',
    skipUnless: SESSION_CAP('list'),
    async run(d) {
      const { sessionId } = await d.ready();
      const r = await d.request('session/list', {});
      if (!isObj(r.result) || !Array.isArray(r.result.sessions)) return fail(`session/list got ${describeReply(r)}; the result has a sessions array`);
      const listed = r.result.sessions.some((s) => isObj(s) && s.sessionId === sessionId);
      return pass(`${r.result.sessions.length} session(s)${listed ? ', including the new one' : ''}`);
    },
  },
  {
    id: 'session-close', tier: 'capability', spec: '3', title: 'session/close works, and a prompt to the closed session gets an error',
    skipUnless: SESSION_CAP('close'),
    async run(d) {
      const { sessionId } = await d.ready();
      // What an agent sends on its own after session/new (available commands...) comes first, as in an
      // editor, where a session is not closed within a millisecond of its creation.
      await d.conn.settle(500);
      const r = await d.request('session/close', { sessionId });
      if (r.result === undefined) return fail(`session/close got ${describeReply(r)}${d.exitNote()}`);
      const after = await d.request('session/prompt', { sessionId, prompt: text(PROMPTS.pong) }, { provoke: true, timeoutMs: d.settings.timeoutMs });
      if (!after.error) return fail(`a prompt to the closed session got ${describeReply(after)}; it must be an error`);
      return pass(`closed; a prompt to it got ${describeReply(after)}`);
    },
  },
  {
    id: 'session-fork', tier: 'capability', spec: '3', title: 'session/fork answers a new, different session id',
    skipUnless: SESSION_CAP('fork'),
    async run(d) {
      const { sessionId } = await d.ready();
      const r = await d.request('session/fork', { sessionId, cwd: d.settings.cwd, mcpServers: [] });
      if (!isObj(r.result) || typeof r.result.sessionId !== 'string') return fail(`session/fork got ${describeReply(r)}${d.exitNote()}`);
      if (r.result.sessionId === sessionId) return fail('session/fork answered the same session id');
      return pass('forked into a new session');
    },
  },

  // ---- advisory ------------------------------------------------------------------------------
  {
    id: 'session-new-relative-cwd', tier: 'advisory', spec: '2.1', title: 'session/new with a relative cwd gets an error (-32602)',
    async run(d) {
      await d.initialize();
      await d.authenticate();
      const r = await d.request('session/new', { cwd: 'relative/folder', mcpServers: [] }, { provoke: true });
      if (errorCode(r) === -32602) return pass('answered -32602');
      if (r.error) return pass(`answered ${describeReply(r)} (-32602 would be more precise)`);
      return fail(`session/new with a relative cwd got ${describeReply(r)}; cwd must be absolute, so -32602 is expected`);
    },
  },
  contentScenario('prompt-image', 'image', { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==' }, 'an image block'),
  contentScenario('prompt-audio', 'audio', { type: 'audio', mimeType: 'audio/wav', data: 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=' }, 'an audio block'),
  contentScenario('prompt-embedded-resource', 'embeddedContext', { type: 'resource', resource: { uri: 'file:///probe/note.txt', mimeType: 'text/plain', text: 'pong' } }, 'an embedded resource block'),

  // ---- info ----------------------------------------------------------------------------------
  {
    id: 'capabilities-on', long: true, tier: 'info', spec: '2.3', client: { fs: true, terminal: true },
    title: 'with fs and terminal advertised: which client methods the agent uses',
    async run(d) {
      const { sessionId } = await d.ready();
      const r = await d.prompt(sessionId, text(PROMPTS.tools));
      const used = [...new Set(d.client.called.filter((m) => m !== 'session/request_permission'))];
      return info(`${used.length ? `used ${used.join(', ')}` : 'called no fs/terminal method'}; the turn ${stopReasonOf(r) ? `ended ${stopReasonOf(r)}` : `got ${describeReply(r)}`}`);
    },
  },
  {
    id: 'concurrent-prompts', long: true, tier: 'info', spec: '3',
    title: 'two prompts on one session at once: what the agent does with the second',
    async run(d) {
      const { sessionId } = await d.ready();
      const a = d.prompt(sessionId, text(PROMPTS.pong));
      await new Promise((r) => setTimeout(r, 50));
      const b = d.prompt(sessionId, text(PROMPTS.pong), { provoke: true });
      const [ra, rb] = await Promise.all([a, b]);
      const say = (r: Reply) => (stopReasonOf(r) ? `ended ${stopReasonOf(r)}` : describeReply(r));
      return info(`first prompt ${say(ra)}; second ${say(rb)}`);
    },
  },
  {
    id: 'permission-rejected', long: true, tier: 'info', spec: '4.2', client: { permission: 'reject' },
    title: 'a rejected permission: how the turn goes on',
    async run(d) {
      const { sessionId } = await d.ready();
      const r = await d.prompt(sessionId, text(PROMPTS.permission));
      const asked = d.client.called.includes('session/request_permission');
      return info(`${asked ? 'asked permission, the probe rejected it' : 'asked no permission (model-dependent)'}; the turn ${stopReasonOf(r) ? `ended ${stopReasonOf(r)}` : `got ${describeReply(r)}`}`);
    },
  },
];

/** Ids of every scenario (for `--only` checks and `--list`). */
export const AGENT_SCENARIO_IDS = AGENT_SCENARIOS.map((s) => s.id);
