import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { obj } from './util.js';

export const exitStatusConflict = defineRule({
  id: 'exit-status-conflict',
  severity: 'warning',
  spec: '2.11',
  title: 'Exit status with both an exit code and a signal',
  specText: 'exitCode integer | null (null if terminated by signal); signal string | null (null if exited normally).',
  methods: [M.terminalWait, M.terminalOutput],
  kinds: ['result'],
  check(c) {
    const r = obj(c.msg?.result);
    const st = c.method === M.terminalWait ? r : obj(r?.exitStatus);
    if (!st) return;
    if (typeof st.exitCode === 'number' && typeof st.signal === 'string') c.report(`${c.method} result has exitCode ${st.exitCode} and signal ${JSON.stringify(st.signal)}; a command either exited (signal null) or was terminated by a signal (exitCode null)`);
  },
});
