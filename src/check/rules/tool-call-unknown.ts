import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { sessionOf, str, updateOf } from './util.js';

/** Reading: an update patches an existing tool call (one announced by tool_call or a permission request); a likely bug otherwise. */
export const toolCallUnknown = defineRule({
  id: 'tool-call-unknown',
  severity: 'warning',
  spec: '6',
  title: 'tool_call_update for an unknown tool call',
  specText: 'Known update payloads carried by `session/update` ... the shapes of tool-call updates are not shown (a tool call update refers to a tool call by `toolCallId`).',
  methods: [M.update],
  kinds: ['notification'],
  updates: ['tool_call_update'],
  check(c) {
    const { u, kind } = updateOf(c.params);
    if (kind !== 'tool_call_update') return;
    const s = sessionOf(c.state, c.params);
    const id = str(u?.toolCallId);
    if (s && id !== undefined && !s.toolCalls[id] && s.status !== 'loading') c.report(`tool_call_update for ${JSON.stringify(id)}, which no tool_call announced in this session`);
  },
});
