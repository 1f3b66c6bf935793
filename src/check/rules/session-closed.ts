import { defineRule } from '../rule.js';
import { sessionOf } from './util.js';

export const sessionClosed = defineRule({
  id: 'session-closed',
  severity: 'error',
  spec: '3',
  title: 'Session used after close or delete',
  specText: 'Session: active → `session/close` → closed (agent cancels ongoing work as if `session/cancel` arrived, then frees resources).',
  kinds: ['request', 'notification'],
  check(c) {
    if (c.spec?.session !== 'required') return;
    const s = sessionOf(c.state, c.params);
    if (!s || (s.status !== 'closed' && s.status !== 'deleted')) return;
    c.report(`${c.method} for session ${JSON.stringify(s.id)}, which was ${s.status}; open it again (session/load or resume) first`, c.spec?.unstable ? { severity: 'warning' } : undefined);
  },
});
