import { defineRule } from '../rule.js';
import { RFD, mediaType, requestHeader, transportOf } from './transport-util.js';

export const transportPostContentType = defineRule({
  id: 'transport-post-content-type',
  severity: 'error',
  spec: `${RFD}: Content Negotiation and Validation`,
  title: 'POST whose Content-Type is not application/json',
  specText: 'POST Content-Type MUST be application/json (415 otherwise). (SDK: transports/http-stream.js sends Content-Type: application/json on every POST.)',
  layer: 'wire',
  item(c) {
    const d = transportOf(c.item);
    if (!d || d.op !== 'post' || !d.requestHeaders) return;
    const type = mediaType(requestHeader(d, 'content-type'));
    if (type !== 'application/json') c.report(`POST${d.rpc?.method ? ` of ${d.rpc.method}` : ''} with Content-Type ${type ?? '(none)'}, not application/json`);
  },
});
