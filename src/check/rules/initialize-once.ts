import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';

export const initializeOnce = defineRule({
  id: 'initialize-once',
  severity: 'error',
  spec: '4.1',
  title: 'initialize called twice',
  specText: '`initialize`: must be the first call; once per connection.',
  methods: [M.initialize],
  kinds: ['request'],
  check(c) {
    if (c.state.initializeSeq !== undefined) c.report(`initialize called again (first at #${c.state.initializeSeq}); it is allowed once per connection`);
  },
});
