import { defineRule } from '../rule.js';
import { pendingKey } from '../model.js';

export const duplicateRequestId = defineRule({
  id: 'duplicate-request-id',
  severity: 'error',
  spec: '4',
  title: 'Request id reused while in flight',
  specText: 'Requests get a response; a response answers the request with its id, so ids of requests in flight must be unique per side.',
  layer: 'wire',
  kinds: ['request'],
  check(c) {
    const id = c.msg?.id;
    if (typeof id !== 'string' && typeof id !== 'number' && id !== null) return;
    const p = c.state.pending[pendingKey(c.frame.dir, id)];
    if (p) c.report(`id ${JSON.stringify(id)} is already used by the ${p.method} request at #${p.seq}, still unanswered; responses would be ambiguous`);
  },
});
