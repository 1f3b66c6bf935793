/**
 * The checker's protocol model for the timeline, per recording: one cursor folds the model forward
 * once (in slices, so requests keep being served), records the one-line summary after every item,
 * and keeps a checkpoint of the full state (its JSON, deflated) every CHECKPOINT items, rarer as the
 * state grows (JSON_BYTES_PER_ITEM, CHECKPOINT_BYTES_PER_ITEM). The full state at any item is then a
 * checkpoint plus the steps after it. The model state is plain JSON data, which is what makes
 * checkpoints cheap (the checker's restoreState rebuilds one safely). Deflated (about 8x smaller on
 * long sessions) they can be three times closer than undeflated ones were for a third of the memory.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { initialState, stepModel, summarizeState, type ModelState } from '../check/index.js';
import { CHECKPOINT, nextCheckpoint, stateFromCheckpoints } from '../view/states.js';
import type { Store } from '../store/store.js';

/** Items folded per slice of a background fold: small, so that a request waits at most a few ms (about 20 µs an item). */
const SLICE = 250;
/**
 * Checkpoints are also spaced so they cost about this many bytes of the state's JSON per item folded.
 * On long sessions this is the closer bound: a state far down a million-item recording is then within
 * about 17,000 steps of a checkpoint (0.2–0.3 s to answer), and the fold costs what it did with
 * undeflated, sparser checkpoints (384 bytes halved that distance for a tenth more CPU in the fold).
 */
const JSON_BYTES_PER_ITEM = 192;
/** Distance up to which a page's states are folded while it waits. */
const SYNC_FOLD = 1000;

interface Cursor {
  state: ModelState;
  seq: number;
  /** summaries[seq] = summary after item seq (equal neighbours share one string). */
  summaries: string[];
  /** [seq, deflated JSON of the state after seq], ascending. */
  checkpoints: [number, Buffer][];
  /** seq from which the next checkpoint is taken. */
  nextCheckpoint: number;
  running: boolean;
  /** Who the background fold runs for; it goes as far as the furthest of them and stops when none is left. */
  waiters: Waiter[];
}

interface Waiter {
  seq: number;
  /** False once no one waits for this any more (the request was aborted, the page left): the fold may stop. */
  keep: () => boolean;
  /** `reached`: false when given up (keep() turned false). */
  resolve: (reached: boolean) => void;
}

const always = (): boolean => true;
/** How long a background fold for the state column keeps going with no page watching the recording. */
const WATCH_GRACE_MS = 2000;

export class ModelCache {
  private cursors = new Map<number, Cursor>();

  /**
   * @param onReady called when a background fold reached the seq asked for, so pages showing rows
   *   without states can reload them.
   * @param watched whether a page still shows the recording (and would hear onReady): a background
   *   fold for the state column stops when none does.
   */
  constructor(private readonly store: Store, private readonly onReady: (recordingId: number) => void = () => {},
    private readonly watched: (recordingId: number) => boolean = always, private readonly graceMs = WATCH_GRACE_MS) {}

  /** Forget a recording (deleted). */
  drop(recordingId: number): void {
    const c = this.cursors.get(recordingId);
    if (c) for (const w of c.waiters) w.resolve(true);
    this.cursors.delete(recordingId);
  }

  private cursor(recordingId: number): Cursor {
    let c = this.cursors.get(recordingId);
    if (!c) {
      c = { state: initialState(), seq: 0, summaries: [], checkpoints: [], nextCheckpoint: CHECKPOINT, running: false, waiters: [] };
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
        // Level 1: the state's JSON is repetitive (ids, statuses, titles), and faster levels gain little.
        const json = JSON.stringify(c.state);
        const z = deflateRawSync(json, { level: 1 });
        c.checkpoints.push([item.seq, z]);
        // Spaced by the state's size (1M items of tool-calling turns took 3.4 GB and 40 s with one every 1000):
        // the memory they hold, and the time making them takes from the fold.
        c.nextCheckpoint = nextCheckpoint(item.seq, z.length, json.length, JSON_BYTES_PER_ITEM);
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
    const t0 = Date.now();
    // Kept while a page shows the recording (a page may ask for rows just before its event stream connects: WATCH_GRACE_MS).
    void this.foldTo(recordingId, seq, () => this.watched(recordingId) || Date.now() - t0 < this.graceMs).then((reached) => { if (reached) this.onReady(recordingId); });
    return false;
  }

  /**
   * Folds in the background (slices between which other requests run) until the cursor reaches `seq`
   * or the end: true then. One fold per recording serves every waiter; it goes as far as the furthest
   * waiter still kept, and stops when none is (false for those given up).
   */
  private foldTo(recordingId: number, seq: number, keep: () => boolean = always): Promise<boolean> {
    const c = this.cursor(recordingId);
    if (c.seq >= seq) return Promise.resolve(true);
    const p = new Promise<boolean>((resolve) => c.waiters.push({ seq, keep, resolve }));
    if (!c.running) {
      c.running = true;
      const step = () => {
        if (this.cursors.get(recordingId) !== c) return;
        let want = 0;
        c.waiters = c.waiters.filter((w) => {
          if (!w.keep()) { w.resolve(false); return false; }
          want = Math.max(want, w.seq);
          return true;
        });
        let n = 0;
        if (want > c.seq) try { n = this.advance(c, recordingId, want, SLICE); } catch { n = 0; }
        const done = n === 0 || c.seq >= want;
        c.waiters = c.waiters.filter((w) => {
          if (done || c.seq >= w.seq) { w.resolve(true); return false; }
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

  /**
   * A copy of the full model state after item `seq`: the nearest checkpoint plus a few steps.
   * With `signal` (the request's), stops waiting for the fold when it aborts, and throws.
   */
  async stateAt(recordingId: number, seq: number, signal?: AbortSignal): Promise<ModelState> {
    if (!(await this.foldTo(recordingId, seq, signal ? () => !signal.aborted : always))) throw new Error('the request was cancelled');
    const c = this.cursor(recordingId);
    const { state, from } = stateFromCheckpoints(c.checkpoints, seq, (z) => inflateRawSync(z).toString());
    for (const item of this.store.iterateItems(recordingId, from)) {
      if (item.seq > seq) break;
      stepModel(state, item);
    }
    return state;
  }
}

