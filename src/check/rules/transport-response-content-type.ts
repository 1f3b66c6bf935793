import { defineRule } from '../rule.js';
import { RFD, mediaType, transportOf } from './transport-util.js';

export const transportResponseContentType = defineRule({
  id: 'transport-response-content-type',
  severity: 'warning',
  spec: `${RFD}: Streamable HTTP Message Flow`,
  title: 'Agent\'s answer in another content type than the transport\'s',
  specText: 'initialize returns 200 OK with a JSON response body (Content-Type: application/json); GET opens an SSE stream (text/event-stream) for server→client messages. (SDK: transports/server.js answers so; transports/http-stream.js parses the initialize body as JSON and the GET body as SSE.)',
  layer: 'wire',
  item(c) {
    const d = transportOf(c.item);
    if (!d || d.status !== 200) return;
    const type = mediaType(d.contentType);
    if (d.op === 'sse-open' && type !== 'text/event-stream') c.report(`the ${d.stream ?? ''} stream was answered with Content-Type ${type ?? '(none)'}, not text/event-stream`.replace('the  stream', 'the stream'));
    if (d.op === 'post' && d.rpc?.method === 'initialize' && type !== 'application/json') c.report(`initialize was answered 200 with Content-Type ${type ?? '(none)'}, not application/json`);
  },
});
