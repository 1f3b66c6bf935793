import { defineRule } from '../rule.js';

/** Reading: a blank line is not a message, but peers (the SDK) skip it, so it is only notable. */
export const blankLine = defineRule({
  id: 'blank-line',
  severity: 'info',
  spec: '4',
  title: 'Blank line',
  specText: 'All calls are JSON-RPC 2.0 messages.',
  layer: 'wire',
  kinds: ['invalid'],
  check(c) {
    if (c.frame.parseError === 'blank line') c.report(`${c.frame.dir === 'a2c' ? 'agent' : 'client'} wrote a blank line; peers skip it, but it is not a message`);
  },
});
