/**
 * One probe's side of an ACP connection: it sends requests, notifications and raw lines, answers the
 * peer's requests, and keeps every line both ways as recording items (frames with the exact raw
 * text, stderr lines, events) in the order they happened. Transport-free: the runner hands it the
 * peer's lines (`receive`) and gives it a `write`; the agent probe wires it to a spawned agent, the
 * client probe to its own stdin/stdout.
 *
 * Lines the probe sends on purpose to provoke the peer (bad params, a non-JSON line, a prompt to an
 * unknown session...) are marked `provoke`, so that the findings they cause are the probe's.
 */
import { Correlator } from '../wire/correlate.js';
import type { Direction, Frame, Item } from '../wire/frame.js';
import { frameFromText } from '../wire/make-frame.js';

/** What came back for a request: the response frame's result or error, or why there is none. */
export interface Reply {
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
  /** No answer within the time allowed. */
  timeout?: boolean;
  /** The peer went away before answering. */
  closed?: boolean;
  frame?: Frame;
}

/** A request the peer sent to the probe. */
export interface IncomingRequest {
  id: string | number | null;
  method: string;
  params: Record<string, unknown>;
  frame: Frame;
}

export interface SendOptions {
  /** A deliberate provocation: findings at this frame are the probe's. */
  provoke?: boolean;
  /** ms to wait for the answer (default: the connection's). */
  timeoutMs?: number;
}

export interface ProbeConnectionOptions {
  /** Which end the probe is: 'client' (it writes c2a frames) or 'agent' (a2c). */
  side: 'client' | 'agent';
  /** Writes one line (without its newline) to the peer; inside `batch`, several lines joined by newlines. */
  write: (line: string) => void;
  /** Default ms to wait for an answer. */
  timeoutMs: number;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export class ProbeConnection {
  readonly items: Item[] = [];
  /** Seqs of the frames sent as provocations. */
  readonly provoked = new Set<number>();
  /** Called for each request from the peer; the default answers -32601. */
  onRequest: (req: IncomingRequest) => void;
  private readonly out: Direction;
  private readonly inDir: Direction;
  private readonly t0 = performance.now();
  private readonly correlator = new Correlator();
  private nextId = 0;
  private readonly waiting = new Map<string, (r: Reply) => void>();
  private readonly watchers = new Set<(f: Frame) => void>();
  private closedReason: string | undefined;
  private batched: string[] | undefined;
  private setupDepth = 0;
  /**
   * Seq of the first frame sent outside `asSetup`: where what the scenario is about begins. A
   * finding before it is ambient (the handshake, the session's creation), not the scenario's.
   */
  focusFrom: number | undefined;

  constructor(private readonly opts: ProbeConnectionOptions) {
    this.out = opts.side === 'client' ? 'c2a' : 'a2c';
    this.inDir = opts.side === 'client' ? 'a2c' : 'c2a';
    this.onRequest = (req) => this.respondError(req.id, -32601, `Method not found: ${req.method}`);
  }

  /** ms since the connection started (the recording's clock). */
  now(): number {
    return performance.now() - this.t0;
  }

  /** Requests of the probe still waiting for their answer. */
  get pending(): number {
    return this.waiting.size;
  }

  get isClosed(): boolean {
    return this.closedReason !== undefined;
  }

  /** Frames only (both directions), in order. */
  frames(): Frame[] {
    return this.items.filter((i): i is Frame => i.dir === 'c2a' || i.dir === 'a2c');
  }

  /** Frames the peer sent. */
  received(): Frame[] {
    return this.frames().filter((f) => f.dir === this.inDir);
  }

  private push(dir: Direction, raw: string): Frame {
    const f = frameFromText(this.items.length + 1, this.now(), dir, raw);
    this.correlator.observe(f);
    this.items.push(f);
    return f;
  }

  /** Records a lifecycle event (spawn, exit, stdin-closed...). */
  event(type: string, data: Record<string, unknown>): void {
    this.items.push({ seq: this.items.length + 1, t: this.now(), dir: 'event', type, data });
  }

  /** Records a line the peer wrote to stderr. */
  stderr(line: string): void {
    this.items.push({ seq: this.items.length + 1, t: this.now(), dir: 'stderr', raw: line });
  }

  /** Runs `fn` (which sends synchronously) as setup: what it sends does not start the focus. */
  asSetup<T>(fn: () => T): T {
    this.setupDepth++;
    try {
      return fn();
    } finally {
      this.setupDepth--;
    }
  }

  /** Sends one raw line as is (it may be anything, even not JSON). */
  sendRaw(line: string, opts: SendOptions = {}): Frame | undefined {
    if (this.closedReason !== undefined) return undefined;
    const f = this.push(this.out, line);
    if (!this.setupDepth) this.focusFrom ??= f.seq;
    if (opts.provoke) this.provoked.add(f.seq);
    if (this.batched) this.batched.push(line);
    else try { this.opts.write(line); } catch { /* the peer is gone: seen as close */ }
    return f;
  }

  /**
   * Sends what `fn` sends in one write, so the peer reads the lines together (a cancel right behind
   * its prompt reaches the agent before the turn can end on its own).
   */
  batch<T>(fn: () => T): T {
    this.batched = [];
    try {
      return fn();
    } finally {
      const lines = this.batched;
      this.batched = undefined;
      if (lines.length) try { this.opts.write(lines.join('\n')); } catch { /* the peer is gone: seen as close */ }
    }
  }

  send(msg: Record<string, unknown>, opts: SendOptions = {}): Frame | undefined {
    return this.sendRaw(JSON.stringify({ jsonrpc: '2.0', ...msg }), opts);
  }

  /** Sends a request and resolves with its answer, a timeout, or the peer's end. Never rejects. */
  request(method: string, params: unknown, opts: SendOptions = {}): Promise<Reply> & { id: number } {
    const id = this.nextId++;
    const key = JSON.stringify(id);
    let resolveReply!: (r: Reply) => void;
    const p = new Promise<Reply>((resolve) => { resolveReply = resolve; }) as Promise<Reply> & { id: number };
    p.id = id;
    if (this.closedReason !== undefined) {
      resolveReply({ closed: true });
      return p;
    }
    const timer = setTimeout(() => {
      this.waiting.delete(key);
      resolveReply({ timeout: true });
    }, opts.timeoutMs ?? this.opts.timeoutMs);
    this.waiting.set(key, (r) => { clearTimeout(timer); resolveReply(r); });
    this.send({ id, method, params }, opts);
    return p;
  }

  notify(method: string, params: unknown, opts: SendOptions = {}): Frame | undefined {
    return this.send({ method, params }, opts);
  }

  respond(id: IncomingRequest['id'], result: unknown, opts: SendOptions = {}): void {
    this.send({ id, result }, opts);
  }

  respondError(id: IncomingRequest['id'], code: number, message: string, opts: SendOptions = {}): void {
    this.send({ id, error: { code, message } }, opts);
  }

  /** Feeds one line the peer wrote (without its newline). */
  receive(line: string): Frame {
    const f = this.push(this.inDir, line);
    const msg = isObj(f.json) ? f.json : undefined;
    if ((f.kind === 'result' || f.kind === 'error') && msg) {
      const w = this.waiting.get(JSON.stringify(f.id));
      if (w) {
        this.waiting.delete(JSON.stringify(f.id));
        w(f.kind === 'result' ? { result: msg.result, frame: f } : { error: isObj(msg.error) ? msg.error : { message: String(msg.error) }, frame: f });
      }
    }
    for (const w of [...this.watchers]) w(f);
    if (f.kind === 'request' && msg && f.method !== undefined) {
      this.onRequest({ id: f.id ?? null, method: f.method, params: isObj(msg.params) ? msg.params : {}, frame: f });
    }
    return f;
  }

  /** The peer is gone: every waiting request resolves `closed`, every watcher gets nothing more. */
  close(reason: string): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    for (const w of this.waiting.values()) w({ closed: true });
    this.waiting.clear();
    for (const w of [...this.watchers]) w(undefined as unknown as Frame);
  }

