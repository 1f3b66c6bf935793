import { defineTransportRule } from './transport-util.js';

export const transportWrongStream = defineTransportRule({
  id: 'transport-wrong-stream',
  severity: 'warning',
  section: 'Identity Model',
  title: 'Message of one session on another session\'s stream',
  specText: 'Session identity is carried in JSON-RPC message bodies via the sessionId field; clients demux messages by the sessionId field in each JSON-RPC message. (SDK: transports/http-stream.js opens one SSE stream per session with its Acp-Session-Id, and routes the answer to an agent request on a session stream to that session.)',
  event(d, report) {
    if (d.op !== 'sse-message' || d.stream !== 'session' || !d.sessionId || d.rpc?.sessionId === undefined) return;
    if (d.rpc.sessionId !== d.sessionId) report(`${d.rpc.method ?? 'a message'} of session ${d.rpc.sessionId} came on the stream of session ${d.sessionId}`);
  },
});
