import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { str } from './util.js';

const USES = [M.terminalOutput, M.terminalWait, M.terminalKill, M.terminalRelease];

export const terminalUnknown = defineRule({
  id: 'terminal-unknown',
  severity: 'error',
  spec: '3',
  title: 'Terminal id never created',
  specText: 'Terminal: none → `terminal/create` (client `terminal` capability true) → running, has a `terminalId`.',
  methods: USES,
  kinds: ['request'],
  check(c) {
    const tid = str(c.params?.terminalId);
    if (tid !== undefined && !c.state.terminals[tid]) c.report(`${c.method} for terminal ${JSON.stringify(tid)}, which no terminal/create returned`);
  },
});
