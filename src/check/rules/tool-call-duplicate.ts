import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { sessionOf, str, updateOf } from './util.js';

/**
 * Reading: spec.md does not say a ToolCallId is announced once (2.2 shows no uniqueness for it, and
 * part 6 leaves tool-call shapes out). A real agent (claude-code-acp) announces a tool call again
 * while it is still pending, to fill in its input: a re-announcement of an open (pending or
 * in_progress) tool call is accepted as an update. Announcing an id whose tool call already finished
 * (completed or failed) mixes two tool calls under one id: warning.
 */
export const toolCallDuplicate = defineRule({
  id: 'tool-call-duplicate',
  severity: 'warning',
  spec: '2.2',
  title: 'tool_call reuses the id of a finished tool call',
  specText: 'ToolCallId: identifiers; tool calls are reported by `session/update` (shapes not shown in part 6). Reading: one id names one tool call.',
  methods: [M.update],
  kinds: ['notification'],
  updates: ['tool_call'],
  check(c) {
    const { u, kind } = updateOf(c.params);
    if (kind !== 'tool_call') return;
    const s = sessionOf(c.state, c.params);
    const id = str(u?.toolCallId);
    const prev = id !== undefined ? s?.toolCalls[id] : undefined;
    if (!prev || s?.status === 'loading' || prev.status === 'pending' || prev.status === 'in_progress') return;
    c.report(`tool_call announces ${JSON.stringify(id)} again (first at #${prev.seq}), but that tool call already ${prev.status === 'failed' ? 'failed' : prev.status === 'completed' ? 'completed' : `ended (${prev.status})`}; a new tool call needs a new id`);
  },
});
