import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { CONVERSATION_UPDATES } from '../../spec/transitions.js';
import { conversationUpdate } from './util.js';

/**
 * Reading: conversation updates (message chunks, tool calls, plans) belong to a turn or to a load
 * replay; commands, mode, config, info and usage updates may come at any time.
 */
export const updateOutsideTurn = defineRule({
  id: 'update-outside-turn',
  severity: 'warning',
  spec: '6',
  title: 'Conversation update outside a turn or load',
  specText: '`session/update` (agent to client) is emitted during a prompt turn, and while `session/load` replays history. (6 rule 2: `session/load` streams the whole conversation history as notifications before completing.)',
  methods: [M.update],
  kinds: ['notification'],
  updates: [...CONVERSATION_UPDATES],
  check(c) {
    const cu = conversationUpdate(c.state, c.params);
    if (!cu) return;
    const { s, kind } = cu;
    if (s.turn !== 'idle' || s.status === 'loading') return;
    if (s.origin === 'load' && s.turns === 0 && s.status === 'active') return; // load-history-after-response
    c.report(`${kind} update for session ${JSON.stringify(s.id)} while no prompt turn is running`);
  },
});
