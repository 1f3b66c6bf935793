import { defineRule } from '../rule.js';

/** Reading: JSON-RPC ids are strings, numbers or null; a fractional number is only discouraged (warning). */
export const invalidId = defineRule({
  id: 'invalid-id',
  severity: 'error',
  spec: '4',
  title: 'Request or response id of the wrong type',
  specText: 'Requests carry `jsonrpc`, `id`, `method`, `params` (a JSON-RPC id is a string, a number or null).',
  layer: 'wire',
  kinds: ['request', 'result', 'error'],
  check(c) {
    const id = c.msg?.id;
    if (c.msg && !('id' in c.msg)) {
      c.report('response has no "id"; a response must repeat the id of the request it answers');
      return;
    }
    if (typeof id === 'string' || id === null) return;
    if (typeof id === 'number') {
      if (!Number.isInteger(id)) c.report(`id ${id} has a fractional part; JSON-RPC ids should be integers or strings`, { severity: 'warning' });
      return;
    }
    c.report(`id ${JSON.stringify(id)} is ${Array.isArray(id) ? 'an array' : typeof id}; ids must be strings or numbers`);
  },
});
