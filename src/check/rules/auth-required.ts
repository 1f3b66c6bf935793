import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { errorOf } from './util.js';

export const authRequired = defineRule({
  id: 'auth-required',
  severity: 'info',
  spec: '5 rule 5',
  title: 'Agent requires authentication',
  specText: 'The authentication-required error has code -32000 and may be returned by `session/new`.',
  methods: [M.sessionNew],
  kinds: ['error'],
  check(c) {
    if (errorOf(c.msg)?.code !== -32000 || c.state.auth.status === 'authenticated') return;
    const list = c.state.agent.authMethods.map((x) => `${x.id} (${x.type})`);
    c.report(`session/new needs authentication first; ${list.length ? `advertised methods: ${list.join(', ')}` : 'but the agent advertised no authMethods to authenticate with'}`);
  },
});
