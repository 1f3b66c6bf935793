/**
 * Where each part of the spec the rules cite ("4.4 rule 3", "9 rule 2", "2.6") is documented on the
 * protocol's published site: a finding's citation links there, in `check --json`, `check --rules`,
 * docs/rules.md and the UI. One table, by part; the most specific entry wins ("4.4 rule 3", then
 * "4.4", then "4"). Pages and anchors as the protocol's site and its TypeScript SDK name them.
 */

/** The protocol's documentation pages. */
export const PROTOCOL_DOCS = 'https://agentclientprotocol.com/protocol/';

/** Spec part (as the rules cite it) → page (and anchor) under PROTOCOL_DOCS. */
const PAGES: Readonly<Record<string, string>> = {
  '1': 'overview',
  // Resources and their fields
  '2': 'schema',
  '2.1': 'schema', // conventions: _meta, reserved `_` values, absolute paths (the schema states each)
  '2.3': 'initialization#client-capabilities',
  '2.4': 'initialization',
  '2.5': 'initialization',
  '2.6': 'content',
  '2.8': 'session-setup#mcp-servers',
  '2.10': 'prompt-turn#3-agent-reports-output',
  '2.11': 'terminals',
  // States and transitions; endpoints
  '3': 'overview#message-flow',
  '4': 'overview#communication-model',
  '4.1': 'overview#agent',
  '4.2': 'overview#client',
  '4.3': 'cancellation',
  '4.4 rule 1': 'initialization',
  '4.4 rule 2': 'overview#agent',
  '4.4 rule 3': 'initialization#prompt-capabilities',
  '4.4 rule 4': 'initialization#client-capabilities',
  '4.4 rule 5': 'terminals',
  '4.4 rule 6': 'terminals',
  '4.4 rule 7': 'cancellation',
  '4.4 rule 8': 'session-modes',
  // Authentication, events, errors, limits, versioning
  '5': 'initialization',
  '6': 'prompt-turn#3-agent-reports-output',
  '6 rule 1': 'prompt-turn#cancellation',
  '6 rule 2': 'session-setup#loading-sessions',
  '7': 'schema',
  '7 rule 1': 'initialization',
  '7 rule 2': 'cancellation',
  '7 rule 3': 'initialization#agent-capabilities',
  '8': 'schema',
  '9': 'initialization#protocol-version',
  '9 rule 5': 'overview',
  '9 rule 6': 'extensibility',
};

/** Spec parts looked up so far (a flood of findings cites a few parts over and over). */
const found = new Map<string, string>();

/** The page documenting spec part `spec` ("4.4 rule 3"); the protocol's overview for a part it does not know. */
export function specUrl(spec: string): string {
  let url = found.get(spec);
  if (url === undefined) found.set(spec, (url = lookUp(spec)));
  return url;
}

/** The remote transport's RFD, which transport rules cite ("RFD …") since the spec leaves transport out. */
export const TRANSPORT_RFD = 'https://github.com/agentclientprotocol/agent-client-protocol/blob/main/docs/rfds/streamable-http-websocket-transport.mdx';

function lookUp(spec: string): string {
  if (spec.startsWith('RFD ')) return TRANSPORT_RFD;
  for (let key = spec.trim(); key;) {
    const page = PAGES[key];
    if (page !== undefined) return PROTOCOL_DOCS + page;
    // "4.4 rule 3" → "4.4" → "4"
    const rule = key.lastIndexOf(' rule ');
    const dot = key.lastIndexOf('.');
    key = rule !== -1 ? key.slice(0, rule) : dot !== -1 ? key.slice(0, dot) : '';
  }
  return `${PROTOCOL_DOCS}overview`;
}
