/**
 * The checker's model state for the timeline: one-line state summaries per item (folded forward once
 * per recording, extended as rows are asked for or arrive live) and the full state at one item (a
 * cursor that steps forward cheaply and refolds from the start only when asked for an earlier item).
 */
import { createChecker, summarizeState, type Checker, type ModelState } from '../check/index.js';
import type { Store } from '../store/store.js';

interface SummaryCursor {
  checker: Checker;
  seq: number;
  /** summaries[seq] = summary after item seq. Runs of equal strings share one string. */
  summaries: string[];
}

interface StateCursor {
  checker: Checker;
  seq: number;
}

export class ModelCache {
  private summaries = new Map<number, SummaryCursor>();
  private states = new Map<number, StateCursor>();

  constructor(private readonly store: Store) {}

  /** Forget a recording (deleted, or its findings were rebuilt). */
  drop(recordingId: number): void {
    this.summaries.delete(recordingId);
    this.states.delete(recordingId);
  }

  /** Summary after item `seq`, folding forward as needed. */
  summaryAt(recordingId: number, seq: number): string | undefined {
    let c = this.summaries.get(recordingId);
    if (!c) {
      c = { checker: createChecker(), seq: 0, summaries: [] };
      this.summaries.set(recordingId, c);
    }
    if (seq > c.seq) {
      let last = c.summaries[c.seq] ?? '';
      for (const item of this.store.iterateItems(recordingId, c.seq)) {
        c.checker.step(item);
        let s: string;
        try { s = summarizeState(c.checker.state); } catch { s = ''; }
        if (s === last) s = last;
        last = s;
        // Items are dense 1..N in practice; fill any hole so lookups stay O(1).
        for (let k = c.seq + 1; k < item.seq; k++) c.summaries[k] = c.summaries[c.seq] ?? '';
        c.summaries[item.seq] = s;
        c.seq = item.seq;
        if (item.seq >= seq) break;
      }
    }
    return c.summaries[seq];
  }

  /** A JSON copy of the full model state after item `seq`. */
  stateAt(recordingId: number, seq: number): ModelState {
    let c = this.states.get(recordingId);
    if (!c || c.seq > seq) {
      c = { checker: createChecker(), seq: 0 };
      this.states.set(recordingId, c);
    }
    if (c.seq < seq) {
      for (const item of this.store.iterateItems(recordingId, c.seq)) {
        if (item.seq > seq) break;
        c.checker.step(item);
        c.seq = item.seq;
      }
    }
    return JSON.parse(JSON.stringify(c.checker.state)) as ModelState;
  }
}
