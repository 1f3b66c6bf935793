import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { obj } from './util.js';

/**
 * Reading: `properties` holds primitive-typed properties only; other unknown property types are
 * custom or future variants (2.1, not judged), but `object` (a nested form) is the one the schema
 * rules out by name (warning).
 */
export const elicitationPropertyNotPrimitive = defineRule({
  id: 'elicitation-property-not-primitive',
  severity: 'warning',
  spec: '2.9',
  title: 'Elicitation form with a nested object property',
  specText: 'ElicitationSchema: `type` (always `object`); `properties` object (primitive-typed properties only; default `{}`).',
  methods: [M.elicitationCreate],
  kinds: ['request'],
  check(c) {
    const props = obj(obj(c.params?.requestedSchema)?.properties);
    if (!props) return;
    for (const k in props) {
      if (obj(props[k])?.type === 'object') {
        c.report(`elicitation/create requestedSchema.properties.${k} is an object; form properties are primitive (string, number, integer, boolean, or a multi-select array)`);
        return;
      }
    }
  },
});
