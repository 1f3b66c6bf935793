import { mediaType, defineTransportRule } from './transport-util.js';

export const transportResponseContentType = defineTransportRule({
  id: 'transport-response-content-type',
  severity: 'warning',
  section: 'Streamable HTTP Message Flow',
  title: 'Agent\'s answer in another content type than the transport\'s',
  specText: 'initialize returns 200 OK with a JSON response body (Content-Type: application/json); GET opens an SSE stream (text/event-stream) for server→client messages. (SDK: transports/server.js answers so; transports/http-stream.js parses the initialize body as JSON and the GET body as SSE.)',
  event(d, report) {
    if (d.status !== 200) return;
    const type = mediaType(d.contentType);
    if (d.op === 'sse-open' && type !== 'text/event-stream') report(`the ${d.stream ?? ''} stream was answered with Content-Type ${type ?? '(none)'}, not text/event-stream`.replace('the  stream', 'the stream'));
    if (d.op === 'post' && d.rpc?.method === 'initialize' && type !== 'application/json') report(`initialize was answered 200 with Content-Type ${type ?? '(none)'}, not application/json`);
  },
});
