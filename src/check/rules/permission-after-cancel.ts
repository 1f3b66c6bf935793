import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { sessionOf } from './util.js';

export const permissionAfterCancel = defineRule({
  id: 'permission-after-cancel',
  severity: 'warning',
  spec: '3',
  title: 'Agent asks permission after the turn was cancelled',
  specText: 'Prompt turn: running → `session/cancel` → ends: agent should stop model requests, abort tool calls, send pending updates, then answer the prompt request with the cancelled stop reason.',
  methods: [M.requestPermission],
  kinds: ['request'],
  check(c) {
    const s = sessionOf(c.state, c.params);
    if (s?.turn === 'cancel-requested') c.report(`agent asked for permission in session ${JSON.stringify(s.id)} after session/cancel (#${s.cancelSeq}); it should abort tool calls and end the turn`);
  },
});
