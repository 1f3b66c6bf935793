import { defineRule } from '../rule.js';
import { reportFields, tallyFields } from './field-tally.js';

/**
 * Reading: a field name that neither the stable nor the UNSTABLE schema of the protocol has, and that
 * does not start with `_`, is reserved for future versions: noted once per recording and path (info),
 * never an error (a receiver ignores it). Inside objects the schema leaves open (`_meta`, `rawInput`,
 * env and header maps, an unknown variant) nothing is reported.
 */
export const unknownField = defineRule({
  id: 'unknown-field',
  severity: 'info',
  spec: '9 rule 6',
  title: 'Field name the protocol does not define',
  specText: 'Extension names and values: a leading `_` is reserved for implementation-specific extensions; other unknown names are reserved for future versions.',
  kinds: ['request', 'notification', 'result'],
  check(c) {
    tallyFields(c, false);
  },
  end(c) {
    reportFields(c, (method, path) => `${method} ${path} is not a field of the protocol (names without a leading "_" are reserved for future versions; extensions go in "_meta" or start with "_")`);
  },
});
