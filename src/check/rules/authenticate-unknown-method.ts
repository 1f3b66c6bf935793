import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { str } from './util.js';

export const authenticateUnknownMethod = defineRule({
  id: 'authenticate-unknown-method',
  severity: 'error',
  spec: '5 rule 2',
  title: 'authenticate with a method the agent did not advertise',
  specText: 'Kind `agent` (default): the client calls `authenticate` with one advertised `methodId`.',
  methods: [M.authenticate],
  kinds: ['request'],
  check(c) {
    const id = str(c.params?.methodId);
    if (id === undefined || c.state.agent.capabilities === undefined) return;
    if (c.state.agent.authMethods.some((x) => x.id === id)) return;
    const list = c.state.agent.authMethods.map((x) => x.id);
    c.report(`authenticate with methodId ${JSON.stringify(id)}, which the agent did not advertise (authMethods: ${list.length ? list.join(', ') : 'none'})`);
  },
});
