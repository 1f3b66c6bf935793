/**
 * The checker's model state along a recording, for sources that hold the whole recording in memory:
 * the one-line summary after every item (a table of distinct lines and an index per seq) and JSON
 * checkpoints of the full state, so the state after any item is a checkpoint plus a few steps.
 * Computed once (at export, or in the viewer's worker) and shipped as plain JSON. Pure.
 */
import type { Item } from '../wire/frame.js';
import { initialState, restoreState, stepModel, type ModelState } from '../check/model.js';

/** Plain-JSON form of the states of a recording. */
export interface StatesData {
  /** Distinct summary lines. */
  table: string[];
  /** idx[seq] = index into `table` of the summary after item seq (idx[0] unused). */
  idx: number[];
  /** [seq, JSON of the state after seq], ascending (left out of the report: made again on demand). */
  checkpoints?: [number, string][];
}

/** Items between checkpoints, at least. */
export const CHECKPOINT = 1000;
/**
 * Checkpoints are spaced so they hold about this many bytes per item folded: a state that grows
 * (a long session keeps every tool call) gets rarer checkpoints instead of memory growing with the
 * square of the recording.
 */
export const CHECKPOINT_BYTES_PER_ITEM = 64;

/**
 * Where the checkpoint after `seq` puts the next one: `held` is the bytes the checkpoint holds; with
 * `jsonBytesPerItem`, checkpoints are also spaced by the length of the state's JSON (`jsonLength`),
 * for a checkpoint held in another form (deflated) that costs its making more than its memory.
 */
export function nextCheckpoint(seq: number, held: number, jsonLength = 0, jsonBytesPerItem = Infinity): number {
  return seq + Math.max(CHECKPOINT, Math.ceil(held / CHECKPOINT_BYTES_PER_ITEM), Math.ceil(jsonLength / jsonBytesPerItem));
}

/**
 * The state after `seq` from the nearest checkpoint at or before it (or the initial state), and the
 * seq it is at. `json` reads a checkpoint's JSON (when it is kept in another form, e.g. deflated).
 */
export function stateFromCheckpoints<T = string>(cps: readonly [number, T][], seq: number, json: (cp: T) => string = (cp) => cp as string): { state: ModelState; from: number } {
  let lo = 0;
  let hi = cps.length - 1;
  let best = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cps[mid]![0] <= seq) { best = mid; lo = mid + 1; } else hi = mid - 1;
  }
  return best >= 0 ? { state: restoreState(json(cps[best]![1])), from: cps[best]![0] } : { state: initialState(), from: 0 };
}

/** Folds the model over `items`, recording summaries (via `summarize`) and checkpoints. */
export function foldStates(items: Iterable<Item>, summarize: (s: ModelState) => string): StatesData {
  const state = initialState();
  const table: string[] = [];
  const index = new Map<string, number>();
  const idx: number[] = [0];
  const checkpoints: [number, string][] = [];
  let next = CHECKPOINT;
  let last = -1;
  for (const item of items) {
    stepModel(state, item);
    let s: string;
    try { s = summarize(state); } catch { s = ''; }
    let k = index.get(s);
    if (k === undefined) { k = table.length; table.push(s); index.set(s, k); }
    for (let q = idx.length; q < item.seq; q++) idx[q] = last < 0 ? k : last;
    idx[item.seq] = k;
    last = k;
    if (item.seq >= next) {
      const json = JSON.stringify(state);
      checkpoints.push([item.seq, json]);
      next = nextCheckpoint(item.seq, json.length);
    }
  }
  return { table, idx, checkpoints };
}

/** Reads states back: the summary after an item, the full state after an item. */
export class StateIndex {
  /** Checkpoints given, and those made while folding forward for stateAt. */
  private readonly cps: [number, string][];
  private next: number;
  /** The furthest seq a fold has reached. */
  reached = 0;

  constructor(private readonly data: StatesData, private readonly itemsFrom: (afterSeq: number, toSeq: number) => Iterable<Item>) {
    this.cps = [...(data.checkpoints ?? [])];
    this.next = this.cps.length ? this.cps[this.cps.length - 1]![0] + CHECKPOINT : CHECKPOINT;
  }

  summaryAt(seq: number): string | undefined {
    const k = this.data.idx[seq];
    return k === undefined ? undefined : this.data.table[k];
  }

  /** A fresh copy of the state after item `seq`: the nearest checkpoint plus the steps after it. */
  stateAt(seq: number): ModelState {
    const cps = this.cps;
    const { state, from } = stateFromCheckpoints(cps, seq);
    const last = cps.length ? cps[cps.length - 1]![0] : 0;
    for (const item of this.itemsFrom(from, seq)) {
      stepModel(state, item);
      if (item.seq > this.reached) this.reached = item.seq;
      if (item.seq > last && item.seq >= this.next) {
        // Folding past the last checkpoint: leave one here for the next call.
        const json = JSON.stringify(state);
        cps.push([item.seq, json]);
        this.next = nextCheckpoint(item.seq, json.length);
      }
    }
    return state;
  }
}
