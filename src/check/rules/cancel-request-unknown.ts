import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { cancelTarget } from './util.js';

/** Reading: naming a request that was already answered is a normal race (info). */
export const cancelRequestUnknown = defineRule({
  id: 'cancel-request-unknown',
  severity: 'info',
  spec: '4.3',
  title: '$/cancel_request for no request in flight',
  specText: '`$/cancel_request` (requestId req) is sent by the side that sent the request to be cancelled.',
  methods: [M.cancelRequest],
  kinds: ['notification'],
  check(c) {
    const t = cancelTarget(c.state, c.frame.dir, c.params);
    if (!t || t.mine || t.theirs) return; // in flight, or cancel-request-wrong-side
    c.report(`$/cancel_request names request ${JSON.stringify(t.rid)}, which is not in flight (already answered, or never sent)`);
  },
});
