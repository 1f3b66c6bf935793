import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { obj, str } from './util.js';

export const sessionIdReused = defineRule({
  id: 'session-id-reused',
  severity: 'warning',
  spec: '3',
  title: 'New session with an id already in use',
  specText: 'Session: none → `session/new` → active, with a new `sessionId`. (`session/fork`: new independent session.)',
  methods: [M.sessionNew, M.sessionFork],
  kinds: ['result'],
  check(c) {
    const sid = str(obj(c.msg?.result)?.sessionId);
    const prev = sid !== undefined ? c.state.sessions[sid] : undefined;
    if (prev) c.report(`${c.method} returned session id ${JSON.stringify(sid)}, which is already a ${prev.status} session on this connection; a new session needs a new id`);
  },
});
