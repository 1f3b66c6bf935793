import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { sessionOf } from './util.js';

/** Reading: the only stated move into `running` is from `idle`, so a second prompt while one runs is an error. */
export const concurrentPrompt = defineRule({
  id: 'concurrent-prompt',
  severity: 'error',
  spec: '3',
  title: 'Prompt while a turn is running',
  specText: 'Prompt turn: idle → `session/prompt` → running. The turn ends when the request is answered with a stop reason.',
  methods: [M.prompt],
  kinds: ['request'],
  check(c) {
    const s = sessionOf(c.state, c.params);
    if (s?.turn === 'running') c.report(`session/prompt for session ${JSON.stringify(s.id)} while the turn started at #${s.turnSeq} is still running; wait for its stop reason (or cancel it)`);
  },
});
