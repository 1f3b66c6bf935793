import { defineRule } from '../rule.js';

/** Reading: a value outside a closed enum (a stop reason, a tool call status) is likely a bug, but may be a future value: warning, not error. */
export const unknownValue = defineRule({
  id: 'unknown-value',
  severity: 'warning',
  spec: '9 rule 6',
  title: 'Unknown enumeration value',
  specText: 'Extension names and values: a leading `_` is reserved for implementation-specific extensions; other unknown names are reserved for future versions.',
  kinds: ['request', 'notification', 'result'],
  check(c) {
    const r = c.schema();
    if (!r) return;
    for (const u of r.unknowns) {
      if (u.kind !== 'value' || u.value.startsWith('_')) continue;
      c.report(`${c.method} ${c.frame.kind === 'result' ? 'result' : 'params'}.${u.path} is ${JSON.stringify(u.value)}; known values: ${u.known.join(', ')} (extension values start with "_")`);
    }
  },
});
