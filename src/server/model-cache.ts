/**
 * The checker's protocol model for the timeline, per recording: one cursor folds the model forward
 * once (in slices, so requests keep being served), records the one-line summary after every item,
 * and keeps a JSON checkpoint of the full state every CHECKPOINT items (rarer as the state grows:
 * CHECKPOINT_BYTES_PER_ITEM). The full state at any item is then a checkpoint plus the steps after it.
 * The model state is plain JSON data, which is what makes checkpoints cheap (the checker's restoreState rebuilds one safely).
 */
import { initialState, stepModel, summarizeState, type ModelState } from '../check/index.js';
import { CHECKPOINT, nextCheckpoint, stateFromCheckpoints } from '../view/states.js';
import type { Store } from '../store/store.js';

/** Items folded per slice of a background fold: small, so that a request waits at most a few ms (about 20 µs an item). */
const SLICE = 250;
/** Distance up to which a page's states are folded while it waits. */
const SYNC_FOLD = 1000;

interface Cursor {
  state: ModelState;
  seq: number;
  /** summaries[seq] = summary after item seq (equal neighbours share one string). */
  summaries: string[];
  /** [seq, JSON of the state after seq], ascending. */
  checkpoints: [number, string][];
  /** seq from which the next checkpoint is taken. */
  nextCheckpoint: number;
  /** Highest seq a background fold was asked to reach. */
  want: number;
  running: boolean;
  waiters: { seq: number; resolve: () => void }[];
}

export class ModelCache {
  private cursors = new Map<number, Cursor>();

  /**
   * @param onReady called when a background fold reached the seq asked for, so pages showing rows
   *   without states can reload them.
   */
  constructor(private readonly store: Store, private readonly onReady: (recordingId: number) => void = () => {}) {}

  /** Forget a recording (deleted). */
  drop(recordingId: number): void {
    const c = this.cursors.get(recordingId);
    if (c) for (const w of c.waiters) w.resolve();
    this.cursors.delete(recordingId);
  }

  private cursor(recordingId: number): Cursor {
    let c = this.cursors.get(recordingId);
    if (!c) {
      c = { state: initialState(), seq: 0, summaries: [], checkpoints: [], nextCheckpoint: CHECKPOINT, want: 0, running: false, waiters: [] };
      this.cursors.set(recordingId, c);
    }
    return c;
  }

  /** Folds up to `limit` items past the cursor, not beyond `upTo`. Returns how many were folded. */
  private advance(c: Cursor, recordingId: number, upTo: number, limit: number): number {
    let n = 0;
    let last = c.summaries[c.seq] ?? '';
    for (const item of this.store.iterateItems(recordingId, c.seq)) {
      if (item.seq > upTo) break;
      stepModel(c.state, item);
      let s: string;
      try { s = summarizeState(c.state); } catch { s = ''; }
      if (s === last) s = last;
      last = s;
      for (let k = c.seq + 1; k < item.seq; k++) c.summaries[k] = c.summaries[c.seq] ?? '';
      c.summaries[item.seq] = s;
      c.seq = item.seq;
      if (item.seq >= c.nextCheckpoint) {
        const json = JSON.stringify(c.state);
        c.checkpoints.push([item.seq, json]);
        // Spaced by the state's size (1M items of tool-calling turns took 3.4 GB and 40 s with one every 1000).
        c.nextCheckpoint = nextCheckpoint(item.seq, json);
      }
      if (++n >= limit) break;
    }
    return n;
  }

  /** Summary after item `seq`, folding forward synchronously as needed (use for small distances). */
  summaryAt(recordingId: number, seq: number): string | undefined {
    const c = this.cursor(recordingId);
    if (seq > c.seq) this.advance(c, recordingId, seq, Number.MAX_SAFE_INTEGER);
    return c.summaries[seq];
  }

  /**
   * True when summaries up to `seq` are available now (folding synchronously when at most `budget`
   * items away); otherwise starts a background fold and returns false.
   */
  ensureSummaries(recordingId: number, seq: number, budget = SYNC_FOLD): boolean {
    const c = this.cursor(recordingId);
    if (seq <= c.seq) return true;
    if (seq - c.seq <= budget && !c.running) {
      this.advance(c, recordingId, seq, Number.MAX_SAFE_INTEGER);
      return true;
    }
    void this.foldTo(recordingId, seq).then(() => this.onReady(recordingId));
    return false;
  }

  /** Folds in the background (slices between which other requests run) until the cursor reaches `seq` or the end. */
  private foldTo(recordingId: number, seq: number): Promise<void> {
    const c = this.cursor(recordingId);
    if (c.seq >= seq) return Promise.resolve();
    c.want = Math.max(c.want, seq);
    const p = new Promise<void>((resolve) => c.waiters.push({ seq, resolve }));
    if (!c.running) {
      c.running = true;
      const step = () => {
        if (this.cursors.get(recordingId) !== c) return;
        let n = 0;
        try { n = this.advance(c, recordingId, c.want, SLICE); } catch { n = 0; }
        const done = n === 0 || c.seq >= c.want;
        c.waiters = c.waiters.filter((w) => {
          if (done || c.seq >= w.seq) { w.resolve(); return false; }
          return true;
        });
        if (done) c.running = false;
        else setImmediate(step);
      };
      setImmediate(step);
    }
    return p;
  }

  /** The highest seq the model is folded to for a recording (0 before the first fold). */
  foldedTo(recordingId: number): number {
    return this.cursors.get(recordingId)?.seq ?? 0;
  }

  /** Starts folding in the background up to `seq` (a no-op when it is folded already), so a later stateAt is quick. */
  warm(recordingId: number, seq: number): void {
    void this.foldTo(recordingId, seq);
  }

  /** A copy of the full model state after item `seq`: the nearest checkpoint plus a few steps. */
  async stateAt(recordingId: number, seq: number): Promise<ModelState> {
    await this.foldTo(recordingId, seq);
    const c = this.cursor(recordingId);
    const { state, from } = stateFromCheckpoints(c.checkpoints, seq);
    for (const item of this.store.iterateItems(recordingId, from)) {
      if (item.seq > seq) break;
      stepModel(state, item);
    }
    return state;
  }
}
