/**
 * Session updates and tool calls: every `session/update` kind the protocol has, unknown kinds and
 * `_` variants, and tool calls through their statuses. Notifications get no answer, so what a client
 * can get wrong here is crashing, hanging up or no longer answering; each scenario ends by proving
 * the client is still there. What the updates should look like on screen is said in the chat.
 */
import { join } from 'node:path';
import { type ClientScenario, CLIENT_QUOTES, fail, pass } from './scenario.js';

/** Ids the probe's `session/new` answer advertises, which the updates below refer to. */
export const PROBE_MODES = [
  { id: 'probe-ask', name: 'Ask', description: 'The probe asks before acting (it never acts).' },
  { id: 'probe-code', name: 'Code', description: 'Another mode, for current_mode_update.' },
];
export const PROBE_CONFIG = (current: string): Record<string, unknown>[] => [{
  id: 'probe-depth', name: 'Probe depth', description: 'A select option, for config_option_update.', type: 'select',
  currentValue: current,
  options: [{ value: 'quick', name: 'Quick' }, { value: 'thorough', name: 'Thorough' }],
}];

const provoke = { provoke: true };
/** Notifications get no answer: what decides is that the client still answers the request the probe sends after them. */
const STILL_ANSWERS = `${CLIENT_QUOTES.reply}: the request the probe sends after the updates`;
const text = (t: string): Record<string, unknown> => ({ type: 'text', text: t });

/** Ends a scenario whose only observable failure is the client going away or going silent. */
async function survived(ctx: Parameters<ClientScenario['run']>[0], what: string) {
  const alive = await ctx.alive();
  return alive.ok ? pass(`${what}; ${alive.why}`) : fail(`after ${what}, ${alive.why}`);
}

export const UPDATE_SCENARIOS: ClientScenario[] = [
  {
    id: 'update-message-chunks',
    title: 'Message, thought and user chunks, with messageId boundaries',
    tier: 'required', spec: '2.6', group: 'updates', quote: STILL_ANSWERS,
    async run(ctx) {
      ctx.update({ sessionUpdate: 'user_message_chunk', content: text('(the probe echoes a user message chunk)'), messageId: 'probe-user-1' });
      ctx.update({ sessionUpdate: 'agent_thought_chunk', content: text('A thought, streamed '), messageId: 'probe-thought-1' });
      ctx.update({ sessionUpdate: 'agent_thought_chunk', content: text('in two chunks.'), messageId: 'probe-thought-1' });
      ctx.update({ sessionUpdate: 'agent_message_chunk', content: text('First message, '), messageId: 'probe-msg-1' });
      ctx.update({ sessionUpdate: 'agent_message_chunk', content: text('in two chunks.'), messageId: 'probe-msg-1' });
      ctx.update({ sessionUpdate: 'agent_message_chunk', content: text('Second message: a new messageId starts it.'), messageId: 'probe-msg-2' });
      ctx.update({ sessionUpdate: 'agent_message_chunk', content: text(' (a chunk without messageId)') });
      ctx.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'resource_link', uri: `file://${join(ctx.cwd, 'README.md')}`, name: 'README.md' }, messageId: 'probe-msg-3' });
      return survived(ctx, '9 chunks of 3 kinds in 5 messages');
    },
  },
  {
    id: 'update-plan',
    title: 'A plan, then the plan replaced',
    tier: 'required', spec: '6', group: 'updates', quote: STILL_ANSWERS,
    async run(ctx) {
      ctx.update({ sessionUpdate: 'plan', entries: [
        { content: 'Read the client capabilities', priority: 'high', status: 'completed' },
        { content: 'Send every kind of update', priority: 'medium', status: 'in_progress' },
        { content: 'Write the report', priority: 'low', status: 'pending' },
      ] });
      ctx.update({ sessionUpdate: 'plan', entries: [
        { content: 'Read the client capabilities', priority: 'high', status: 'completed' },
        { content: 'Send every kind of update', priority: 'medium', status: 'completed' },
      ] });
      ctx.update({ sessionUpdate: 'plan', entries: [] });
      return survived(ctx, 'three plans (the last one empty)');
    },
  },
  {
    id: 'update-session-state',
    title: 'Commands, mode, config options, session info and usage',
    tier: 'required', spec: '2.10', group: 'updates', quote: STILL_ANSWERS,
    async run(ctx) {
      ctx.update({ sessionUpdate: 'available_commands_update', availableCommands: [
        { name: 'probe', description: 'Run part of the client probe: /probe fs, /probe terminal, ...', input: { hint: 'group or scenario ids' } },
        { name: 'probe-help', description: 'List what the probe can run' },
      ] });
      ctx.update({ sessionUpdate: 'current_mode_update', currentModeId: PROBE_MODES[1]!.id });
      ctx.update({ sessionUpdate: 'current_mode_update', currentModeId: PROBE_MODES[0]!.id });
      ctx.update({ sessionUpdate: 'config_option_update', configOptions: PROBE_CONFIG('thorough') });
      ctx.update({ sessionUpdate: 'config_option_update', configOptions: PROBE_CONFIG('quick') });
      ctx.update({ sessionUpdate: 'session_info_update', title: 'ACP client probe', updatedAt: new Date().toISOString() });
      ctx.update({ sessionUpdate: 'usage_update', used: 1234, size: 200000, cost: { amount: 0.01, currency: 'USD' } });
      return survived(ctx, 'commands, two mode changes, two config updates, session info and usage');
    },
  },
  {
    id: 'update-unknown-kinds',
    title: 'Unknown update kinds, `_` variants and unknown notifications are tolerated',
    tier: 'required', spec: '2.1', group: 'updates', quote: STILL_ANSWERS,
    async run(ctx) {
      ctx.update({ sessionUpdate: 'acp_inspect_future_update', note: 'an update kind from a future version' }, provoke);
      ctx.update({ sessionUpdate: '_acp-inspect/probe_update', note: 'an implementation-specific update kind' }, provoke);
      ctx.update({ sessionUpdate: 'agent_message_chunk', content: { type: '_acp-inspect/content', value: 42 }, messageId: 'probe-msg-4' }, provoke);
      ctx.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'acp_inspect_future_block', value: 'x' }, messageId: 'probe-msg-4' }, provoke);
      ctx.update({ sessionUpdate: 'agent_message_chunk', content: text('(after 4 unknown updates)'), messageId: 'probe-msg-5', _meta: { 'acp-inspect': { probe: true } } });
      ctx.notify('_acp-inspect/notice', { sessionId: ctx.sessionId, note: 'an extension notification' }, provoke);
      ctx.notify('$/acp-inspect_notice', { note: 'a $/ notification the client may ignore' }, provoke);
      return survived(ctx, 'two unknown update kinds, two unknown content blocks and two unknown notifications');
    },
  },
];

