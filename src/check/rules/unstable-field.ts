import { defineRule } from '../rule.js';
import { reportFields, tallyFields } from './field-tally.js';

/** Reading: a field the protocol's published schema marks UNSTABLE is used: noted once per recording and path (info). */
export const unstableField = defineRule({
  id: 'unstable-field',
  severity: 'info',
  spec: '9 rule 5',
  title: 'Field marked UNSTABLE',
  specText: 'Features marked UNSTABLE are not part of the specification and may change or vanish at any time.',
  kinds: ['request', 'notification', 'result'],
  check(c) {
    tallyFields(c, true);
  },
  end(c) {
    reportFields(c, (method, path) => `${method} ${path} is marked UNSTABLE in the protocol's schema: not part of the specification, it may change or vanish`);
  },
});
