import { defineRule } from '../rule.js';
import { RFD, transportOf } from './transport-util.js';

export const transportWrongStream = defineRule({
  id: 'transport-wrong-stream',
  severity: 'warning',
  spec: `${RFD}: Identity Model`,
  title: 'Message of one session on another session\'s stream',
  specText: 'Session identity is carried in JSON-RPC message bodies via the sessionId field; clients demux messages by the sessionId field in each JSON-RPC message. (SDK: transports/http-stream.js opens one SSE stream per session with its Acp-Session-Id, and routes the answer to an agent request on a session stream to that session.)',
  layer: 'wire',
  item(c) {
    const d = transportOf(c.item);
    if (!d || d.op !== 'sse-message' || d.stream !== 'session' || !d.sessionId || d.rpc?.sessionId === undefined) return;
    if (d.rpc.sessionId !== d.sessionId) c.report(`${d.rpc.method ?? 'a message'} of session ${d.rpc.sessionId} came on the stream of session ${d.sessionId}`);
  },
});
