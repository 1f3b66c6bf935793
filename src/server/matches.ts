/**
 * The filtered timeline of a large recording without COUNT(*) or OFFSET on every request.
 *
 * Unfiltered, a recording's seqs are dense from 1 (the store numbers items 1, 2, 3 ...): the item at
 * list index k is seq k + 1, so a page is a range read on (recording_id, seq) and a position is
 * arithmetic. Filtered, the seqs that match are listed once per recording state (its item and
 * finding counts) by scanning the recording in seq order, chunk after chunk, and kept (the last few
 * filters): pages and positions are then a slice and a binary search. A free-text filter must read
 * every frame's text, which on a million frames takes longer than a user waits; a request scans
 * until its page is full or a time budget is spent and answers with what was found (`partial`),
 * and the scan goes on between requests until the list is complete (the page asks again).
 */
import type { Store } from '../store/store.js';
import { compileFilter } from './filter.js';

/** Time a request may spend scanning before it answers with what was found so far. */
export const SCAN_BUDGET_MS = 120;
/** Time spent scanning on after a page is found (a small recording is listed whole in it). */
const ENOUGH_MS = 25;
const FIRST_CHUNK = 8192;
const MAX_CHUNK = 65536;
/** How many filtered lists are kept (each about 8 bytes per match). */
const KEEP = 8;

/** The matching seqs of one filter over one recording, as far as scanned. */
export class MatchList {
  readonly seqs: number[] = [];
  /** Every seq ≤ scannedTo has been tested. */
  private scannedTo = 0;
  private chunk = FIRST_CHUNK;
  done = false;
  private readonly stmt: ReturnType<Store['db']['prepare']>;
  private readonly params: (string | number)[];

  /** Throws FilterError for a bad filter. */
  constructor(store: Store, readonly recordingId: number, q: string, private readonly maxSeq: number, readonly stamp: string) {
    const f = compileFilter(q);
    // `+(...)`: the filter's own terms must not pick the index (a method index would be read whole for
    // every chunk); the seq range on (recording_id, seq) drives the scan.
    this.stmt = store.db.prepare(`SELECT i.seq FROM items i WHERE i.recording_id = ? AND i.seq > ? AND i.seq <= ? AND +(${f.where}) ORDER BY i.seq`).pluck();
    this.params = f.params;
    if (maxSeq <= 0) this.done = true;
  }

  /** Tests the next chunk of seqs. */
  private step(): void {
    const to = Math.min(this.maxSeq, this.scannedTo + this.chunk);
    const found = this.stmt.all([this.recordingId, this.scannedTo, to, ...this.params]) as number[];
    for (let k = 0; k < found.length; k++) this.seqs.push(found[k]!);
    this.scannedTo = to;
    this.chunk = Math.min(MAX_CHUNK, this.chunk * 2);
    if (to >= this.maxSeq) this.done = true;
  }

  /**
   * Scans until the list is complete, `budgetMs` passed, or `enough()` holds and a little more time
   * passed (so a small recording is answered whole, and a large one as soon as a page is found).
   */
  scanUntil(enough: () => boolean, budgetMs = Number.POSITIVE_INFINITY): void {
    const t0 = performance.now();
    for (;;) {
      if (this.done) return;
      const spent = performance.now() - t0;
      if (spent >= budgetMs || (spent >= ENOUGH_MS && enough())) return;
      this.step();
    }
  }

  /** Scans until every seq up to `seq` is tested (no time limit: a position must be exact). */
  scanTo(seq: number): void {
    this.scanUntil(() => this.scannedTo >= seq);
  }

  /** One slice of background scanning; false when complete. */
  scanSlice(): boolean {
    if (!this.done) this.step();
    return !this.done;
  }

  /** Index of the first match with seq ≥ `seq` (among those found). */
  indexOf(seq: number): number {
    let lo = 0;
    let hi = this.seqs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.seqs[mid]! < seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

interface Extent {
  minSeq: number;
  maxSeq: number;
  count: number;
}

/** The filtered lists of the recordings a server shows, and what it knows of their seqs. */
export class MatchCache {
  private lists = new Map<string, MatchList>();
  private extents = new Map<number, Extent>();
  private background: MatchList | null = null;
  private timer: ReturnType<typeof setImmediate> | null = null;

  constructor(private readonly store: Store) {}

  /**
   * How many items a recording has and its highest seq, kept up to date by counting only the items
   * past the highest seq seen (items are appended in seq order).
   */
  extent(recordingId: number): Extent {
    const db = this.store.db;
    const maxSeq = (db.prepare(`SELECT MAX(seq) FROM items WHERE recording_id = ?`).pluck().get(recordingId) as number | null) ?? 0;
    const old = this.extents.get(recordingId);
    let e: Extent;
    if (old && old.maxSeq === maxSeq) return old;
    if (old && old.maxSeq < maxSeq) {
      const more = db.prepare(`SELECT COUNT(*) FROM items WHERE recording_id = ? AND seq > ?`).pluck().get(recordingId, old.maxSeq) as number;
      e = { minSeq: old.minSeq, maxSeq, count: old.count + more };
    } else {
      e = {
        minSeq: (db.prepare(`SELECT MIN(seq) FROM items WHERE recording_id = ?`).pluck().get(recordingId) as number | null) ?? 0,
        maxSeq,
        count: db.prepare(`SELECT COUNT(*) FROM items WHERE recording_id = ?`).pluck().get(recordingId) as number,
      };
    }
    this.extents.set(recordingId, e);
    return e;
  }

  /** True when the unfiltered list is seqs 1..n, so list index k is seq k + 1. */
  dense(recordingId: number): Extent | null {
    const e = this.extent(recordingId);
    return e.count === e.maxSeq && (e.count === 0 || e.minSeq === 1) ? e : null;
  }

  /** The list of `q` over the recording as it stands (a new one when it grew or its findings changed). */
  list(recordingId: number, q: string): MatchList {
    const rec = this.store.getRecording(recordingId);
    const e = this.extent(recordingId);
    const stamp = `${e.maxSeq}:${e.count}:${rec ? rec.errors + rec.warnings + rec.infos : 0}`;
    const key = `${recordingId}\u0000${q}`;
    let l = this.lists.get(key);
    if (l && l.stamp === stamp) {
      this.lists.delete(key); // most recently used last
      this.lists.set(key, l);
      return l;
    }
    l = new MatchList(this.store, recordingId, q, e.maxSeq, stamp);
    this.lists.delete(key);
    this.lists.set(key, l);
    while (this.lists.size > KEEP) this.lists.delete(this.lists.keys().next().value!);
    return l;
  }

  /** Goes on scanning `l` between requests until it is complete (only the list asked for last). */
  continueInBackground(l: MatchList): void {
    if (l.done) return;
    this.background = l;
    if (this.timer) return;
    const slice = () => {
      this.timer = null;
      const b = this.background;
      if (!b) return;
      let more = false;
      try { more = b.scanSlice(); } catch { more = false; }
      if (more && this.background === b) this.timer = setImmediate(slice);
      else if (this.background === b) this.background = null;
      else this.timer = setImmediate(slice);
    };
    this.timer = setImmediate(slice);
  }

  /** Forget a recording (deleted). */
  drop(recordingId: number): void {
    this.extents.delete(recordingId);
    for (const k of [...this.lists.keys()]) if (k.startsWith(`${recordingId}\u0000`)) this.lists.delete(k);
    if (this.background?.recordingId === recordingId) this.background = null;
  }

  stop(): void {
    if (this.timer) clearImmediate(this.timer);
    this.timer = null;
    this.background = null;
  }
}
