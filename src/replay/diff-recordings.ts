/**
 * `acp-inspect diff`: aligns two recordings frame by frame with the same ACP-aware matcher the
 * replays use (methods, session scope, reordering tolerated, volatile ids and paths mapped), and
 * lists what changed, what is missing from the second and what it has extra. Pure.
 */
import { isFrame } from '../wire/frame.js';
import type { Recording } from '../transcript/format.js';
import { Aligner, type Divergence } from './aligner.js';
import type { IgnoreSet } from './json-diff.js';
import { VolatileMap } from './volatile.js';
import { mergeChunkDivergences } from './merge-chunks.js';

export interface RecordingDiff {
  divergences: Divergence[];
  /** Frames of the second recording matched to the first. */
  matched: number;
  /** [seq in a, seq in b] of every matched frame, in the order of b. */
  pairs: [number, number][];
  framesA: number;
  framesB: number;
  same: boolean;
  map: VolatileMap;
}

export function diffRecordings(a: Recording, b: Recording, opts: { ignore?: IgnoreSet; mergeChunks?: boolean } = {}): RecordingDiff {
  const framesA = a.items.filter(isFrame);
  const framesB = b.items.filter(isFrame);
  const aligner = new Aligner(framesA, { map: new VolatileMap(), ignore: opts.ignore });
  let matched = 0;
  const pairs: [number, number][] = [];
  for (const f of framesB) {
    // Copy: observing correlates in place, and the caller's recording must stay as loaded.
    const obs = aligner.observe({ ...f, replyTo: undefined, latency: undefined });
    if (obs.matched) { matched++; pairs.push([obs.recorded.seq, f.seq]); }
  }
  let divergences = aligner.finish(['c2a', 'a2c'], 'only in the first recording');
  if (opts.mergeChunks) divergences = mergeChunkDivergences(divergences, framesA, framesB, { map: aligner.map, ignore: opts.ignore });
  return { divergences, matched, pairs, framesA: framesA.length, framesB: framesB.length, same: divergences.length === 0, map: aligner.map };
}
