import { defineRule } from '../rule.js';
import { errorOf } from './util.js';

export const cancelRequestAnswer = defineRule({
  id: 'cancel-request-answer',
  severity: 'error',
  spec: '7 rule 2',
  title: 'Cancelled request answered with the wrong error',
  specText: 'After `$/cancel_request`, the receiver must answer the original request with either a valid response (partial results or a cancellation marker) or an error with code -32800.',
  kinds: ['error'],
  check(c) {
    if (c.req?.cancelRequestSeq === undefined) return;
    const code = errorOf(c.msg)?.code;
    if (code !== -32800) c.report(`${c.req.method} #${c.req.seq} was cancelled with $/cancel_request (#${c.req.cancelRequestSeq}) and answered with error ${JSON.stringify(code)}; use a valid response or error -32800`);
  },
});
