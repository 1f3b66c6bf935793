import { defineRule } from '../rule.js';
import { gateLabel, gateOpen } from '../../spec/methods.js';
import { agentCaps, clientCaps, errorOf } from './util.js';

/** Reading: a capability that was advertised makes its method available, so -32601 contradicts it. */
export const advertisedMethodNotFound = defineRule({
  id: 'advertised-method-not-found',
  severity: 'error',
  spec: '7 rule 3',
  title: 'Method not found although its capability was advertised',
  specText: 'A method that is gated by a capability the peer did not advertise is unavailable; -32601 covers methods that do not exist or are not available.',
  kinds: ['error'],
  check(c) {
    const gate = c.spec?.gate;
    if (!gate || c.spec?.unstable || errorOf(c.msg)?.code !== -32601) return;
    const caps = gate.holder === 'agent' ? c.state.agent.capabilities : c.state.client.capabilities;
    if (caps === undefined || !gateOpen(gate, gate.holder === 'agent' ? agentCaps(c.state) : clientCaps(c.state))) return;
    c.report(`${gate.holder} answered ${c.method} with -32601 (method not found) although it advertised ${gateLabel(gate)}`);
  },
});
