/**
 * The client probe's end of the wire: newline-delimited JSON-RPC on the probe's own stdin/stdout,
 * as the agent an editor launched. It writes every line it sends and every line it reads into one
 * list in wire order (`c2a`: what the client sent, `a2c`: what the probe sent), so the probe is both
 * ends of the record. Requests to the client carry a timeout and resolve to a `Reply`, never throw.
 * It knows nothing of scenarios or of the store.
 */
import type { Readable, Writable } from 'node:stream';
import { LineSplitter, decodeUtf8 } from '../../wire/line-splitter.js';
import type { Direction } from '../../wire/frame.js';

/** One line as it was on the wire, in order. `t` is ms since the connection opened. */
export interface WireLine {
  dir: Direction;
  t: number;
  raw: string;
}

/** What became of a request the probe sent. `ms`: time from sending it to its answer (or to giving up). */
export type Reply =
  | { kind: 'result'; result: unknown; ms: number }
  | { kind: 'error'; error: { code?: unknown; message?: unknown; data?: unknown }; ms: number }
  | { kind: 'timeout'; ms: number }
  | { kind: 'closed'; ms: number };

/** A request or notification the client sent. `respond` is absent for a notification. */
export interface Incoming {
  method: string;
  params: unknown;
  id?: string | number | null;
  respond?: (answer: { result: unknown } | { error: { code: number; message: string } }) => void;
}

export interface ProbeConnectionOptions {
  input: Readable;
  output: Writable;
  /** Called for every request and notification from the client, in order. */
  onIncoming: (msg: Incoming) => void;
}

interface Pending {
  resolve: (r: Reply) => void;
  sentAt: number;
  timer?: NodeJS.Timeout;
}

export class ProbeConnection {
  /** Every line both ways, in wire order. */
  readonly lines: WireLine[] = [];
  /** Resolves when the client closed the connection (its end of our stdin). */
  readonly closed: Promise<void>;
  private isClosed = false;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly t0 = performance.now();
  private readonly output: Writable;
  private readonly onIncoming: (msg: Incoming) => void;

  constructor(opts: ProbeConnectionOptions) {
    this.output = opts.output;
    this.onIncoming = opts.onIncoming;
    let markClosed: () => void = () => {};
    this.closed = new Promise((resolve) => { markClosed = resolve; });
    const splitter = new LineSplitter();
    const close = (): void => {
      if (this.isClosed) return;
      const last = splitter.end();
      if (last) this.receive(decodeUtf8(last).text);
      this.isClosed = true;
      for (const [id, p] of this.pending) this.settle(id, p, { kind: 'closed', ms: this.now() - p.sentAt });
      markClosed();
    };
    opts.input.on('data', (chunk: Buffer) => {
      for (const line of splitter.push(chunk)) this.receive(decodeUtf8(line).text);
    });
    opts.input.once('end', close);
    opts.input.once('close', close);
    opts.input.once('error', close);
    this.output.on('error', close);
  }

  /** ms since the connection opened. */
  now(): number {
    return performance.now() - this.t0;
  }

  get isOpen(): boolean {
    return !this.isClosed;
  }

  /** Sends a request; resolves with the client's answer, or `timeout` after `timeoutMs`, or `closed`. */
  request(method: string, params: unknown, timeoutMs: number): { id: number; reply: Promise<Reply> } {
    const id = this.nextId++;
    const sentAt = this.now();
    const reply = new Promise<Reply>((resolve) => {
      if (this.isClosed) return resolve({ kind: 'closed', ms: 0 });
      const p: Pending = { resolve, sentAt };
      this.pending.set(id, p);
      p.timer = setTimeout(() => this.settle(id, p, { kind: 'timeout', ms: this.now() - sentAt }), timeoutMs);
      this.write({ jsonrpc: '2.0', id, method, params });
    });
    return { id, reply };
  }

  /** Sends a notification. */
  notify(method: string, params: unknown): void {
    if (!this.isClosed) this.write({ jsonrpc: '2.0', method, params });
  }

  /** Writes a line exactly as given (for frames that are not what a well-behaved agent sends). */
  writeRaw(raw: string): void {
    if (this.isClosed) return;
    this.lines.push({ dir: 'a2c', t: this.now(), raw });
    this.output.write(`${raw}\n`);
  }

  /** Resolves once everything written so far has been handed to the OS. */
  flush(): Promise<void> {
    return new Promise((resolve) => {
      if (this.isClosed || this.output.writableEnded) return resolve();
      this.output.write('', () => resolve());
    });
  }

  private write(msg: object): void {
    this.writeRaw(JSON.stringify(msg));
  }

  private settle(id: number, p: Pending, r: Reply): void {
    if (this.pending.get(id) !== p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    p.resolve(r);
  }

  private receive(raw: string): void {
    this.lines.push({ dir: 'c2a', t: this.now(), raw });
    let msg: Record<string, unknown>;
    try {
      const v: unknown = JSON.parse(raw);
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return;
      msg = v as Record<string, unknown>;
    } catch {
      return; // recorded as it was; the checker reports it
    }
    if (typeof msg.method === 'string') {
      const hasId = 'id' in msg;
      const id = msg.id as string | number | null;
      let answered = false;
      this.onIncoming({
        method: msg.method,
        params: msg.params,
        ...(hasId ? {
          id,
          respond: (answer) => {
            if (answered) return;
            answered = true;
            this.write({ jsonrpc: '2.0', id, ...answer });
          },
        } : {}),
      });
      return;
    }
    if (typeof msg.id === 'number' && ('result' in msg || 'error' in msg)) {
      const p = this.pending.get(msg.id);
      if (!p) return;
      const ms = this.now() - p.sentAt;
      this.settle(msg.id, p, 'error' in msg
        ? { kind: 'error', error: (msg.error ?? {}) as { code?: unknown; message?: unknown }, ms }
        : { kind: 'result', result: msg.result, ms });
    }
  }
}
