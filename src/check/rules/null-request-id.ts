import { defineRule } from '../rule.js';

export const nullRequestId = defineRule({
  id: 'null-request-id',
  severity: 'warning',
  spec: '4',
  title: 'Request with id null',
  specText: 'Requests carry `jsonrpc`, `id`, `method`, `params` (JSON-RPC 2.0 discourages null as a request id; null marks responses to unparseable requests).',
  layer: 'wire',
  kinds: ['request'],
  check(c) {
    if (c.msg?.id === null) c.report(`${c.method} request uses id null; use a number or a string so its response can be told from a parse-error reply`);
  },
});
