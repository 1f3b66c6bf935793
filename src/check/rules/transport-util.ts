/**
 * What the transport rules share: the metadata of a `transport` event (src/wire/transport-event.ts)
 * and the remote transport's reference, the RFD "Streamable HTTP & WebSocket Transport"
 * (docs/rfds/streamable-http-websocket-transport.mdx in the protocol's repository) and the protocol
 * SDK's client and server code (@agentclientprotocol/sdk, dist/transports/).
 */
import type { Item } from '../../wire/frame.js';
import { isTransportEvent, type TransportData } from '../../wire/transport-event.js';
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
  /** Looks at one transport event's metadata; `report` reports a finding at that event. */
  event(d: TransportData, report: (message: string) => void): void;
}

/** A wire-layer rule over the transport events only (see TransportRule). */
export function defineTransportRule({ section, event, ...info }: TransportRule): Rule {
  return defineRule({
    ...info,
    spec: `${RFD}: ${section}`,
    layer: 'wire',
    item(c) {
      const d = transportOf(c.item);
      if (d) event(d, (message) => c.report(message));
    },
  });
}
