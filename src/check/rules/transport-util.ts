/**
 * What the transport rules share: the metadata of a `transport` event (src/wire/transport-event.ts)
 * and the remote transport's reference, the RFD "Streamable HTTP & WebSocket Transport"
 * (docs/rfds/streamable-http-websocket-transport.mdx in the protocol's repository) and the protocol
 * SDK's client and server code (@agentclientprotocol/sdk, dist/transports/).
 */
import type { Item } from '../../wire/frame.js';
import { CONNECTION_HEADERS, isTransportEvent, type TransportData } from '../../wire/transport-event.js';
import { defineRule, type Rule, type RuleInfo } from '../rule.js';

/** The event's transport metadata, when it is a transport event. */
export function transportOf(item: Item): TransportData | undefined {
  return isTransportEvent(item) ? item.data : undefined;
}

/** A request header as recorded (names are stored lower-cased). */
export function requestHeader(d: TransportData, name: string): string | undefined {
  return d.requestHeaders?.[name.toLowerCase()];
}

/**
 * Methods whose POST carries `Acp-Session-Id`: the SDK's list (transports/protocol.js,
 * SESSION_SCOPED_METHODS), which the RFD's "session-scoped operations" names by example.
 */
export const SESSION_SCOPED_METHODS: ReadonlySet<string> = new Set([
  'session/cancel', 'session/close', 'session/delete', 'session/fork', 'session/load', 'session/prompt',
  'session/resume', 'session/set_config_option', 'session/set_mode', 'session/set_model',
]);

/**
 * How the agent's answer to initialize named the connection, remembered in a rule's `memory` from
 * that answer on: undefined before it, or where it carried the RFD's Acp-Connection-Id; otherwise
 * the header it named the connection with instead (an earlier draft's header model: the first of
 * CONNECTION_HEADERS it carried, as the proxy finds the connection) and its value, or null for none.
 */
export function earlierHeaderModel(d: TransportData, memory: Map<string, unknown>): { header: string; id: string } | null | undefined {
  const h = d.responseHeaders;
  if (d.op === 'post' && d.rpc?.method === 'initialize' && d.status !== undefined && d.status < 300 && h && h['acp-connection-id'] === undefined) {
    const header = CONNECTION_HEADERS.find((n) => h[n] !== undefined);
    memory.set(EARLIER_MODEL, header ? { header: headerName(header), id: h[header]! } : null);
  }
  return memory.get(EARLIER_MODEL) as { header: string; id: string } | null | undefined;
}
const EARLIER_MODEL = 'earlier header model';

/** A header's name as written (Acp-Session-Id) from its stored lower-case form. */
export const headerName = (lower: string) => lower.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => `${dash}${c.toUpperCase()}`);

/** The media type of a Content-Type value (no parameters, lower case). */
export function mediaType(v: string | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  return v.split(';', 1)[0]!.trim().toLowerCase();
}

/** The RFD's name, for the rules' spec sections. */
export const RFD = 'RFD streamable-http-websocket-transport';

/** A transport rule: its description with the RFD section it follows, and its look at each transport event. */
export interface TransportRule extends Omit<RuleInfo, 'spec'> {
  /** The RFD's section (the rule's spec is `RFD …: section`). */
  section: string;
  /**
   * Looks at one transport event's metadata; `report` reports a finding at that event; `memory` is
   * the rule's own over the recording (one connection: the proxy records one a connection).
   */
  event(d: TransportData, report: (message: string) => void, memory: Map<string, unknown>): void;
}

/** A wire-layer rule over the transport events only (see TransportRule). */
export function defineTransportRule({ section, event, ...info }: TransportRule): Rule {
  return defineRule({
    ...info,
    spec: `${RFD}: ${section}`,
    layer: 'wire',
    item(c) {
      const d = transportOf(c.item);
      if (d) event(d, (message) => c.report(message), c.memory());
    },
  });
}
