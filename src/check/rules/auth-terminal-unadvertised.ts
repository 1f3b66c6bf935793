import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { at, clientCaps, obj } from './util.js';

export const authTerminalUnadvertised = defineRule({
  id: 'auth-terminal-unadvertised',
  severity: 'error',
  spec: '5 rule 3',
  title: 'Terminal auth method offered to a client without auth.terminal',
  specText: 'Kind `terminal`: the agent advertises it only when the client set `clientCapabilities.auth.terminal` to true.',
  methods: [M.initialize],
  kinds: ['result'],
  check(c) {
    const methods = obj(c.msg?.result)?.authMethods;
    if (!Array.isArray(methods) || c.req?.seq !== c.state.initializeSeq) return;
    if (at(clientCaps(c.state), 'auth', 'terminal') === true) return;
    for (const m of methods) {
      if (obj(m)?.type === 'terminal') {
        c.report(`agent advertises terminal auth method ${JSON.stringify(obj(m)?.id)}, but the client did not set clientCapabilities.auth.terminal = true`);
        return;
      }
    }
  },
});
