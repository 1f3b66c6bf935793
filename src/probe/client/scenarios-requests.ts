/**
 * Requests every client must answer: what it advertised, unknown and extension methods, permission
 * requests (answered, cancelled by `$/cancel_request`, and cancelled from the UI by a person).
 */
import { M } from '../../spec/methods.js';
import { type Answer, type ClientScenario, type ScenarioContext, CLIENT_QUOTES, describeReply, errorText, fail, failAnswer, graded, info, isObject, pass } from './scenario.js';

export const PERMISSION_OPTIONS = [
  { optionId: 'probe-allow-once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'probe-allow-always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'probe-reject-once', name: 'Reject', kind: 'reject_once' },
  { optionId: 'probe-reject-always', name: 'Always reject', kind: 'reject_always' },
];

/** Sends a tool call and a permission request for it; returns the pending request. */
function askPermission(ctx: ScenarioContext, toolCallId: string, title: string, timeoutMs?: number): { id: number; reply: Promise<Answer> } {
  const toolCall = { toolCallId, title, kind: 'execute', status: 'pending' };
  ctx.update({ sessionUpdate: 'tool_call', ...toolCall, rawInput: { command: 'echo hello' } });
  return ctx.send(M.requestPermission, { sessionId: ctx.sessionId, toolCall, options: PERMISSION_OPTIONS }, { timeoutMs });
}

/** The outcome of a permission answer: selected (an offered option), cancelled, or what is wrong with it. */
/** The outcome of a permission answer, or why there is none: `missing` when a `req` field is (the answer itself, or its outcome). */
function readOutcome(r: Answer): { ok: true; outcome: 'selected' | 'cancelled'; optionId?: string } | { ok: false; why: string; missing?: boolean } {
  if (r.kind !== 'result') return { ok: false, why: describeReply(M.requestPermission, r), missing: r.kind === 'timeout' };
  const o = isObject(r.result) ? r.result.outcome : undefined;
  if (!isObject(o)) return { ok: false, why: `the answer has no outcome object: ${describeReply(M.requestPermission, r)}`, missing: true };
  if (o.outcome === 'cancelled') return { ok: true, outcome: 'cancelled' };
  if (o.outcome === 'selected') {
    if (PERMISSION_OPTIONS.some((p) => p.optionId === o.optionId)) return { ok: true, outcome: 'selected', optionId: o.optionId as string };
    return { ok: false, why: `the outcome selects "${String(o.optionId)}", which was not offered (offered: ${PERMISSION_OPTIONS.map((p) => p.optionId).join(', ')})` };
  }
  return { ok: false, why: `the outcome is "${String(o.outcome)}", neither "selected" nor "cancelled"` };
}

/** What an outcome other than the cancelled one after a cancel means is not shown (RequestPermissionOutcome, 2.13). */
const PERMISSION_OUTCOME = 'RequestPermissionOutcome: its fields "are not shown" (2.13); only "on cancel of the turn the client must answer with the cancelled outcome" (4.2)';

function finishTool(ctx: ScenarioContext, toolCallId: string, outcome: string): void {
  ctx.update({ sessionUpdate: 'tool_call_update', toolCallId, status: outcome === 'probe-allow-once' || outcome === 'probe-allow-always' ? 'completed' : 'failed',
    content: [{ type: 'content', content: { type: 'text', text: `The probe ran nothing (answer: ${outcome}).` } }] });
}

/** The scenario that answers for the handshake: the checker's findings on it are graded here, not in every scenario that replays it. */
export const HANDSHAKE_ID = 'handshake';

export const HANDSHAKE_SCENARIOS: ClientScenario[] = [
  {
    id: HANDSHAKE_ID,
    title: 'initialize, session/new and session/prompt as the spec says (graded by the checker)',
    tier: 'required', spec: '4.1', group: 'requests',
    quote: '"Before any session exists, the client must call `initialize` with its latest supported version and its capabilities" (4.4 rule 1); the params\' `req` fields (4.1)',
    async run(ctx) {
      return pass(`initialize, session/new (cwd ${ctx.cwd}) and the prompt`);
    },
  },
  {
    id: 'client-info',
    title: 'initialize names the client (clientInfo with name and version)',
    tier: 'advisory', spec: '4.4 rule 1', group: 'requests', quote: '"it should also send `clientInfo`" (4.4 rule 1)',
    async run(ctx) {
      const { name, version } = ctx.client;
      if (name && version) return pass(`clientInfo: ${name} ${version}`);
      return fail(name ? 'clientInfo has no version' : 'initialize carried no clientInfo: the client should name itself');
    },
  },
  {
    id: 'client-capabilities',
    title: 'What the client advertised, and what the probe therefore left out',
    tier: 'info', spec: '4.4 rule 4', group: 'requests', quote: '"Every capability is optional" (9 rule 3)',
    async run(ctx) {
      const c = ctx.client.caps;
      const on = [c.readTextFile && 'fs.readTextFile', c.writeTextFile && 'fs.writeTextFile', c.terminal && 'terminal', c.plan && 'plan'].filter(Boolean);
      const off = [!c.readTextFile && 'fs/read_text_file', !c.writeTextFile && 'fs/write_text_file', !c.terminal && 'terminal/*'].filter(Boolean);
      return info(`advertised: ${on.length ? on.join(', ') : 'nothing'}${off.length ? `; not advertised, so the probe sends no ${off.join(', ')}` : ''}`);
    },
  },
];

