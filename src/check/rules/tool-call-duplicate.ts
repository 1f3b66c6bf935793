import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { sessionOf, str, updateOf } from './util.js';

export const toolCallDuplicate = defineRule({
  id: 'tool-call-duplicate',
  severity: 'warning',
  spec: '2.2',
  title: 'tool_call reuses a tool call id',
  specText: 'ToolCallId: identifiers (a tool call is announced once and then patched with tool_call_update).',
  methods: [M.update],
  kinds: ['notification'],
  updates: ['tool_call'],
  check(c) {
    const { u, kind } = updateOf(c.params);
    if (kind !== 'tool_call') return;
    const s = sessionOf(c.state, c.params);
    const id = str(u?.toolCallId);
    const prev = id !== undefined ? s?.toolCalls[id] : undefined;
    if (prev && s?.status !== 'loading') c.report(`tool_call announces ${JSON.stringify(id)} again (first at #${prev.seq}); use tool_call_update to change it`);
  },
});
