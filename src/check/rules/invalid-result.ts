import { defineRule } from '../rule.js';
import { isNegativeLimit } from './negative-value.js';

export const invalidResult = defineRule({
  id: 'invalid-result',
  severity: 'error',
  spec: '4.1',
  title: 'Result does not match the method',
  specText: "The 'Params' and 'Result' columns list fields by name; `req` means required; 'Empty' means only `_meta`.",
  kinds: ['result'],
  check(c) {
    const r = c.schema();
    if (!r || r.ok) return;
    if (r.errors.length && r.errors.every(isNegativeLimit)) return;
    const side = c.spec?.side;
    const unstable = c.spec?.unstable === true;
    c.report(`result of ${c.method} (request #${c.req?.seq}): ${r.problems.join('; ')}${unstable ? ' (UNSTABLE method: noted, not an error)' : ''}`, {
      spec: side === 'client' ? '4.2' : '4.1',
      ...(unstable ? { severity: 'info' as const } : {}),
    });
  },
});
