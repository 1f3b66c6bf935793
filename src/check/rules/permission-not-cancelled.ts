import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { obj } from './util.js';

export const permissionNotCancelled = defineRule({
  id: 'permission-not-cancelled',
  severity: 'error',
  spec: '3',
  title: 'Permission request after session/cancel not answered "cancelled"',
  specText: 'Permission request: pending → `session/cancel` (client cancelled the turn) → answered: client must answer with the cancelled outcome. (4.2: on cancel of the turn the client must answer with the cancelled outcome.)',
  methods: [M.requestPermission],
  kinds: ['result', 'error'],
  check(c) {
    const cancelSeq = c.req?.turnCancelSeq;
    if (cancelSeq === undefined) return;
    const outcome = obj(obj(c.msg?.result)?.outcome)?.outcome;
    if (c.frame.kind === 'result' && outcome === 'cancelled') return;
    const got = c.frame.kind === 'error' ? 'an error' : `outcome ${JSON.stringify(outcome)}`;
    c.report(`permission request #${c.req!.seq} was pending when the client sent session/cancel (#${cancelSeq}) but was answered with ${got}; it must be answered {"outcome":{"outcome":"cancelled"}}`);
  },
});
