import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { str } from './util.js';

export const terminalReleased = defineRule({
  id: 'terminal-released',
  severity: 'error',
  spec: '3',
  title: 'Terminal used after release',
  specText: 'Terminal: running or exited → `terminal/release` → released: command killed if still running; id invalid for `terminal/*`.',
  methods: [M.terminalOutput, M.terminalWait, M.terminalKill, M.terminalRelease],
  kinds: ['request'],
  check(c) {
    const tid = str(c.params?.terminalId);
    const t = tid !== undefined ? c.state.terminals[tid] : undefined;
    if (t?.status === 'released') c.report(`${c.method} for terminal ${JSON.stringify(tid)} after it was released; a released id is invalid for terminal/* methods`);
  },
});
