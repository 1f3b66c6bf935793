import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { sessionOf, str, updateOf } from './util.js';

/**
 * Reading: spec.md leaves tool-call shapes out (2.13); the statuses are pending → in_progress →
 * completed | failed (ACP-FACTS). A tool call that finished and is then updated back to pending or
 * in_progress is a likely bug (warning). Moves between the two open states are not judged.
 */
export const toolCallStatusRegressed = defineRule({
  id: 'tool-call-status-regressed',
  severity: 'warning',
  spec: '6',
  title: 'Finished tool call updated back to pending or in_progress',
  specText: 'Tool calls are reported by `session/update` (shapes not shown in part 6); statuses pending, in_progress, completed, failed: a completed or failed tool call is finished.',
  methods: [M.update],
  kinds: ['notification'],
  updates: ['tool_call_update'],
  check(c) {
    const { u, kind } = updateOf(c.params);
    if (kind !== 'tool_call_update') return;
    const st = str(u?.status);
    if (st !== 'pending' && st !== 'in_progress') return;
    const id = str(u?.toolCallId);
    const t = id !== undefined ? sessionOf(c.state, c.params)?.toolCalls[id] : undefined;
    if (t && (t.status === 'completed' || t.status === 'failed')) c.report(`tool call ${JSON.stringify(id)} was ${t.status} and is updated back to ${st}; use a new toolCallId for new work`);
  },
});
