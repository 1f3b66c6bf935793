import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { sessionOf } from './util.js';

export const promptDuringCancel = defineRule({
  id: 'prompt-during-cancel',
  severity: 'warning',
  spec: '3',
  title: 'Prompt before the cancelled turn ended',
  specText: 'Prompt turn: running → `session/cancel` → ends: the agent ... then answers the prompt request with the cancelled stop reason.',
  methods: [M.prompt],
  kinds: ['request'],
  check(c) {
    const s = sessionOf(c.state, c.params);
    if (s?.turn === 'cancel-requested') c.report(`session/prompt for session ${JSON.stringify(s.id)} before the cancelled turn (#${s.turnSeq}) was answered; wait for its cancelled stop reason`);
  },
});
