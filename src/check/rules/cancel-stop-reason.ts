import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { obj, str } from './util.js';

export const cancelStopReason = defineRule({
  id: 'cancel-stop-reason',
  severity: 'warning',
  spec: '3',
  title: 'Cancelled turn did not end with "cancelled"',
  specText: 'Prompt turn: running → `session/cancel` → ends: agent should ... answer the prompt request with the cancelled stop reason.',
  methods: [M.prompt],
  kinds: ['result', 'error'],
  check(c) {
    const sid = c.req?.sessionId;
    const s = sid !== undefined ? c.state.sessions[sid] : undefined;
    if (!s || s.turnSeq !== c.req!.seq || s.cancelSeq === undefined) return;
    const sr = str(obj(c.msg?.result)?.stopReason);
    if (c.frame.kind === 'result' && sr === 'cancelled') return;
    const got = c.frame.kind === 'error' ? 'an error' : `stop reason ${JSON.stringify(sr)}`;
    c.report(`turn #${c.req!.seq} was cancelled (#${s.cancelSeq}) but ended with ${got}; after session/cancel the agent should answer with stopReason "cancelled"`);
  },
});
