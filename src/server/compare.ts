/**
 * The Compare view's read model: two recordings aligned frame by frame by replay's ACP-aware matcher
 * (`diffRecordings`: volatile ids and paths normalised, reordering within a scope tolerated), laid out
 * as one list in the order of the first recording, with the second's extra frames placed after the
 * frame of the first that their predecessor matched. Divergent rows carry the path-level differences
 * and a unified diff. Pure: recordings in, a CompareResult out.
 */
import type { Recording } from '../transcript/format.js';
import { isFrame, type Frame } from '../wire/frame.js';
import { diffFrames } from '../replay/diff-recordings.js';
import { isTextChunk } from '../replay/merge-chunks.js';
import { describeFrame, type Divergence } from '../replay/aligner.js';
import { describeDiffs, IgnoreSet } from '../replay/json-diff.js';
import { framePatch, summarize } from '../replay/report.js';
import { previewOf } from '../view/preview.js';
import type { CompareFrame, CompareResult, CompareRow } from './types.js';

/** Unified diffs are included for at most this many rows (the rest say so). */
export const MAX_PATCHES = 2000;

function side(f: Frame): CompareFrame {
  return { seq: f.seq, t: f.t, dir: f.dir as 'c2a' | 'a2c', label: describeFrame(f), preview: previewOf(f.dir, f.kind, f.method ?? null, f.raw, f.parseError ?? null, f.json) };
}

export interface CompareOptions {
  /** Paths declared volatile (`--ignore` of `acp-inspect diff`). */
  ignore?: string[];
  /** Compare streamed message chunks as whole messages. */
  mergeChunks?: boolean;
}

export function compareRecordings(a: Recording, b: Recording, opts: CompareOptions = {}): Omit<CompareResult, 'a' | 'b'> {
  return compareFrames(a.items.filter(isFrame), b.items.filter(isFrame), opts);
}

/**
 * `compareRecordings` on frames; `framesB` is read once, in order, so it may come from a cursor: of
 * the second recording only the position of each frame is kept, and the frames its rows show whole.
 */
export function compareFrames(framesA: readonly Frame[], framesB: Iterable<Frame>, opts: CompareOptions = {}): Omit<CompareResult, 'a' | 'b'> {
  const ignore = new IgnoreSet(opts.ignore ?? []);
  // Of b: every frame's seq, t and dir, in order; whole only the frames unmatched or matched with
  // differences, and with mergeChunks the text chunks (a merged message may differ where its chunks did not).
  const seqB: number[] = [];
  const tB: number[] = [];
  const dirB: Array<'c2a' | 'a2c'> = [];
  const keptB = new Map<number, Frame>();
  const d = diffFrames(framesA, framesB, {
    ignore,
    mergeChunks: opts.mergeChunks,
    onLive: (f, obs) => {
      seqB.push(f.seq);
      tB.push(f.t);
      dirB.push(f.dir as 'c2a' | 'a2c');
      if (!obs.matched || obs.diffs.length > 0 || (opts.mergeChunks && isTextChunk(f))) keptB.set(f.seq, f);
    },
  });
  const bByA = new Map<number, number>();
  const aByB = new Map<number, number>();
  for (const [sa, sb] of d.pairs) { bByA.set(sa, sb); aByB.set(sb, sa); }
  const indexB = new Map<number, number>();
  for (let i = 0; i < seqB.length; i++) indexB.set(seqB[i]!, i);

  const changedByA = new Map<number, Divergence & { kind: 'changed' }>();
  const missingByA = new Map<number, Divergence & { kind: 'missing' }>();
  const extraByB = new Map<number, Divergence & { kind: 'extra' }>();
  for (const x of d.divergences) {
    if (x.kind === 'changed') changedByA.set(x.recorded.seq, x);
    else if (x.kind === 'missing') missingByA.set(x.recorded.seq, x);
    else extraByB.set(x.live.seq, x);
  }

  let patches = 0;
  const patchOf = (rec: Frame | undefined, live: Frame | undefined): string | undefined => {
    if (patches >= MAX_PATCHES) return undefined;
    patches++;
    return framePatch(rec, live, { map: d.map, ignore, recordedLabel: 'a', liveLabel: 'b' });
  };

  // Extra frames of b, grouped by the a-frame after which they go (0: before everything).
  const extrasAfter = new Map<number, Frame[]>();
  let lastA = 0;
  for (const seq of seqB) {
    const sa = aByB.get(seq);
    if (sa !== undefined) { lastA = Math.max(lastA, sa); continue; }
    const f = keptB.get(seq)!;
    const list = extrasAfter.get(lastA);
    if (list) list.push(f); else extrasAfter.set(lastA, [f]);
  }

  const rows: CompareRow[] = [];
  const pushExtras = (after: number) => {
    for (const f of extrasAfter.get(after) ?? []) {
      const x = extraByB.get(f.seq);
      if (!x) { rows.push({ status: 'merged', b: side(f) }); continue; }
      const row: CompareRow = { status: 'extra', b: side(f), reason: x.reason };
      if (x.nearest) {
        row.nearest = x.nearest.seq;
        row.diffs = describeDiffs(x.diffs, { recorded: 'a', live: 'b' });
      }
      const p = patchOf(x.nearest, x.live);
      if (p !== undefined) row.patch = p;
      rows.push(row);
    }
  };
  pushExtras(0);
  for (const f of framesA) {
    const sb = bByA.get(f.seq);
    const changed = changedByA.get(f.seq);
    if (sb !== undefined) {
      if (changed) {
        const row: CompareRow = { status: 'changed', a: side(f), b: side(keptB.get(sb)!), diffs: describeDiffs(changed.diffs, { recorded: 'a', live: 'b' }) };
        const p = patchOf(changed.recorded, changed.live);
        if (p !== undefined) row.patch = p;
        rows.push(row);
      } else {
        // Equal once normalised: the b side needs only its position (keeps big comparisons small).
        const i = indexB.get(sb)!;
        rows.push({ status: 'same', a: side(f), b: { seq: sb, t: tB[i]!, dir: dirB[i]! } });
      }
    } else if (missingByA.has(f.seq)) {
      const m = missingByA.get(f.seq)!;
      const row: CompareRow = { status: 'missing', a: side(f), ...(m.reason ? { reason: m.reason } : {}) };
      const p = patchOf(m.recorded, undefined);
      if (p !== undefined) row.patch = p;
      rows.push(row);
    } else if (changed) {
      // Merged chunks that differ: the change is reported on the first chunk of the message.
      const row: CompareRow = { status: 'changed', a: side(f), diffs: describeDiffs(changed.diffs, { recorded: 'a', live: 'b' }), reason: 'streamed chunks merged into one message' };
      const p = patchOf(changed.recorded, changed.live);
      if (p !== undefined) row.patch = p;
      rows.push(row);
    } else {
      rows.push({ status: 'merged', a: side(f) });
    }
    pushExtras(f.seq);
  }
  const s = summarize(d.divergences);
  return {
    same: d.same, matched: d.matched, framesA: d.framesA, framesB: d.framesB,
    changed: s.changed, missing: s.missing, extra: s.extra, rows,
    patchesCut: patches >= MAX_PATCHES && rows.filter((r) => r.status !== 'same' && r.status !== 'merged').length > MAX_PATCHES,
    ignore: opts.ignore ?? [], mergeChunks: opts.mergeChunks === true,
  };
}
