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

export class Correlator {
  private pending = new Map<string, PendingRequest>();

  /** Annotates `frame` in place: responses get `method`, `replyTo` and `latency`. Returns the request answered, if any. */
  observe(frame: Frame): PendingRequest | undefined {
    if (frame.kind === 'request' && frame.method !== undefined) {
      this.pending.set(frame.dir + idKey(frame.id), { seq: frame.seq, t: frame.t, method: frame.method, dir: frame.dir });
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

  /** Requests not answered yet. */
  unanswered(): PendingRequest[] {
    return [...this.pending.values()];
  }
}
