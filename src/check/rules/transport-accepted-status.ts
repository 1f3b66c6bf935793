import { defineTransportRule, earlierHeaderModel } from './transport-util.js';

export const transportAcceptedStatus = defineTransportRule({
  id: 'transport-accepted-status',
  severity: 'warning',
  section: 'unified routing model',
  title: 'POST answered with a success other than 202 Accepted',
  specText: 'POST: send JSON-RPC message. initialize returns 200 with JSON body. All others return 202 Accepted immediately (notifications and responses return 202). (SDK: transports/server.js answers every POST but initialize 202.)',
  event(d, report, memory) {
    const earlier = earlierHeaderModel(d, memory);
    if (d.op !== 'post' || d.status === undefined || d.status < 200 || d.status > 299 || d.status === 202) return;
    if (!d.rpc || d.rpc.kind === 'other' || d.rpc.method === 'initialize') return;
    // A connection the agent named otherwise than with Acp-Connection-Id (an earlier draft's model,
    // where a request's answer comes in its POST's own event stream, 200) is not on the RFD's:
    // transport-connection-id-missing says so once, at initialize.
    if (earlier !== undefined) return;
    const what = d.rpc.kind === 'response' ? `a response (id ${JSON.stringify(d.rpc.id)})` : `${d.rpc.kind === 'notification' ? 'notification' : 'request'} ${d.rpc.method}`;
    report(`the agent answered the POST of ${what} with ${d.status}, not 202 Accepted`);
  },
});
