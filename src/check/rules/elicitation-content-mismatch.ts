import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { obj } from './util.js';

const TYPE_OK: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number',
  integer: (v) => typeof v === 'number' && Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
  array: (v) => Array.isArray(v) && v.every((x) => typeof x === 'string'),
};

/** Allowed strings of an enum (`enum`) or titled select (`oneOf`/`anyOf` of `{const}`), when given. */
function allowed(s: Record<string, unknown> | undefined): string[] | undefined {
  if (!s) return undefined;
  if (Array.isArray(s.enum)) return s.enum.filter((x): x is string => typeof x === 'string');
  const opts = Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : undefined;
  if (opts) return opts.map((o) => obj(o)?.const).filter((x): x is string => typeof x === 'string');
  return undefined;
}
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

/** Why `v` does not satisfy property schema `p` (type already checked), or undefined. */
function violation(p: Record<string, unknown>, v: unknown): string | undefined {
  if (typeof v === 'string') {
    const a = allowed(p);
    if (a && a.length && !a.includes(v)) return `is not one of ${a.map((x) => JSON.stringify(x)).join(', ')}`;
    const len = [...v].length;
    const min = num(p.minLength);
    const max = num(p.maxLength);
    if (min !== undefined && len < min) return `is shorter than minLength ${min}`;
    if (max !== undefined && len > max) return `is longer than maxLength ${max}`;
  } else if (typeof v === 'number') {
    const min = num(p.minimum);
    const max = num(p.maximum);
    if (min !== undefined && v < min) return `is below minimum ${min}`;
    if (max !== undefined && v > max) return `is above maximum ${max}`;
  } else if (Array.isArray(v)) {
    const min = num(p.minItems);
    const max = num(p.maxItems);
    if (min !== undefined && v.length < min) return `has fewer items than minItems ${min}`;
    if (max !== undefined && v.length > max) return `has more items than maxItems ${max}`;
    const a = allowed(obj(p.items));
    if (a && a.length) for (const x of v) if (typeof x === 'string' && !a.includes(x)) return `holds ${JSON.stringify(x)}, not one of ${a.map((y) => JSON.stringify(y)).join(', ')}`;
  }
  return undefined;
}

/**
 * Reading: checks required properties, the primitive type of known property kinds and their stated
 * bounds (enum/oneOf, minLength/maxLength, minimum/maximum, minItems/maxItems, items of a
 * multi-select); unknown (custom) property types are not judged. `content` with `decline` or
 * `cancel` is a warning: only `accept` carries content.
 */
export const elicitationContentMismatch = defineRule({
  id: 'elicitation-content-mismatch',
  severity: 'error',
  spec: '2.9',
  title: 'Accepted elicitation content does not match the requested schema',
  specText: 'Response (union by `action`): `accept` (optional `content` object | null matching the requested schema), `decline`, `cancel`.',
  methods: [M.elicitationCreate],
  kinds: ['result'],
  check(c) {
    const r = obj(c.msg?.result);
    const content = obj(r?.content);
    if (content && (r?.action === 'decline' || r?.action === 'cancel')) {
      c.report(`elicitation answered ${JSON.stringify(r.action)} with content; only "accept" carries content`, { severity: 'warning' });
      return;
    }
    const schema = obj(c.req?.info?.requestedSchema);
    if (r?.action !== 'accept' || !schema || !content) return;
    const props = obj(schema.properties) ?? {};
    const required = Array.isArray(schema.required) ? schema.required : [];
    for (const k of required) {
      if (typeof k === 'string' && !Object.hasOwn(content, k)) {
        c.report(`accepted elicitation content lacks required property ${JSON.stringify(k)}`);
        return;
      }
    }
    for (const k in content) {
      const v = content[k];
      const p = obj(props[k]);
      const t = p?.type;
      if (!p || typeof t !== 'string' || !Object.hasOwn(TYPE_OK, t)) continue;
      if (!TYPE_OK[t]!(v)) {
        c.report(`accepted elicitation content ${JSON.stringify(k)} is ${JSON.stringify(v)}, but the requested schema says ${t}`);
        return;
      }
      const why = violation(p, v);
      if (why) {
        c.report(`accepted elicitation content ${JSON.stringify(k)} = ${JSON.stringify(v)} ${why} (requested schema)`);
        return;
      }
    }
  },
});
