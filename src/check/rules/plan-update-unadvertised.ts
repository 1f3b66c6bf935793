import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { clientCaps, present, updateOf } from './util.js';

export const planUpdateUnadvertised = defineRule({
  id: 'plan-update-unadvertised',
  severity: 'error',
  spec: '6',
  title: 'plan_update / plan_removed to a client without plan support',
  specText: 'The plan updates `plan_update` and `plan_removed` (sent only to clients that advertised `plan`).',
  methods: [M.update],
  kinds: ['notification'],
  updates: ['plan_update', 'plan_removed'],
  check(c) {
    const { kind } = updateOf(c.params);
    if (kind !== 'plan_update' && kind !== 'plan_removed') return;
    if (c.state.client.capabilities === undefined || present(clientCaps(c.state).plan)) return;
    c.report(`${kind} update sent, but the client did not advertise clientCapabilities.plan`);
  },
});
