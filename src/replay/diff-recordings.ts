/**
 * `acp-inspect diff`: aligns two recordings frame by frame with the same ACP-aware matcher the
 * replays use (methods, session scope, reordering tolerated, volatile ids and paths mapped), and
 * lists what changed, what is missing from the second and what it has extra. Pure.
 */
import { isFrame, type Frame } from '../wire/frame.js';
import type { Recording } from '../transcript/format.js';
import { Aligner, type Divergence, type Observation } from './aligner.js';
import type { IgnoreSet } from './json-diff.js';
import { VolatileMap } from './volatile.js';
import { isTextChunk, mergeChunkDivergences } from './merge-chunks.js';
import { LazyJsonFrame } from './lazy-frame.js';

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

export interface DiffOptions {
  ignore?: IgnoreSet;
  mergeChunks?: boolean;
  /**
   * Called with every frame of the second recording, in order, and what matching it found (while a
   * matched recorded frame's JSON is still parsed).
   */
  onLive?: (f: Frame, obs: Observation) => void;
}

/**
 * The copy of a frame of b that the aligner observes: observing correlates in place, and the
 * caller's recording must stay as loaded. Every field of a frame, named (a spread of frames of
 * varying shapes is several times slower), the JSON read through a lazy frame's getter.
 */
function observedCopy(f: Frame): Frame {
  return {
    seq: f.seq, t: f.t, dir: f.dir, raw: f.raw, size: f.size, kind: f.kind, method: f.method, id: f.id, json: f.json,
    parseError: f.parseError, replyTo: undefined, responseSeq: f.responseSeq, latency: undefined, sessionId: f.sessionId,
    truncated: f.truncated, rawBase64: f.rawBase64,
  };
}

export function diffRecordings(a: Recording, b: Recording, opts: DiffOptions = {}): RecordingDiff {
  return diffFrames(a.items.filter(isFrame), b.items.filter(isFrame), opts);
}

/**
 * `diffRecordings` on frames. The second recording's frames are read once, in order, and not kept
 * (but for the text chunks `mergeChunks` compares), so they may come from a cursor.
 */
export function diffFrames(framesA: readonly Frame[], framesB: Iterable<Frame>, opts: DiffOptions = {}): RecordingDiff {
  const aligner = new Aligner(framesA, { map: new VolatileMap(), ignore: opts.ignore });
  let matched = 0;
  let countB = 0;
  const pairs: [number, number][] = [];
  const chunksB: Frame[] = [];
  for (const f of framesB) {
    countB++;
    const obs = aligner.observe(observedCopy(f));
    if (opts.mergeChunks && isTextChunk(f)) chunksB.push(f);
    opts.onLive?.(f, obs);
    if (obs.matched) {
      matched++;
      pairs.push([obs.recorded.seq, f.seq]);
      // A recorded frame is compared once: its parsed JSON need not be held (it is parsed again if shown).
      if (obs.recorded instanceof LazyJsonFrame) obs.recorded.release();
    }
  }
  let divergences = aligner.finish(['c2a', 'a2c'], 'only in the first recording');
  if (opts.mergeChunks) divergences = mergeChunkDivergences(divergences, framesA, chunksB, { map: aligner.map, ignore: opts.ignore });
  return { divergences, matched, pairs, framesA: framesA.length, framesB: countB, same: divergences.length === 0, map: aligner.map };
}
