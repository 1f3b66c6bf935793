import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { obj, str } from './util.js';

export const authMethodDuplicate = defineRule({
  id: 'auth-method-duplicate',
  severity: 'error',
  spec: '2.2',
  title: 'Two auth methods with one id',
  specText: 'AuthMethodId: string, unique per authentication method.',
  methods: [M.initialize],
  kinds: ['result'],
  check(c) {
    const list = obj(c.msg?.result)?.authMethods;
    if (!Array.isArray(list) || list.length < 2) return;
    const seen = new Set<string>();
    for (const m of list) {
      const id = str(obj(m)?.id);
      if (id === undefined) continue;
      if (seen.has(id)) {
        c.report(`initialize result lists the auth method id ${JSON.stringify(id)} twice; each authentication method needs its own id`);
        return;
      }
      seen.add(id);
    }
  },
});
