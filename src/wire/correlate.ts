/**
 * Pairs responses with requests. Each side numbers its own requests, so a response travelling in
 * direction D answers the pending request that travelled in the opposite direction with the same id.
 * Constant work per frame; pending entries are removed when answered.
 */
import { type Direction, type Frame, reverse } from './frame.js';
import { idKey } from './parse.js';

export interface PendingRequest {
  seq: number;
  t: number;
  method: string;
  dir: Direction;
}

/** Unanswered requests remembered at most; the oldest is forgotten first, so memory stays bounded. */
export const MAX_PENDING = 100_000;

export class Correlator {
  private pending = new Map<string, PendingRequest>();

  constructor(private readonly maxPending = MAX_PENDING) {}

  /** Annotates `frame` in place: responses get `method`, `replyTo` and `latency`. Returns the request answered, if any. */
  observe(frame: Frame): PendingRequest | undefined {
    if (frame.kind === 'request' && frame.method !== undefined) {
      const key = frame.dir + idKey(frame.id);
      this.pending.delete(key); // a reused id starts again at the end (Map order is insertion order)
      this.pending.set(key, { seq: frame.seq, t: frame.t, method: frame.method, dir: frame.dir });
      if (this.pending.size > this.maxPending) this.pending.delete(this.pending.keys().next().value!);
      return undefined;
    }
    if (frame.kind === 'result' || frame.kind === 'error') {
      const key = reverse(frame.dir) + idKey(frame.id);
      const req = this.pending.get(key);
      if (!req) return undefined;
      this.pending.delete(key);
      frame.method = req.method;
      frame.replyTo = req.seq;
      frame.latency = frame.t - req.t;
      return req;
    }
    return undefined;
  }

  /** The requests waiting for an answer, oldest first, as plain data (to resume from: see restore). */
  snapshot(): [string, PendingRequest][] {
    return [...this.pending];
  }

  /** Starts again from a snapshot. */
  restore(entries: [string, PendingRequest][]): void {
    this.pending = new Map(entries);
  }

  /** Requests not answered yet. */
  unanswered(): PendingRequest[] {
    return [...this.pending.values()];
  }
}
