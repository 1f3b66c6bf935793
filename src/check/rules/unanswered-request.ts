import { defineRule } from '../rule.js';

/**
 * Reading: a request still pending when the recording ends is an error, unless the recording shows
 * the connection closing (stdin/stdout closed, exit, signal) — then the peer may simply not have had
 * the chance, and it is a warning.
 */
export const unansweredRequest = defineRule({
  id: 'unanswered-request',
  severity: 'error',
  spec: '4',
  title: 'Request never answered',
  specText: 'Requests get a response. After `$/cancel_request`, the receiver must answer the original request with either a valid response or an error with code -32800.',
  layer: 'wire',
  end(c) {
    for (const k in c.state.pending) {
      const p = c.state.pending[k]!;
      const asker = p.dir === 'c2a' ? 'client' : 'agent';
      const answerer = p.dir === 'c2a' ? 'agent' : 'client';
      const closed = c.state.closedSeq !== undefined && c.state.closedSeq > p.seq;
      const extra = p.cancelRequestSeq !== undefined ? ` (even after $/cancel_request at #${p.cancelRequestSeq}, which still requires an answer)` : '';
      c.report(`${p.method} request (id ${JSON.stringify(p.id)}) from the ${asker} was never answered by the ${answerer}${extra}${closed ? ' before the connection closed' : ''}`, {
        seq: p.seq,
        severity: closed ? 'warning' : 'error',
        spec: p.cancelRequestSeq !== undefined ? '7 rule 2' : '4',
      });
    }
  },
});
