import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { CONVERSATION_UPDATES } from '../../spec/transitions.js';
import { conversationUpdate } from './util.js';

/** Reading: a conversation update for a loaded session, after the load answered and before any prompt, is history that came late. */
export const loadHistoryAfterResponse = defineRule({
  id: 'load-history-after-response',
  severity: 'error',
  spec: '6 rule 2',
  title: 'session/load history streamed after the load completed',
  specText: '`session/load` streams the whole conversation history as notifications before completing.',
  methods: [M.update],
  kinds: ['notification'],
  updates: [...CONVERSATION_UPDATES],
  check(c) {
    const cu = conversationUpdate(c.state, c.params);
    if (!cu) return;
    const { s, kind } = cu;
    if (s.origin !== 'load' || s.turns !== 0 || s.status !== 'active' || s.turn !== 'idle') return;
    c.report(`${kind} for session ${JSON.stringify(s.id)} after session/load completed; the history must be streamed before the load request is answered`);
  },
});