  /**
   * Resolves with the first frame from the peer (from now on) that `pred` accepts, or undefined after
   * `timeoutMs` or when the peer goes away.
   */
  waitFor(pred: (f: Frame) => boolean, timeoutMs = this.opts.timeoutMs): Promise<Frame | undefined> {
    return new Promise((resolve) => {
      if (this.closedReason !== undefined) return resolve(undefined);
      const done = (f: Frame | undefined): void => {
        clearTimeout(timer);
        this.watchers.delete(watch);
        resolve(f);
      };
      const watch = (f: Frame): void => {
        if (f === undefined) done(undefined);
        else if (pred(f)) done(f);
      };
      const timer = setTimeout(() => done(undefined), timeoutMs);
      this.watchers.add(watch);
    });
  }

  /** Waits `ms` and returns the peer's frames that arrived meanwhile. */
  async settle(ms: number): Promise<Frame[]> {
    const from = this.items.length;
    await new Promise((r) => setTimeout(r, ms));
    return this.items.slice(from).filter((i): i is Frame => i.dir === this.inDir);
  }
}

/** `params.update.sessionUpdate` of a session/update frame. */
export function updateKind(f: Frame): string | undefined {
  const p = isObj(f.json) && isObj(f.json.params) ? f.json.params : undefined;
  const u = p && isObj(p.update) ? p.update : undefined;
  return typeof u?.sessionUpdate === 'string' ? u.sessionUpdate : undefined;
}

/** An error reply's code, when it has a numeric one. */
export function errorCode(r: Reply): number | undefined {
  return typeof r.error?.code === 'number' ? r.error.code : undefined;
}

/** A reply in a few words, for a scenario's `why`. */
export function describeReply(r: Reply): string {
  if (r.timeout) return 'no answer in time';
  if (r.closed) return 'no answer: the peer went away';
  // The message as a JSON string: one that has quotes of its own (the SDK's `"Method not found": m`) stays readable.
  if (r.error) return `error ${String(r.error.code)}${typeof r.error.message === 'string' ? ` ${JSON.stringify(r.error.message.slice(0, 80))}` : ''}`;
  return `result ${JSON.stringify(r.result)?.slice(0, 80) ?? 'undefined'}`;
}
