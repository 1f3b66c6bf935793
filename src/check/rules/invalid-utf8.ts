import { defineRule } from '../rule.js';

export const invalidUtf8 = defineRule({
  id: 'invalid-utf8',
  severity: 'error',
  spec: '4',
  title: 'Line is not valid UTF-8',
  specText: 'All calls are JSON-RPC 2.0 messages (JSON text is UTF-8).',
  layer: 'wire',
  kinds: ['invalid'],
  check(c) {
    if (c.frame.rawBase64 !== undefined) c.report(`${c.frame.dir === 'a2c' ? 'agent' : 'client'} wrote bytes that are not valid UTF-8; JSON messages must be UTF-8 text`);
  },
});
