import { defineRule } from '../rule.js';

export const batch = defineRule({
  id: 'batch-not-supported',
  severity: 'error',
  spec: '4',
  title: 'JSON-RPC batch',
  specText: 'All calls are JSON-RPC 2.0 messages: requests carry `jsonrpc`, `id`, `method`, `params` (one message per line; ACP peers answer a batch with -32600).',
  layer: 'wire',
  kinds: ['invalid'],
  check(c) {
    if (c.frame.rawBase64 === undefined && c.frame.parseError?.startsWith('JSON array')) c.report('a JSON array (a JSON-RPC batch) was sent; ACP does not support batches — send one message per line');
  },
});
