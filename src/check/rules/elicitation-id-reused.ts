import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { str } from './util.js';

export const elicitationIdReused = defineRule({
  id: 'elicitation-id-reused',
  severity: 'error',
  spec: '2.2',
  title: 'elicitationId used for a second elicitation',
  specText: 'ElicitationId: string, unique per elicitation.',
  methods: [M.elicitationCreate],
  kinds: ['request'],
  check(c) {
    const eid = str(c.params?.elicitationId);
    if (eid === undefined) return;
    const e = c.state.elicitations[eid];
    if (e) c.report(`elicitation/create reuses elicitationId ${JSON.stringify(eid)} of the elicitation at frame ${e.seq}; each elicitation needs its own id`);
  },
});
