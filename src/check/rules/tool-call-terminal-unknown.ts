import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { obj, str, updateOf } from './util.js';

export const toolCallTerminalUnknown = defineRule({
  id: 'tool-call-terminal-unknown',
  severity: 'warning',
  spec: '4.4 rule 6',
  title: 'Tool call embeds an unknown terminal',
  specText: 'A tool call may embed a terminal by `terminalId`.',
  methods: [M.update],
  kinds: ['notification'],
  updates: ['tool_call', 'tool_call_update'],
  check(c) {
    const { u, kind } = updateOf(c.params);
    if ((kind !== 'tool_call' && kind !== 'tool_call_update') || !Array.isArray(u?.content)) return;
    for (const item of u.content.slice(0, 1000)) {
      const o = obj(item);
      if (o?.type !== 'terminal') continue;
      const tid = str(o.terminalId);
      if (tid !== undefined && !c.state.terminals[tid]) c.report(`${kind} embeds terminal ${JSON.stringify(tid)}, which no terminal/create returned`);
    }
  },
});
