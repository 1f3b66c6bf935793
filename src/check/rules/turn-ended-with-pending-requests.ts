import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';

/**
 * Reading: the agent's requests during a turn (permission, fs, terminal, elicitation) belong to the
 * turn; answering the prompt while one of them is still unanswered is a likely agent bug (warning).
 * Not judged for a cancelled turn: the client's cancelled answers may cross the agent's stop reason.
 */
export const turnEndedWithPendingRequests = defineRule({
  id: 'turn-ended-with-pending-requests',
  severity: 'warning',
  spec: '4.4 rule 3',
  title: 'Turn ended while the agent still waited for the client',
  specText: 'While the turn runs, the agent streams `session/update` notifications and may call client methods; the turn ends when the request is answered with a stop reason.',
  methods: [M.prompt],
  kinds: ['result', 'error'],
  check(c) {
    const req = c.req;
    const sid = req?.sessionId;
    if (!req || sid === undefined) return;
    const s = c.state.sessions[sid];
    if (!s || s.turnSeq !== req.seq || s.cancelSeq !== undefined) return;
    for (const k in c.state.pending) {
      const p = c.state.pending[k]!;
      if (p.dir === 'a2c' && p.sessionId === sid && p.seq > req.seq) {
        c.report(`the turn started at #${req.seq} ended while the agent's ${p.method} (#${p.seq}) was still unanswered`);
        return;
      }
    }
  },
});
