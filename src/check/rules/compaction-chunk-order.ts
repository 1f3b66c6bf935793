import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { sessionOf, str, updateOf } from './util.js';

export const compactionChunkOrder = defineRule({
  id: 'compaction-chunk-order',
  severity: 'error',
  spec: '3',
  title: 'Compaction summary chunk outside in_progress',
  specText: 'Compaction `in_progress` → `CompactionSummaryChunk`: after the `in_progress` update and before the terminal update of that id; content is appended to the retained summary.',
  methods: [M.update],
  kinds: ['notification'],
  updates: ['compaction_summary_chunk'],
  check(c) {
    const { u, kind } = updateOf(c.params);
    if (kind !== 'compaction_summary_chunk') return;
    const s = sessionOf(c.state, c.params);
    const id = str(u?.compactionId);
    if (!s || id === undefined) return;
    const comp = s.compactions[id];
    if (!comp) c.report(`compaction_summary_chunk for ${JSON.stringify(id)} before any compaction_update for that id; chunks come after the in_progress update`);
    else if (comp.ended) c.report(`compaction_summary_chunk for ${JSON.stringify(id)} after its terminal update (status ${JSON.stringify(comp.status)})`);
    else if (!comp.inProgressSeen) c.report(`compaction_summary_chunk for ${JSON.stringify(id)} before its in_progress update`);
  },
});
