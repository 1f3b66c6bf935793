import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { errorOf } from './util.js';

export const authRequiredAfterAuthenticate = defineRule({
  id: 'auth-required-after-authenticate',
  severity: 'error',
  spec: '5 rule 2',
  title: 'Authentication-required error after a successful authenticate',
  specText: 'After success, `session/new` does not return the authentication-required error.',
  methods: [M.sessionNew],
  kinds: ['error'],
  check(c) {
    if (errorOf(c.msg)?.code === -32000 && c.state.auth.status === 'authenticated') {
      c.report('session/new returned the authentication-required error (-32000) after authenticate succeeded');
    }
  },
});
