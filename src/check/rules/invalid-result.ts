import { defineRule } from '../rule.js';
import { isNegativeLimit } from './negative-value.js';
import { isStatedFormat } from './invalid-format.js';
import { SHAPE_DISPUTED, obj, schemaSection } from './util.js';

/** Reading: as invalid-params (sections by value, UNSTABLE methods warn). `"result": null` counts as the empty result. */
export const invalidResult = defineRule({
  id: 'invalid-result',
  severity: 'error',
  spec: '4.1',
  title: 'Result does not match the method',
  specText: "The 'Params' and 'Result' columns list fields by name; `req` means required; 'Empty' means only `_meta`.",
  kinds: ['result'],
  check(c) {
    const side = c.spec?.side;
    const fallback = side === 'client' ? '4.2' : '4.1';
    const unstable = c.spec?.unstable === true;
    const req = c.spec?.required?.result;
    if (req) {
      if (!c.msg) return;
      const res = obj(c.msg.result);
      const missing = req.filter((k) => res === undefined || res[k] === undefined || res[k] === null);
      if (missing.length) c.report(`result of ${c.method} (request #${c.req?.seq}): missing required ${missing.map((k) => JSON.stringify(k)).join(', ')} (UNSTABLE method: a warning)`, { spec: fallback, severity: 'warning' });
      return;
    }
    const r = c.schema();
    if (!r || r.ok) return;
    if (r.errors.length && r.errors.every(isNegativeLimit)) return;
    if (r.errors.some(isStatedFormat)) return; // invalid-format says it better (a union's other branches add their own errors)
    const disputed = unstable && SHAPE_DISPUTED.has(c.method ?? '');
    c.report(`result of ${c.method} (request #${c.req?.seq}): ${r.problems.join('; ')}${disputed ? ' (UNSTABLE method whose SDK schema and spec differ: noted)' : unstable ? ' (UNSTABLE method: a warning, not an error)' : ''}`, {
      spec: schemaSection(c.method, r.problems[0], c.msg, fallback),
      ...(disputed ? { severity: 'info' as const } : unstable ? { severity: 'warning' as const } : {}),
    });
  },
});
