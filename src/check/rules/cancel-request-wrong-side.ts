import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { cancelTarget } from './util.js';

export const cancelRequestWrongSide = defineRule({
  id: 'cancel-request-wrong-side',
  severity: 'warning',
  spec: '4.3',
  title: '$/cancel_request for a request of the other side',
  specText: 'Sent by the side that sent the request to be cancelled.',
  methods: [M.cancelRequest],
  kinds: ['notification'],
  check(c) {
    const t = cancelTarget(c.state, c.frame.dir, c.params);
    if (!t || t.mine || !t.theirs) return;
    c.report(`$/cancel_request names ${JSON.stringify(t.rid)}, which only the other side has in flight (${t.theirs.method} at #${t.theirs.seq}); only the sender of a request may cancel it`);
  },
});
