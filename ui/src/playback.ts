/**
 * Playback: a playhead over the recording's clock that plays at 1×, 2×, 10×, 100× or as fast as the
 * page draws (one item per animation frame), steps item by item and follows scrubbing on the
 * waterfall. The selection follows the playhead, so the timeline, the detail pane with its state
 * tab and the turn card show the recording as the editor saw it at that moment; selecting an item
 * moves the playhead there. The playhead's item is in the URL (`at=SEQ`). Idle gaps the waterfall
 * collapses are skipped while playing.
 */
import { signal, effect, batch } from '@preact/signals';
import { source, type Waterfall } from './api.js';
import { recId, selSeq, atSeq, jumpTo, writeUrl, current } from './model.js';
import { frameAt } from '../../src/view/waterfall.js';

export type Speed = 1 | 2 | 10 | 100 | 'max';
export const SPEEDS: Speed[] = [1, 2, 10, 100, 'max'];

/** The open recording's waterfall (spans, gaps, every item's time). */
export const wf = signal<{ recordingId: number; items: number; data: Waterfall } | null>(null);
export const wfError = signal<string | null>(null);
export const playing = signal(false);
export const speed = signal<Speed>(1);
/** The playhead on the recording's clock (ms); may lie between two items after scrubbing. */
export const playT = signal<number | null>(null);

let loading: Promise<Waterfall | null> | null = null;
let loadingFor = -1;
let loadedAt = 0;
let refreshTimer: ReturnType<typeof setTimeout> | null = null;
/** A growing (live) recording's waterfall is fetched again at most this often. */
const LIVE_REFRESH_MS = 2000;

/** Loads the waterfall of the open recording (again when it grew). */
export function loadWaterfall(): Promise<Waterfall | null> {
  const id = recId.value;
  if (id === null) return Promise.resolve(null);
  const items = current.value?.items ?? 0;
  const have = wf.value;
  if (have && have.recordingId === id && have.items === items) return Promise.resolve(have.data);
  if (have && have.recordingId === id && performance.now() - loadedAt < LIVE_REFRESH_MS) {
    // Grown since: fetched again once the interval is over.
    refreshTimer ??= setTimeout(() => { refreshTimer = null; void loadWaterfall(); }, LIVE_REFRESH_MS - (performance.now() - loadedAt));
    return Promise.resolve(have.data);
  }
  if (loading && loadingFor === id) return loading;
  loadingFor = id;
  loading = source.waterfall(id).then((data) => {
    if (recId.value !== id) return null;
    loadedAt = performance.now();
    batch(() => {
      wf.value = { recordingId: id, items, data };
      wfError.value = null;
      if (atSeq.value !== null && playT.value === null) {
        const i = indexOfSeq(data, atSeq.value);
        if (i >= 0) playT.value = data.frames.t[i]!;
      }
    });
    return data;
  }).catch((e: Error) => { wfError.value = e.message; return null; }).finally(() => { loading = null; });
  return loading;
}

function indexOfSeq(data: Waterfall, seq: number): number {
  const s = data.frames.seq;
  let lo = 0;
  let hi = s.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (s[mid]! < seq) lo = mid + 1; else hi = mid;
  }
  return lo < s.length ? lo : s.length - 1;
}

/** The item the playhead stands on (index into the frames), -1 before the first. */
export function playIndex(): number {
  const d = wf.value?.data;
  const t = playT.value;
  if (!d || t === null) return -1;
  return frameAt(d.frames, t);
}

// The selection follows the playhead: at most one selection in flight, the latest wins.
let selecting = false;
let pendingSeq: number | null = null;
let movedBy: 'playhead' | null = null;

function selectFollow(seq: number): void {
  if (selSeq.value === seq) return;
  if (selecting) { pendingSeq = seq; return; }
  selecting = true;
  movedBy = 'playhead';
  void jumpTo(seq, true).finally(() => {
    selecting = false;
    const next = pendingSeq;
    pendingSeq = null;
    if (next !== null && next !== selSeq.value) selectFollow(next);
    else movedBy = null;
  });
}

let urlTimer: ReturnType<typeof setTimeout> | null = null;
function writeAt(seq: number, now = false): void {
  atSeq.value = seq;
  if (now) { writeUrl(); return; }
  urlTimer ??= setTimeout(() => { urlTimer = null; writeUrl(); }, 400);
}

/** Moves the playhead to time t (scrubbing); the selection follows. */
export function setPlayhead(t: number, settle = true): void {
  const d = wf.value?.data;
  if (!d) return;
  const clamped = Math.max(d.start, Math.min(d.end, t));
  playT.value = clamped;
  const i = frameAt(d.frames, clamped);
  const seq = d.frames.seq[Math.max(0, i)]!;
  writeAt(seq, settle && !playing.value);
  selectFollow(seq);
}

/** One item forward or back. */
export function step(dir: 1 | -1): void {
  const d = wf.value?.data;
  if (!d || wf.value?.recordingId !== recId.value) { void loadWaterfall().then((x) => { if (x) step(dir); }); return; }
  if (d.frames.t.length === 0) return;
  pause();
  const cur = playT.value === null ? (selSeq.value !== null ? indexOfSeq(d, selSeq.value) : -1) : playIndex();
  const i = Math.max(0, Math.min(d.frames.t.length - 1, cur + dir));
  setPlayhead(d.frames.t[i]!);
}

let raf = 0;
let last = 0;

function tick(now: number): void {
  const d = wf.value?.data;
  if (!playing.value || !d) return;
  const dt = Math.min(250, now - last);
  last = now;
  let t = playT.value ?? d.start;
  if (speed.value === 'max') {
    const i = Math.min(d.frames.t.length - 1, frameAt(d.frames, t) + 1);
    t = d.frames.t[i]!;
  } else {
    t += dt * speed.value;
    // An idle gap the waterfall collapses is skipped.
    for (const g of d.gaps) if (t > g.from && t < g.to) t = g.to;
  }
  setPlayhead(t, false);
  if (t >= d.end) { pause(); return; }
  raf = requestAnimationFrame(tick);
}

export function play(): void {
  const d = wf.value?.data;
  if (!d || playing.value) return;
  if (playT.value === null || playT.value >= d.end) {
    const from = selSeq.value !== null && playT.value === null ? d.frames.t[indexOfSeq(d, selSeq.value)]! : d.start;
    playT.value = from;
  }
  playing.value = true;
  last = performance.now();
  raf = requestAnimationFrame(tick);
}

export function pause(): void {
  if (!playing.value) return;
  playing.value = false;
  cancelAnimationFrame(raf);
  const i = playIndex();
  const d = wf.value?.data;
  if (d && i >= 0) writeAt(d.frames.seq[i]!, true);
}

export function togglePlay(): void {
  if (playing.value) pause(); else void loadWaterfall().then(() => play());
}

/** A selection made by the user (a click, j/k) moves a playhead in use to that item. */
effect(() => {
  const seq = selSeq.value;
  if (seq === null || movedBy === 'playhead' || playing.peek()) return;
  const d = wf.peek()?.data;
  const t = playT.peek();
  if (!d || t === null) return;
  const i = frameAt(d.frames, t);
  if (i >= 0 && d.frames.seq[i] === seq) return;
  const k = indexOfSeq(d, seq);
  if (d.frames.seq[k] !== seq) return;
  playT.value = d.frames.t[k]!;
  writeAt(seq, true);
});

/** Another recording: the playhead starts over. */
effect(() => {
  const id = recId.value;
  const have = wf.peek();
  if (have && have.recordingId !== id) {
    pause();
    batch(() => { wf.value = null; playT.value = null; });
  }
});
