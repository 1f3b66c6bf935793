import { SESSION_SCOPED_METHODS, earlierHeaderModel, requestHeader, defineTransportRule } from './transport-util.js';

export const transportSessionHeader = defineTransportRule({
  id: 'transport-session-header',
  severity: 'error',
  section: 'Content Negotiation and Validation',
  title: 'Session-scoped POST without the session\'s Acp-Session-Id',
  specText: 'POST requests for session-scoped operations MUST include both Acp-Connection-Id and Acp-Session-Id headers. Acp-Session-Id: the session-level identifier returned in the session/new response body; sessionId is also included in JSON-RPC params for session-scoped methods. (SDK: transports/http-stream.js sets Acp-Session-Id to params.sessionId.)',
  event(d, report, memory) {
    const earlier = earlierHeaderModel(d, memory);
    if (d.op !== 'post' || !d.requestHeaders || !d.rpc?.method || !SESSION_SCOPED_METHODS.has(d.rpc.method) || d.rpc.sessionId === undefined) return;
    const header = requestHeader(d, 'acp-session-id');
    // A connection the agent named otherwise than with Acp-Connection-Id (an earlier draft's header
    // model) is not on the RFD's: transport-connection-id-missing says so once, at initialize.
    if (earlier !== undefined) return;
    if (header === undefined) report(`POST of ${d.rpc.method} for session ${d.rpc.sessionId} without an Acp-Session-Id header`);
    else if (header !== d.rpc.sessionId) report(`POST of ${d.rpc.method} for session ${d.rpc.sessionId} with Acp-Session-Id ${header}`);
  },
});
