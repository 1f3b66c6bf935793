import { defineRule } from '../rule.js';
import { isNegativeLimit } from './negative-value.js';

/**
 * Reading: per-method shapes come from the SDK's v1 JSON Schema; where spec.md differs, spec.md wins.
 * UNSTABLE methods (9 rule 5) only get info: their schema and spec.md already disagree (mcp/message:
 * spec.md requires `connectionId`, the schema `serverId` and `requestId`).
 */
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
    const unstable = c.spec?.unstable === true;
    c.report(`${c.method} params: ${r.problems.join('; ')}${unstable ? ' (UNSTABLE method: noted, not an error)' : ''}`, {
      spec: side === 'client' ? '4.2' : side === 'protocol' ? '4.3' : '4.1',
      ...(unstable ? { severity: 'info' as const } : {}),
    });
  },
});
