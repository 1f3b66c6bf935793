import { defineRule } from '../rule.js';
import { RFD, requestHeader, transportOf } from './transport-util.js';

export const transportConnectionIdMissing = defineRule({
  id: 'transport-connection-id-missing',
  severity: 'error',
  spec: `${RFD}: Identity Model`,
  title: 'HTTP request after initialize without Acp-Connection-Id',
  specText: 'Acp-Connection-Id (HTTP header): returned by the server in the initialize response. Required on all HTTP requests after initialize and on the GET stream. (SDK: transports/http-stream.js sends it on every POST, GET and DELETE after initialize.)',
  layer: 'wire',
  item(c) {
    const d = transportOf(c.item);
    if (!d || d.transport !== 'http' || !d.requestHeaders) return;
    if (d.op !== 'post' && d.op !== 'sse-open' && d.op !== 'delete') return;
    if (d.op === 'post' && d.rpc?.method === 'initialize') return;
    if (requestHeader(d, 'acp-connection-id') === undefined) {
      c.report(`${d.method ?? d.op.toUpperCase()}${d.rpc?.method ? ` of ${d.rpc.method}` : ''} without an Acp-Connection-Id header`);
    }
  },
});
