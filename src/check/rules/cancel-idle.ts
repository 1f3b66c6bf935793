import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { sessionOf } from './util.js';

/** Reading: a cancel racing with the end of a turn is normal, so this is only notable. */
export const cancelIdle = defineRule({
  id: 'cancel-idle',
  severity: 'info',
  spec: '3',
  title: 'session/cancel with no turn running',
  specText: 'Prompt turn: running → `session/cancel` notification → ends.',
  methods: [M.cancel],
  kinds: ['notification'],
  check(c) {
    const s = sessionOf(c.state, c.params);
    if (s && s.turn === 'idle') c.report(`session/cancel for session ${JSON.stringify(s.id)} while no turn is running (a race with the end of the turn, or a stray cancel)`);
  },
});
