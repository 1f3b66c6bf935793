import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { clientCaps, obj, present, updateOf } from './util.js';

export const compactionUnadvertised = defineRule({
  id: 'compaction-unadvertised',
  severity: 'error',
  spec: '6',
  title: 'Compaction update to a client without compaction support',
  specText: 'Compaction update and compaction summary chunk (sent only when the client advertised `session.compaction`).',
  methods: [M.update],
  kinds: ['notification'],
  updates: ['compaction_update', 'compaction_summary_chunk'],
  check(c) {
    const { kind } = updateOf(c.params);
    if (kind !== 'compaction_update' && kind !== 'compaction_summary_chunk') return;
    if (c.state.client.capabilities === undefined || present(obj(clientCaps(c.state).session)?.compaction)) return;
    c.report(`${kind} sent, but the client did not advertise clientCapabilities.session.compaction`, { spec: '6' });
  },
});
