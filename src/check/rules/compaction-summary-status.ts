import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { updateOf } from './util.js';

export const compactionSummaryStatus = defineRule({
  id: 'compaction-summary-status',
  severity: 'error',
  spec: '3',
  title: 'Compaction summary with a status other than completed',
  specText: 'A non-empty `summary` is valid only with status `completed`.',
  methods: [M.update],
  kinds: ['notification'],
  check(c) {
    const { u, kind } = updateOf(c.params);
    if (kind !== 'compaction_update' || !Array.isArray(u?.summary) || u.summary.length === 0) return;
    if (u.status !== 'completed') c.report(`compaction_update ${JSON.stringify(u.compactionId)} carries a non-empty summary with status ${JSON.stringify(u.status)}; a summary is valid only with "completed"`);
  },
});
