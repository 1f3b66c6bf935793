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

  private background = new Map<number, number>();

  /**
   * @param onReady called when a background fold reached the seq that was asked for, so the pages
   *   showing placeholders can be reloaded.
   */
  constructor(private readonly store: Store, private readonly onReady: (recordingId: number) => void = () => {}) {}

  /**
   * Summaries for items up to `seq` when they are at most `budget` items of folding away; otherwise
   * starts folding in the background (in slices, so requests keep being answered) and returns false.
   */
  ensureSummaries(recordingId: number, seq: number, budget = 5000): boolean {
    const c = this.summaries.get(recordingId);
    const done = c?.seq ?? 0;
    if (seq <= done) return true;
    if (seq - done <= budget) {
      this.summaryAt(recordingId, seq);
      return true;
    }
    const target = Math.max(seq, this.background.get(recordingId) ?? 0);
    const running = this.background.has(recordingId);
    this.background.set(recordingId, target);
    if (!running) {
      const step = () => {
        const want = this.background.get(recordingId);
        if (want === undefined) return;
        const before = this.summaries.get(recordingId)?.seq ?? 0;
        try {
          this.summaryAt(recordingId, Math.min(want, before + budget));
        } catch {
          this.background.delete(recordingId);
          return;
        }
        const now = this.summaries.get(recordingId)?.seq ?? 0;
        if (now >= want || now === before) {
          this.background.delete(recordingId);
          this.onReady(recordingId);
        } else {
          setImmediate(step);
        }
      };
      setImmediate(step);
    }
    return false;
  }

  /** Forget a recording (deleted, or its findings were rebuilt). */
  drop(recordingId: number): void {
    this.background.delete(recordingId);
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
