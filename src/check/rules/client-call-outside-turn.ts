import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { sessionOf } from './util.js';

/**
 * Reading: fs reads/writes, new terminals and permission requests belong to a running turn; cleanup
 * (terminal release, kill) may come later. While a session/load or resume restores the session, the
 * agent may read files to rebuild its context (fs/read_text_file), but has no turn to ask permission,
 * write or run commands for.
 */
export const clientCallOutsideTurn = defineRule({
  id: 'client-call-outside-turn',
  severity: 'warning',
  spec: '1',
  title: 'Agent calls the client outside a prompt turn',
  specText: 'The client sends `session/prompt`. While the turn runs, the agent streams `session/update` notifications and may call client methods (`fs/*`, `terminal/*`, `session/request_permission`, `elicitation/create`).',
  methods: [M.requestPermission, M.readTextFile, M.writeTextFile, M.terminalCreate],
  kinds: ['request'],
  check(c) {
    if (c.frame.dir !== 'a2c') return;
    const s = sessionOf(c.state, c.params);
    if (!s || s.turn !== 'idle') return;
    if (s.status === 'loading') {
      if (c.method === M.readTextFile) return;
      c.report(`agent called ${c.method} for session ${JSON.stringify(s.id)} while its session/${s.origin === 'resume' ? 'resume' : 'load'} is restoring it, with no prompt turn running`);
      return;
    }
    c.report(`agent called ${c.method} for session ${JSON.stringify(s.id)} while no prompt turn is running`);
  },
});
