import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { CONVERSATION_UPDATES } from '../../spec/transitions.js';
import { conversationUpdate } from './util.js';

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
    const cu = conversationUpdate(c.state, c.params);
    if (!cu) return;
    const { s, kind } = cu;
    if (s.origin !== 'resume' || s.status !== 'loading') return;
    c.report(`${kind} for session ${JSON.stringify(s.id)} while session/resume runs; resume does not replay history (use session/load for that)`);
  },
});
