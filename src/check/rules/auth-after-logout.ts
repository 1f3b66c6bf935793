import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';

/**
 * Reading: after a successful `logout` every new session requires authentication. A client may
 * still try `session/new` first and authenticate when it gets -32000 (the expected answer, not a
 * finding); an agent that creates the session without a new `authenticate` did not require it
 * (warning on the successful result).
 */
export const authAfterLogout = defineRule({
  id: 'auth-after-logout',
  severity: 'warning',
  spec: '5 rule 4',
  title: 'New session after logout without authenticating again',
  specText: 'After a successful logout every new session requires authentication; the effect on running sessions is unspecified.',
  methods: [M.sessionNew],
  kinds: ['result'],
  check(c) {
    // Without advertised auth methods there is nothing to authenticate with: not judged.
    if (c.state.auth.status !== 'logged-out' || c.state.agent.authMethods.length === 0) return;
    c.report(`agent created a session after logout although nobody authenticated again (request #${c.req?.seq}); it should answer with the authentication-required error (-32000)`);
  },
});
