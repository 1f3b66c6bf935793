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

/** Reading: checks required properties and the primitive type of known property kinds; unknown (custom) property types are not judged. */
export const elicitationContentMismatch = defineRule({
  id: 'elicitation-content-mismatch',
  severity: 'error',
  spec: '2.9',
  title: 'Accepted elicitation content does not match the requested schema',
  specText: 'Response (union by `action`): `accept` (optional `content` object | null matching the requested schema).',
  methods: [M.elicitationCreate],
  kinds: ['result'],
  check(c) {
    const r = obj(c.msg?.result);
    const schema = obj(c.req?.info?.requestedSchema);
    const content = obj(r?.content);
    if (r?.action !== 'accept' || !schema || !content) return;
    const props = obj(schema.properties) ?? {};
    const required = Array.isArray(schema.required) ? schema.required : [];
    for (const k of required) {
      if (typeof k === 'string' && !Object.hasOwn(content, k)) {
        c.report(`accepted elicitation content lacks required property ${JSON.stringify(k)}`);
        return;
      }
    }
    for (const [k, v] of Object.entries(content)) {
      const t = obj(props[k])?.type;
      if (typeof t !== 'string' || !Object.hasOwn(TYPE_OK, t)) continue;
      if (!TYPE_OK[t]!(v)) {
        c.report(`accepted elicitation content ${JSON.stringify(k)} is ${JSON.stringify(v)}, but the requested schema says ${t}`);
        return;
      }
    }
  },
});
