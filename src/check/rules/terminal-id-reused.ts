import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { obj, str } from './util.js';

/** Reading: a terminalId names one terminal until it is released; the client returning a live id again is a likely bug (warning). */
export const terminalIdReused = defineRule({
  id: 'terminal-id-reused',
  severity: 'warning',
  spec: '3',
  title: 'terminal/create answered with the id of a live terminal',
  specText: 'Terminal: none → `terminal/create` → running, has a `terminalId`; running or exited → `terminal/release` → released (id invalid for `terminal/*`).',
  methods: [M.terminalCreate],
  kinds: ['result'],
  check(c) {
    const tid = str(obj(c.msg?.result)?.terminalId);
    const t = tid !== undefined ? c.state.terminals[tid] : undefined;
    if (t && t.status !== 'released') c.report(`terminal/create answered with terminalId ${JSON.stringify(tid)}, which already names the ${t.status} terminal created at #${t.createSeq ?? t.seq}; each terminal needs its own id`);
  },
});