export const REQUEST_SCENARIOS: ClientScenario[] = [
  {
    id: 'unknown-method',
    title: 'An unknown agent→client method gets -32601',
    tier: 'advisory', spec: '7', group: 'requests', quote: 'JSON-RPC 2.0 (5.1): "-32601 Method not found: The method does not exist / is not available."; "-32601 covers methods that do not exist or are not available." (7 rule 3): the code\'s meaning, with no "must" to use it',
    async run(ctx) {
      const r = await ctx.request('acp-inspect/no_such_method', { sessionId: ctx.sessionId }, { provoke: true });
      if (r.kind === 'error' && r.error.code === -32601) return pass('answered -32601 (method not found)');
      if (r.kind === 'error') return fail(`answered ${errorText(r.error)}, not -32601 (method not found)`);
      return r.kind === 'result' ? fail(`answered with a result (${describeReply('it', r).replace(/^it answered /, '')}), not the error -32601`) : failAnswer(r, describeReply('acp-inspect/no_such_method', r));
    },
  },
  {
    id: 'extension-request',
    title: 'An `_` extension request gets a response',
    tier: 'required', spec: '4.3', group: 'requests', quote: CLIENT_QUOTES.reply,
    async run(ctx) {
      const r = await ctx.request('_acp-inspect/ping', { sessionId: ctx.sessionId });
      if (r.kind === 'result') return pass('answered with a result');
      if (r.kind === 'error') return pass(`answered ${errorText(r.error)}`);
      return fail(describeReply('_acp-inspect/ping', r));
    },
  },
];

export const PERMISSION_SCENARIOS: ClientScenario[] = [
  {
    id: 'permission-answer',
    title: 'A permission request is answered with an offered option (cancelled only once something was cancelled)',
    tier: 'required', spec: '4.2', group: 'permission', quote: CLIENT_QUOTES.req('the session/request_permission result: "outcome RequestPermissionOutcome req" (4.2)'),
    async run(ctx) {
      ctx.say('\n\nThe probe asks a permission now: choose any option.\n');
      const r = await askPermission(ctx, 'probe-perm-1', 'Run `echo hello` (the probe runs nothing)').reply;
      const o = readOutcome(r);
      if (!o.ok) return o.missing ? failAnswer(r, o.why) : graded(fail(o.why), 'advisory', PERMISSION_OUTCOME);
      finishTool(ctx, 'probe-perm-1', o.optionId ?? 'cancelled');
      // `cancelled` is the answer once the turn is cancelled (or the request withdrawn), not a way to refuse.
      if (o.outcome === 'cancelled') return graded(info('answered cancelled, but nothing was cancelled: to refuse, a client selects an offered reject option'), 'info', PERMISSION_OUTCOME);
      return pass(`answered with the offered option "${o.optionId}"`);
    },
  },
  {
    id: 'cancel-request',
    title: '`$/cancel_request` for a pending permission request gets it answered (a response or -32800)',
    tier: 'required', spec: '7 rule 2', group: 'permission',
    quote: '"After `$/cancel_request`, the receiver must answer the original request with either a valid response (partial results or a cancellation marker) or an error with code -32800." (7 rule 2)',
    async run(ctx) {
      const pending = askPermission(ctx, 'probe-perm-2', 'Run `echo cancelled` (the probe withdraws this request)');
      ctx.notify(M.cancelRequest, { requestId: pending.id });
      const r = await pending.reply;
      finishTool(ctx, 'probe-perm-2', 'cancelled');
      if (r.kind === 'error') {
        return r.error.code === -32800 ? pass('answered -32800 (request cancelled)')
          : fail(`answered ${errorText(r.error)}; after $/cancel_request the answer is a response or -32800`);
      }
      const o = readOutcome(r);
      if (!o.ok) return o.missing ? failAnswer(r, o.why) : graded(fail(o.why), 'advisory', PERMISSION_OUTCOME);
      return pass(o.outcome === 'cancelled' ? 'answered with the cancelled outcome' : `answered with the offered option "${o.optionId}"`);
    },
  },
  {
    id: 'permission-cancel-turn',
    title: 'Stop pressed while a permission request is pending: the client answers it cancelled',
    tier: 'required', spec: '3', group: 'permission', quote: '"on cancel of the turn the client must answer with the cancelled outcome" (4.2)',
    person: 'press Stop (cancel the turn) in the editor while the permission request is shown',
    async run(ctx) {
      ctx.say('\n\nA permission request comes now. Do not choose an option: press Stop (cancel the turn) instead.\n');
      const waitMs = Math.max(ctx.timeoutMs, 60_000);
      const pending = askPermission(ctx, 'probe-perm-3', 'Press Stop instead of answering', waitMs + ctx.timeoutMs);
      await Promise.race([pending.reply, ctx.waitForCancel(waitMs)]);
      if (!(await ctx.waitForCancel(0))) {
        const o = readOutcome(await Promise.race([pending.reply, Promise.resolve<Answer>({ kind: 'timeout', ms: waitMs })]));
        return info(o.ok ? `the request was answered ${o.outcome} before any session/cancel; nothing to grade`
          : `no session/cancel came within ${waitMs / 1000} s; nothing to grade`);
      }
      const answer = await pending.reply;
      const o = readOutcome(answer);
      if (!o.ok) return o.missing ? failAnswer(answer, `after session/cancel, ${o.why}`) : fail(`after session/cancel, ${o.why}`);
      return o.outcome === 'cancelled' ? pass('after session/cancel the pending permission request was answered cancelled')
        : fail(`after session/cancel the pending permission request was answered "${o.optionId}", not cancelled`);
    },
  },
];
