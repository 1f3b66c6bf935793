import { defineRule } from '../rule.js';

export const notAMessage = defineRule({
  id: 'not-a-message',
  severity: 'error',
  spec: '4',
  title: 'JSON that is not a JSON-RPC message',
  specText: 'Requests carry `jsonrpc`, `id`, `method`, `params`; responses carry `result` or `error`; notifications carry no `id`.',
  layer: 'wire',
  kinds: ['invalid'],
  check(c) {
    const f = c.frame;
    if (f.rawBase64 !== undefined || f.json === undefined || f.parseError?.startsWith('JSON array')) return;
    c.report(`${f.parseError ?? 'not a JSON-RPC message'}; a message needs "method" (request or notification) or "result"/"error" (response)`);
  },
});
