import type { ErrorObject } from 'ajv';
import { defineRule } from '../rule.js';
import { pointerToPath } from '../../spec/schema-path.js';

export function isNegativeLimit(e: ErrorObject): boolean {
  return e.keyword === 'minimum' && (e.params as { limit?: unknown }).limit === 0;
}

export const negativeValue = defineRule({
  id: 'negative-value',
  severity: 'error',
  spec: '8',
  title: 'Negative value where the minimum is 0',
  specText: 'terminal `outputByteLimit`, `fs/read_text_file` `limit` and `line`, `exitCode`, string `minLength`/`maxLength` and array `minItems`/`maxItems`: minimum 0.',
  kinds: ['request', 'notification', 'result'],
  check(c) {
    const r = c.schema();
    if (!r || r.ok) return;
    for (const e of r.errors) {
      if (!isNegativeLimit(e)) continue;
      const where = pointerToPath(e.instancePath, c.frame.kind === 'result' ? 'result' : 'params');
      c.report(`${c.method} ${where} is negative; its minimum is 0`);
      return;
    }
  },
});
