import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { pendingKey } from '../model.js';

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
    const rid = c.params?.requestId;
    if (typeof rid !== 'string' && typeof rid !== 'number' && rid !== null) return;
    if (c.state.pending[pendingKey(c.frame.dir, rid)]) return;
    if (c.state.pending[pendingKey(c.frame.dir === 'c2a' ? 'a2c' : 'c2a', rid)]) return; // cancel-request-wrong-side
    c.report(`$/cancel_request names request ${JSON.stringify(rid)}, which is not in flight (already answered, or never sent)`);
  },
});
