import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { str } from './util.js';

export const authenticateTerminalMethod = defineRule({
  id: 'authenticate-terminal-method',
  severity: 'error',
  spec: '5 rule 3',
  title: 'authenticate called with a terminal auth method',
  specText: 'Kind `terminal`: the client runs the configured agent program as a separate interactive process ... The client must not pass this method to `authenticate`.',
  methods: [M.authenticate],
  kinds: ['request'],
  check(c) {
    const id = str(c.params?.methodId);
    const m = c.state.agent.authMethods.find((x) => x.id === id);
    if (m?.type === 'terminal') c.report(`authenticate called with ${JSON.stringify(id)}, a terminal auth method; the client must run it in a terminal instead of passing it to authenticate`);
  },
});
