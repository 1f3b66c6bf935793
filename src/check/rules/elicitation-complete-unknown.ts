import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { str } from './util.js';

export const elicitationCompleteUnknown = defineRule({
  id: 'elicitation-complete-unknown',
  severity: 'warning',
  spec: '3',
  title: 'elicitation/complete for an unknown URL elicitation',
  specText: 'Elicitation (URL mode): pending → `elicitation/complete` notification → complete; carries the `elicitationId`.',
  methods: [M.elicitationComplete],
  kinds: ['notification'],
  check(c) {
    const id = str(c.params?.elicitationId);
    if (id === undefined) return;
    const e = c.state.elicitations[id];
    if (!e) c.report(`elicitation/complete for ${JSON.stringify(id)}, which no URL elicitation/create announced`);
    else if (e.mode !== 'url') c.report(`elicitation/complete for ${JSON.stringify(id)}, a ${e.mode} elicitation; only URL elicitations complete this way`);
  },
});
