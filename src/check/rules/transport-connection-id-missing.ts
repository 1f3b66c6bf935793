import { requestHeader, defineTransportRule } from './transport-util.js';

export const transportConnectionIdMissing = defineTransportRule({
  id: 'transport-connection-id-missing',
  severity: 'error',
  section: 'Identity Model',
  title: 'HTTP request after initialize without Acp-Connection-Id',
  specText: 'Acp-Connection-Id (HTTP header): returned by the server in the initialize response. Required on all HTTP requests after initialize and on the GET stream. (SDK: transports/http-stream.js sends it on every POST, GET and DELETE after initialize.)',
  event(d, report) {
    if (d.transport !== 'http' || !d.requestHeaders) return;
    if (d.op !== 'post' && d.op !== 'sse-open' && d.op !== 'delete') return;
    if (d.op === 'post' && d.rpc?.method === 'initialize') return;
    if (requestHeader(d, 'acp-connection-id') === undefined) {
      report(`${d.method ?? d.op.toUpperCase()}${d.rpc?.method ? ` of ${d.rpc.method}` : ''} without an Acp-Connection-Id header`);
    }
  },
});
