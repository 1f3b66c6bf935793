/**
 * The agent's notifications the bridge forwards as the agent sent them, past the protocol SDK's
 * client. The SDK's client does nothing with a notification but parse it and queue it for its
 * reader, and the bridge then wrote it out again: a stream of `session/update`s cost a JSON parse
 * and a serialisation per message, for bytes the editor could be given as they came. The watchers
 * (http-watch.ts, ws-watch.ts) hold such a notification's text here and hand the SDK a small
 * placeholder in its place, one per run of notifications with nothing else between them; the
 * bridge, reading the placeholder out of the SDK's client in its turn, writes the run's texts. The
 * order the editor sees is the agent's: requests and responses still go through the SDK (it tracks
 * them), each one closing the run before it. Pure.
 */

/** The placeholder's method: a name no agent sends (params carry a token of this bridge's own too). */
export const HELD_METHOD = 'acp-inspect/held';

/** A held message: its text, or its UTF-8 bytes as they came (a WebSocket message's). */
export type HeldMessage = string | Uint8Array;

export class HeldMessages {
  private readonly runs: HeldMessage[][] = [];
  /** The newest run, while nothing the SDK is to have came after it and its placeholder is not read yet. */
  private open: HeldMessage[] | null = null;
  readonly placeholder: string;
  private readonly token: string;

  constructor() {
    const bytes = new Uint8Array(12);
    globalThis.crypto.getRandomValues(bytes);
    this.token = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
    this.placeholder = JSON.stringify({ jsonrpc: '2.0', method: HELD_METHOD, params: { token: this.token } });
  }

  /**
   * Holds a notification (the agent's text or bytes, as they came); returns the placeholder to hand
   * the SDK in its place, or null when the placeholder of the open run covers it.
   */
  hold(text: HeldMessage): string | null {
    if (this.open) {
      this.open.push(text);
      return null;
    }
    this.open = [text];
    this.runs.push(this.open);
    return this.placeholder;
  }

  /** A message the SDK is to have goes past: the open run ends before it. */
  barrier(): void {
    this.open = null;
  }

  /** Whether a message out of the SDK's client is this bridge's placeholder. */
  is(msg: unknown): boolean {
    const m = msg as { method?: unknown; params?: { token?: unknown } } | null;
    return m?.method === HELD_METHOD && m.params?.token === this.token;
  }

  /** The messages of the oldest run, whose placeholder came out of the SDK's client. */
  take(): HeldMessage[] {
    const run = this.runs.shift() ?? [];
    if (run === this.open) this.open = null;
    return run;
  }

  /** Every message still held, oldest first (the connection ended before the SDK's client gave their placeholders). */
  drain(): HeldMessage[] {
    const all = this.runs.flat();
    this.runs.length = 0;
    this.open = null;
    return all;
  }
}
