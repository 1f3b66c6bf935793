import { defineRule } from '../rule.js';

/** Reading: `$/` methods are implementation-dependent (4.3) and are not reported. */
export const unknownMethod = defineRule({
  id: 'unknown-method',
  severity: 'warning',
  spec: '9 rule 6',
  title: 'Unknown method without a leading underscore',
  specText: 'Extension names and values: a leading `_` is reserved for implementation-specific extensions; other unknown names are reserved for future versions.',
  kinds: ['request', 'notification'],
  check(c) {
    const m = c.method;
    if (m === undefined || c.spec || m.startsWith('_') || m.startsWith('$/')) return;
    c.report(`unknown method ${JSON.stringify(m)}; names without a leading "_" are reserved for future protocol versions — name extension methods "_vendor/..."`);
  },
});
