import { defineRule } from '../rule.js';
import { isNegativeLimit } from './negative-value.js';

/** Reading: per-method shapes come from the SDK's v1 JSON Schema; where spec.md differs, spec.md wins. */
export const invalidParams = defineRule({
  id: 'invalid-params',
  severity: 'error',
  spec: '4.1',
  title: 'Params do not match the method',
  specText: "The 'Params' and 'Result' columns list fields by name; `req` means required; every params and result object also accepts `_meta`.",
  kinds: ['request', 'notification'],
  check(c) {
    const r = c.schema();
    if (!r || r.ok) return;
    if (r.errors.length && r.errors.every(isNegativeLimit)) return; // negative-value says it better
    const side = c.spec?.side;
    c.report(`${c.method} params: ${r.problems.join('; ')}`, { spec: side === 'client' ? '4.2' : side === 'protocol' ? '4.3' : '4.1' });
  },
});
