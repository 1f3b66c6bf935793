import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { obj, str } from './util.js';

export const sessionDeletedListed = defineRule({
  id: 'session-deleted-listed',
  severity: 'error',
  spec: '3',
  title: 'Deleted session still listed',
  specText: 'Session: listed → `session/delete` (capability `delete`) → removed from `session/list`.',
  methods: [M.sessionList],
  kinds: ['result'],
  check(c) {
    const list = obj(c.msg?.result)?.sessions;
    if (!Array.isArray(list)) return;
    for (const x of list) {
      const sid = str(obj(x)?.sessionId);
      if (sid !== undefined && c.state.sessions[sid]?.status === 'deleted') {
        c.report(`session/list still lists session ${JSON.stringify(sid)}, which session/delete removed`);
        return;
      }
    }
  },
});
