import { earlierHeaderModel, requestHeader, defineTransportRule } from './transport-util.js';

const EARLIER = 'said';

export const transportConnectionIdMissing = defineTransportRule({
  id: 'transport-connection-id-missing',
  severity: 'error',
  section: 'Identity Model',
  title: 'HTTP request after initialize without Acp-Connection-Id (or, once, an initialize answered without one)',
  specText: 'Acp-Connection-Id (HTTP header): returned by the server in the initialize response. Required on all HTTP requests after initialize and on the GET stream. (SDK: transports/http-stream.js sends it on every POST, GET and DELETE after initialize.)',
  event(d, report, memory) {
    if (d.transport !== 'http' || !d.requestHeaders) return;
    if (d.op !== 'post' && d.op !== 'sse-open' && d.op !== 'delete') return;
    // An agent whose answer to initialize gave no Acp-Connection-Id: said once there, not at each
    // request after it (its client has none to send).
    const known = memory.has(EARLIER);
    const earlier = earlierHeaderModel(d, memory);
    if (!known && earlier !== undefined) {
      memory.set(EARLIER, true);
      report(`initialize answered without an Acp-Connection-Id header${earlier ? `; the agent names the connection with ${earlier.header} ${earlier.id} instead (an earlier draft's header model, as Goose's pilot has it)` : ''}: the requests after it cannot carry the RFD's headers (their Acp-Connection-Id and Acp-Session-Id are not checked on this connection)`);
      return;
    }
    if (earlier !== undefined) return;
    if (d.op === 'post' && d.rpc?.method === 'initialize') return;
    if (requestHeader(d, 'acp-connection-id') === undefined) {
      report(`${d.method ?? d.op.toUpperCase()}${d.rpc?.method ? ` of ${d.rpc.method}` : ''} without an Acp-Connection-Id header`);
    }
  },
});
