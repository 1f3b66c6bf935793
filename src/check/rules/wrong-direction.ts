import { defineRule } from '../rule.js';
import { expectedDirection } from '../../spec/methods.js';

export const wrongDirection = defineRule({
  id: 'wrong-direction',
  severity: 'error',
  spec: '1',
  title: 'Method sent by the wrong side',
  specText: 'Agent methods: the client calls them on the agent. Client methods: the agent calls them on the client. Protocol-level methods: either side may send them.',
  kinds: ['request', 'notification'],
  check(c) {
    if (!c.spec) return;
    const want = expectedDirection(c.spec);
    if (want === undefined || want === c.frame.dir) return;
    const sender = c.frame.dir === 'c2a' ? 'client' : 'agent';
    c.report(`${c.method} is ${c.spec.side === 'agent' ? 'an agent method (client → agent)' : 'a client method (agent → client)'} but the ${sender} sent it`, {
      spec: c.spec.side === 'agent' ? '4.1' : '4.2',
    });
  },
});
