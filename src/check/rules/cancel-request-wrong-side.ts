import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { pendingKey } from '../model.js';

export const cancelRequestWrongSide = defineRule({
  id: 'cancel-request-wrong-side',
  severity: 'warning',
  spec: '4.3',
  title: '$/cancel_request for a request of the other side',
  specText: '`$/cancel_request` is sent by the side that sent the request to be cancelled.',
  methods: [M.cancelRequest],
  kinds: ['notification'],
  check(c) {
    const rid = c.params?.requestId;
    if (typeof rid !== 'string' && typeof rid !== 'number' && rid !== null) return;
    if (c.state.pending[pendingKey(c.frame.dir, rid)]) return;
    const other = c.state.pending[pendingKey(c.frame.dir === 'c2a' ? 'a2c' : 'c2a', rid)];
    if (other) c.report(`$/cancel_request names ${JSON.stringify(rid)}, which only the other side has in flight (${other.method} at #${other.seq}); only the sender of a request may cancel it`);
  },
});
