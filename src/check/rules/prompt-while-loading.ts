import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { sessionOf } from './util.js';

/** Reading: the session becomes active when load/resume completes; prompting before that is premature (warning). */
export const promptWhileLoading = defineRule({
  id: 'prompt-while-loading',
  severity: 'warning',
  spec: '3',
  title: 'Prompt before session/load or session/resume completed',
  specText: 'Session: stored → `session/load` (or `session/resume`) → active; the agent restores context and streams the whole history back before the load completes (6 rule 2).',
  methods: [M.prompt],
  kinds: ['request'],
  check(c) {
    const s = sessionOf(c.state, c.params);
    if (s?.status === 'loading') c.report(`session/prompt for session ${JSON.stringify(s.id)} while its session/${s.origin === 'resume' ? 'resume' : 'load'} has not completed; wait until the session is active`);
  },
});
