import { defineRule } from '../rule.js';
import { reportFields, tallyEnvelope, tallyFields } from './field-tally.js';

/**
 * Reading: a field name that neither the stable nor the UNSTABLE schema of the protocol has, and that
 * does not start with `_`, is reserved for future versions: noted once per recording and path (info),
 * never an error (a receiver ignores it). Inside objects the schema leaves open (`_meta`, `rawInput`,
 * env and header maps, an unknown variant) nothing is reported. The message's own members beyond
 * JSON-RPC's, and an error object's beyond `code`, `message` and `data` (7), are such names too.
 */
export const unknownField = defineRule({
  id: 'unknown-field',
  severity: 'info',
  spec: '9 rule 6',
  title: 'Field name the protocol does not define',
  specText: 'Extension names and values: a leading `_` is reserved for implementation-specific extensions; other unknown names are reserved for future versions.',
  kinds: ['request', 'notification', 'result', 'error'],
  check(c) {
    tallyFields(c, false);
    tallyEnvelope(c);
  },
  end(c) {
    reportFields(c, (method, path) =>
      path.startsWith('message.')
        ? `${method} message member ${JSON.stringify(path.slice(8))} is not one of JSON-RPC's (jsonrpc, id, method, params, result, error)`
        : `${method} ${path} is not a field of the protocol (names without a leading "_" are reserved for future versions; extensions go in "_meta" or start with "_")`,
    );
  },
});
