import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { CONVERSATION_UPDATES } from '../../spec/transitions.js';
import { sessionOf, updateOf } from './util.js';

export const resumeReplaysHistory = defineRule({
  id: 'resume-replays-history',
  severity: 'warning',
  spec: '3',
  title: 'session/resume replays history',
  specText: 'Session: stored → `session/resume` (capability `resume`) → active; history is not replayed.',
  methods: [M.update],
  kinds: ['notification'],
  updates: [...CONVERSATION_UPDATES],
  check(c) {
    const s = sessionOf(c.state, c.params);
    const { kind } = updateOf(c.params);
    if (!s || s.origin !== 'resume' || s.status !== 'loading' || kind === undefined || !CONVERSATION_UPDATES.has(kind)) return;
    c.report(`${kind} for session ${JSON.stringify(s.id)} while session/resume runs; resume does not replay history (use session/load for that)`);
  },
});
