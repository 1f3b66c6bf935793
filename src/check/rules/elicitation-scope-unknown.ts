import { defineRule } from '../rule.js';
import { M } from '../../spec/methods.js';
import { pendingKey } from '../model.js';
import { sessionOf, str } from './util.js';

/**
 * Reading: a request-scoped elicitation (`requestId`, no `sessionId`) is tied to one JSON-RPC request
 * outside a session, e.g. the client's `authenticate` still running: the id must name a client request
 * in flight (error). A session-scoped one with a `toolCallId` should name a tool call the session
 * announced (warning: the tool call may be introduced later by a permission request).
 */
export const elicitationScopeUnknown = defineRule({
  id: 'elicitation-scope-unknown',
  severity: 'error',
  spec: '2.9',
  title: 'Elicitation scoped to a request or tool call that does not exist',
  specText: 'Scope: an elicitation is tied either to a session (`sessionId` req, optional `toolCallId`) or to one JSON-RPC request outside a session (`requestId` req), for example during authentication or configuration before any session exists.',
  methods: [M.elicitationCreate],
  kinds: ['request'],
  check(c) {
    const p = c.params;
    if (!p) return;
    if (p.sessionId === undefined && p.requestId !== undefined) {
      const rid = p.requestId;
      if (typeof rid !== 'string' && typeof rid !== 'number') return;
      const target = c.state.pending[pendingKey('c2a', rid)];
      if (!target) c.report(`elicitation/create is scoped to request ${JSON.stringify(rid)}, but no client request with that id is in flight; a request-scoped elicitation belongs to a running request such as authenticate`);
      else if (target.sessionId !== undefined) c.report(`elicitation/create is scoped to request ${JSON.stringify(rid)} (${target.method}), which belongs to session ${JSON.stringify(target.sessionId)}; use the session scope (sessionId, toolCallId) for it`, { severity: 'warning' });
      return;
    }
    const tcid = str(p.toolCallId);
    const s = sessionOf(c.state, p);
    if (tcid !== undefined && s && !s.toolCalls[tcid]) c.report(`elicitation/create names toolCallId ${JSON.stringify(tcid)}, which session ${JSON.stringify(s.id)} never announced`, { severity: 'warning' });
  },
});
