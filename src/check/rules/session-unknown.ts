import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { str } from './util.js';

/**
 * Reading: a session id is known once `session/new` or `session/fork` answered it, or once
 * `session/load`/`session/resume` named it. An update or a request from the agent that names a
 * session while the `session/new` (or fork) that creates it is still unanswered is reported too: the
 * client learns the id from that answer, so it cannot place the frame (real agents answer first, then
 * send their `available_commands_update`). `session/delete` names listed sessions and is not checked.
 * UNSTABLE methods (document/*, nes/*) only warn.
 */
export const sessionUnknown = defineRule({
  id: 'session-unknown',
  severity: 'error',
  spec: '3',
  title: 'Unknown session id',
  specText: 'Session: none → `session/new` → active, with a new `sessionId`; stored → `session/load` / `session/resume` → active. The client creates a session before it sends `session/prompt`.',
  kinds: ['request', 'notification'],
  check(c) {
    const needs = c.spec?.session === 'required' || (c.method === M.elicitationCreate && c.params?.sessionId !== undefined);
    if (!needs) return;
    const sid = str(c.params?.sessionId);
    if (sid === undefined || c.state.sessions[sid]) return;
    const o = c.spec?.unstable ? { severity: 'warning' as const } : undefined;
    if (c.frame.dir === 'a2c') {
      for (const k in c.state.pending) {
        const p = c.state.pending[k]!;
        if (p.dir === 'c2a' && (p.method === M.sessionNew || p.method === M.sessionFork)) {
          c.report(`agent sent ${c.method} for session ${JSON.stringify(sid)} before answering the ${p.method} (#${p.seq}) that creates it: the client learns a new session's id from that answer, so it cannot know this one yet`, o);
          return;
        }
      }
    }
    const sender = c.frame.dir === 'c2a' ? 'client' : 'agent';
    c.report(`${sender} sent ${c.method} for session ${JSON.stringify(sid)}, which no session/new, load, resume, fork or nes/start opened on this connection`, o);
  },
});
