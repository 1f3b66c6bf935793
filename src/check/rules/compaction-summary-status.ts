import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { sessionOf, str, updateOf } from './util.js';

/** Reading: a summary retained by patch semantics (omitted `summary`) on a failed or cancelled compaction is a warning. */

export const compactionSummaryStatus = defineRule({
  id: 'compaction-summary-status',
  severity: 'error',
  spec: '3',
  title: 'Compaction summary with a status other than completed',
  specText: 'A non-empty `summary` is valid only with status `completed`.',
  methods: [M.update],
  kinds: ['notification'],
  updates: ['compaction_update'],
  check(c) {
    const { u, kind } = updateOf(c.params);
    if (kind !== 'compaction_update' || !u) return;
    if (!('summary' in u)) {
      // Patch semantics: an omitted summary keeps the retained one (chunks, earlier updates).
      const id = str(u.compactionId);
      const stored = id !== undefined ? sessionOf(c.state, c.params)?.compactions[id] : undefined;
      if (stored && stored.summaryBlocks > 0 && (u.status === 'failed' || u.status === 'cancelled')) c.report(`compaction_update ${JSON.stringify(id)} moves to ${JSON.stringify(u.status)} and leaves its retained summary (${stored.summaryBlocks} block(s)) in place; send "summary": null or [] to clear it`, { severity: 'warning' });
      return;
    }
    if (!Array.isArray(u.summary) || u.summary.length === 0) return;
    if (u.status !== 'completed') c.report(`compaction_update ${JSON.stringify(u.compactionId)} carries a non-empty summary with status ${JSON.stringify(u.status)}; a summary is valid only with "completed"`);
  },
});
