import { mediaType, requestHeader, defineTransportRule } from './transport-util.js';

export const transportPostContentType = defineTransportRule({
  id: 'transport-post-content-type',
  severity: 'error',
  section: 'Content Negotiation and Validation',
  title: 'POST whose Content-Type is not application/json',
  specText: 'POST Content-Type MUST be application/json (415 otherwise). (SDK: transports/http-stream.js sends Content-Type: application/json on every POST.)',
  event(d, report) {
    if (d.op !== 'post' || !d.requestHeaders) return;
    const type = mediaType(requestHeader(d, 'content-type'));
    if (type !== 'application/json') report(`POST${d.rpc?.method ? ` of ${d.rpc.method}` : ''} with Content-Type ${type ?? '(none)'}, not application/json`);
  },
});
