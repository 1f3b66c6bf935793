import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { obj } from './util.js';

/**
 * Reading: a cancelled turn should leave none of its own tool calls pending or in progress (spec 3 is a
 * SHOULD: warning). The statuses (pending, in_progress, completed, failed) come from the SDK, not
 * spec.md, which leaves tool-call shapes out; "failed" as the aborted status is this checker's reading.
 */
export const cancelToolCallsOpen = defineRule({
  id: 'cancel-tool-calls-open',
  severity: 'warning',
  spec: '3',
  title: 'Cancelled turn left tool calls running',
  specText: 'Prompt turn: running → `session/cancel` → ends: agent should stop model requests, abort tool calls, send pending updates, then answer the prompt request with the cancelled stop reason.',
  methods: [M.prompt],
  kinds: ['result'],
  check(c) {
    const sid = c.req?.sessionId;
    const s = sid !== undefined ? c.state.sessions[sid] : undefined;
    if (!s || s.turnSeq !== c.req!.seq || s.cancelSeq === undefined || obj(c.msg?.result)?.stopReason !== 'cancelled') return;
    const open: string[] = [];
    for (const id in s.openToolCalls) if (s.openToolCalls[id]! > c.req!.seq) open.push(id);
    if (open.length) c.report(`cancelled turn #${c.req!.seq} ended with tool call${open.length === 1 ? '' : 's'} ${open.slice(0, 5).map((x) => JSON.stringify(x)).join(', ')} still pending or in progress; the agent should abort them (e.g. a final tool_call_update with status "failed"; statuses are the SDK\'s, spec part 6 leaves them out) before answering`);
  },
});
