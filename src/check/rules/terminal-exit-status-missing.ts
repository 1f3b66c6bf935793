import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { obj, str } from './util.js';

/**
 * Reading: once the command completed (terminal/wait_for_exit answered, or an exitStatus reported),
 * terminal/output must carry its exitStatus (warning: a killed command is not judged, its end may lag).
 */
export const terminalExitStatusMissing = defineRule({
  id: 'terminal-exit-status-missing',
  severity: 'warning',
  spec: '2.11',
  title: 'terminal/output without exitStatus after the command completed',
  specText: 'TerminalOutputResponse: output string req; truncated boolean req; exitStatus TerminalExitStatus | null (present once the command has completed).',
  methods: [M.terminalOutput],
  kinds: ['result'],
  check(c) {
    const tid = str(c.req?.info?.terminalId);
    const t = tid !== undefined ? c.state.terminals[tid] : undefined;
    const r = obj(c.msg?.result);
    if (t?.status !== 'exited' || !r || obj(r.exitStatus)) return;
    c.report(`terminal/output for ${JSON.stringify(tid)} has no exitStatus although the command already completed; exitStatus is present once the command has completed`);
  },
});
