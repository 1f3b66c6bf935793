import { defineRule } from '../rule.js';

export const jsonrpcVersion = defineRule({
  id: 'jsonrpc-version',
  severity: 'error',
  spec: '4',
  title: 'Missing or wrong "jsonrpc": "2.0"',
  specText: 'All calls are JSON-RPC 2.0 messages: requests carry `jsonrpc`, `id`, `method`, `params`.',
  layer: 'wire',
  kinds: ['request', 'notification', 'result', 'error'],
  check(c) {
    const v = c.msg?.jsonrpc;
    if (v === '2.0') return;
    c.report(v === undefined ? 'message lacks "jsonrpc": "2.0"' : `"jsonrpc" is ${JSON.stringify(v)}; it must be the string "2.0"`);
  },
});
