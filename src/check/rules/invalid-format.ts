import type { ErrorObject } from 'ajv';
import { defineRule } from '../rule.js';
import { pointerToPath } from '../../spec/schema-path.js';

/** The formats this rule reports (spec/schema.ts STATED_FORMATS adds them to the schemas), with the section stating each. */
const FORMAT_SPEC: Readonly<Record<string, { spec: string; what: string }>> = {
  base64: { spec: '2.6', what: 'base64 (standard alphabet, no whitespace or data: prefix)' },
  'iso-4217': { spec: '2.7', what: 'an ISO 4217 currency code (three capital letters)' },
};

/** A schema error that says a value breaks a format the spec states (invalid-params and invalid-result leave it to this rule). */
export function isStatedFormat(e: ErrorObject): boolean {
  return e.keyword === 'format' && (e.params as { format?: string }).format! in FORMAT_SPEC;
}

/**
 * Reading: the formats spec.md writes down for fields the SDK's schema leaves as plain strings: the
 * `data` of image and audio blocks and the `blob` of binary resources are base64 (2.6), a cost's
 * `currency` is an ISO 4217 code (2.7). Checked at the frame by the schema validators. UNSTABLE
 * methods warn.
 */
export const invalidFormat = defineRule({
  id: 'invalid-format',
  severity: 'error',
  spec: '2.6',
  title: 'Value not in the format the spec states',
  specText: '2.6: image and audio `data` string req (base64); binary contents `blob` string req base64. 2.7: Cost `currency` string req (ISO 4217 code).',
  kinds: ['request', 'notification', 'result'],
  check(c) {
    const r = c.schema();
    if (!r || r.ok) return;
    for (const e of r.errors) {
      if (!isStatedFormat(e)) continue;
      const f = FORMAT_SPEC[(e.params as { format: string }).format]!;
      const where = pointerToPath(e.instancePath, c.frame.kind === 'result' ? 'result' : 'params');
      c.report(`${c.method} ${where} is not ${f.what}${c.spec?.unstable ? ' (UNSTABLE method: a warning)' : ''}`, { spec: f.spec, ...(c.spec?.unstable ? { severity: 'warning' as const } : {}) });
      return;
    }
  },
});
