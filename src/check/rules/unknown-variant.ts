import { defineRule } from '../rule.js';

/** Unknown union variants are reserved for future versions (2.1): noted, never an error. `_` values are extensions and not reported. */
export const unknownVariant = defineRule({
  id: 'unknown-variant',
  severity: 'info',
  spec: '2.1',
  title: 'Unknown union variant',
  specText: 'A value of that field beginning with `_` is reserved for implementation-specific extensions; other unknown values are reserved for future variants. A receiver ... preserves the raw payload ... and must not render or treat it as a known variant.',
  kinds: ['request', 'notification', 'result'],
  check(c) {
    const r = c.schema();
    if (!r) return;
    for (const u of r.unknowns) {
      if (u.kind !== 'variant' || u.value.startsWith('_')) continue;
      c.report(`${c.method} ${c.frame.kind === 'result' ? 'result' : 'params'}.${u.path} is ${JSON.stringify(u.value)}, not a variant of this protocol version (known: ${u.known.join(', ')}); receivers must preserve it and not treat it as a known one`);
    }
  },
});
