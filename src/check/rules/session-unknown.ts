import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { str } from './util.js';

/**
 * Reading: a session id is known once `session/new` or `session/fork` answered it, or once
 * `session/load`/`session/resume` named it. An update that arrives while a `session/new` is still
 * pending is accepted (the agent may stream before answering). `session/delete` names listed sessions
 * and is not checked. UNSTABLE methods (document/*, nes/*) only warn.
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
    if (c.frame.dir === 'a2c') {
      for (const k in c.state.pending) {
        const p = c.state.pending[k]!;
        if (p.dir === 'c2a' && (p.method === M.sessionNew || p.method === M.sessionFork)) return;
      }
    }
    const sender = c.frame.dir === 'c2a' ? 'client' : 'agent';
    c.report(`${sender} sent ${c.method} for session ${JSON.stringify(sid)}, which no session/new, load, resume, fork or nes/start opened on this connection`, c.spec?.unstable ? { severity: 'warning' } : undefined);
  },
});
