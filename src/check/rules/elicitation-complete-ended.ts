import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { str } from './util.js';

/** Reading: a URL elicitation completes once, and only while the client has not declined or cancelled it. */
export const elicitationCompleteEnded = defineRule({
  id: 'elicitation-complete-ended',
  severity: 'warning',
  spec: '3',
  title: 'elicitation/complete for an elicitation already over',
  specText: 'Elicitation (URL mode): pending → `elicitation/complete` notification → complete. Elicitation: pending → client response → accepted, declined or cancelled.',
  methods: [M.elicitationComplete],
  kinds: ['notification'],
  check(c) {
    const id = str(c.params?.elicitationId);
    const e = id !== undefined ? c.state.elicitations[id] : undefined;
    if (!e || e.mode !== 'url') return;
    if (e.status === 'complete') c.report(`elicitation/complete for ${JSON.stringify(id)} again; it completed already`);
    else if (e.status === 'declined' || e.status === 'cancelled' || e.status === 'failed') c.report(`elicitation/complete for ${JSON.stringify(id)}, which the client ${e.status === 'failed' ? 'answered with an error' : e.status}`);
  },
});
