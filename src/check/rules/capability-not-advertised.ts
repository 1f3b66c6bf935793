import { defineRule } from '../rule.js';
import { gateLabel, gateOpen } from '../../spec/methods.js';
import { agentCaps, clientCaps } from './util.js';

/**
 * Every capability-gated method (the method table's `gate`). Reading: a gate on an UNSTABLE method
 * is a warning (UNSTABLE features are never errors by themselves). Checked only once the holder's
 * capabilities are known (initialize sent for client gates, answered for agent gates).
 */
export const capabilityNotAdvertised = defineRule({
  id: 'capability-not-advertised',
  severity: 'error',
  spec: '4.4 rule 2',
  title: 'Method used without the capability that gates it',
  specText: 'All other agent methods depend on capabilities advertised in `initialize`. `fs/*` exist only when the matching client capability is true; `terminal/*` only when `terminal` is true. (9 rule 3: peers treat all omitted capabilities as unsupported.)',
  kinds: ['request', 'notification'],
  check(c) {
    const gate = c.spec?.gate;
    if (!gate) return;
    const caps = gate.holder === 'agent' ? c.state.agent.capabilities : c.state.client.capabilities;
    if (caps === undefined) return;
    if (gateOpen(gate, gate.holder === 'agent' ? agentCaps(c.state) : clientCaps(c.state))) return;
    const sender = c.frame.dir === 'c2a' ? 'client' : 'agent';
    const other = gate.holder === 'agent' ? 'agent' : 'client';
    c.report(`${sender} called ${c.method}, but the ${other} did not advertise ${gateLabel(gate)}${gate.test === 'true' ? ' = true' : ''}; the method is unavailable`, {
      spec: gate.spec,
      severity: c.spec?.unstable ? 'warning' : 'error',
    });
  },
});