export const TOOL_SCENARIOS: ClientScenario[] = [
  {
    id: 'tool-call-lifecycle',
    title: 'Tool calls through pending, in_progress, completed and failed, with content, locations and diffs',
    tier: 'required', spec: '6', group: 'tools', quote: STILL_ANSWERS,
    async run(ctx) {
      const file = join(ctx.cwd, 'src', 'example.ts');
      ctx.update({ sessionUpdate: 'tool_call', toolCallId: 'probe-tool-1', title: 'Read src/example.ts', kind: 'read', status: 'pending',
        locations: [{ path: file, line: 3 }], rawInput: { path: file } });
      ctx.update({ sessionUpdate: 'tool_call_update', toolCallId: 'probe-tool-1', status: 'in_progress',
        content: [{ type: 'content', content: text('Reading 3 lines…') }] });
      ctx.update({ sessionUpdate: 'tool_call_update', toolCallId: 'probe-tool-1', status: 'completed',
        content: [{ type: 'content', content: text('const a = 1;\nconst b = 2;\n') }], rawOutput: { lines: 2 } });
      ctx.update({ sessionUpdate: 'tool_call', toolCallId: 'probe-tool-2', title: 'Edit src/example.ts', kind: 'edit', status: 'in_progress',
        locations: [{ path: file, line: 2 }] });
      ctx.update({ sessionUpdate: 'tool_call_update', toolCallId: 'probe-tool-2', status: 'completed', title: 'Edited src/example.ts',
        content: [{ type: 'diff', path: file, oldText: 'const a = 1;\nconst b = 2;\n', newText: 'const a = 1;\nconst b = 3;\n' }] });
      ctx.update({ sessionUpdate: 'tool_call', toolCallId: 'probe-tool-3', title: 'Create notes.md', kind: 'edit', status: 'pending',
        content: [{ type: 'diff', path: join(ctx.cwd, 'notes.md'), oldText: null, newText: '# Notes\n' }] });
      ctx.update({ sessionUpdate: 'tool_call_update', toolCallId: 'probe-tool-3', status: 'failed',
        content: [{ type: 'content', content: text('The probe never writes this file: this call fails on purpose.') }] });
      ctx.update({ sessionUpdate: 'tool_call', toolCallId: 'probe-tool-4', title: 'Think', kind: 'think', status: 'completed' });
      return survived(ctx, '4 tool calls, 8 updates (read, two edits with diffs, one failed)');
    },
  },
];
