/**
 * Two recordings aligned and reported: the summary line, the JSON of one difference and its text, as
 * `acp-inspect diff` prints them and the MCP server's diff_recordings answers.
 */
import { isFrame, type Frame } from '../wire/frame.js';
import type { Recording } from '../transcript/format.js';
import { describeFrame, type Divergence } from './aligner.js';
import { diffFrames, type RecordingDiff } from './diff-recordings.js';
import { IgnoreSet } from './json-diff.js';
import { renderDivergence, summarize } from './report.js';
import { plural } from '../text/format.js';

export interface DiffOptions { ignore?: string[]; mergeChunks?: boolean }

/** One difference as `acp-inspect diff --json` prints it. */
export function differenceJson(x: Divergence) {
  return {
    kind: x.kind,
    a: x.kind === 'extra' ? x.nearest?.seq ?? null : x.recorded.seq,
    b: x.kind === 'missing' ? null : x.live.seq,
    frame: describeFrame(x.kind === 'extra' ? x.live : x.recorded),
    reason: x.kind === 'changed' ? undefined : x.reason,
    paths: x.kind === 'missing' ? [] : x.diffs,
  };
}

/** Two recordings aligned, with the summary line `diff` ends with. */
export function diffReport(a: Recording, b: Recording, opts: DiffOptions = {}): {
  diff: RecordingDiff; ignore: IgnoreSet; summary: ReturnType<typeof summarize>; line: string;
} {
  return diffFramesReport(a.items.filter(isFrame), b.items.filter(isFrame), opts);
}

/** `diffReport` on frames; those of b are read once, in order (they may come from a cursor). */
export function diffFramesReport(framesA: readonly Frame[], framesB: Iterable<Frame>, opts: DiffOptions = {}): ReturnType<typeof diffReport> {
  const ignore = new IgnoreSet(opts.ignore ?? []);
  const diff = diffFrames(framesA, framesB, { ignore, mergeChunks: opts.mergeChunks });
  const summary = summarize(diff.divergences);
  const line = `${diff.same ? 'same' : 'different'}: ${diff.matched} of ${plural(diff.framesB, 'frame')} of b matched ${plural(diff.framesA, 'frame')} of a; ${summary.text}`;
  return { diff, ignore, summary, line };
}

/** Renders one difference as `diff` prints it (labels a and b, no colour). */
export function renderDifference(x: Divergence, r: ReturnType<typeof diffReport>): string {
  return renderDivergence(x, { map: r.diff.map, ignore: r.ignore, recordedLabel: 'a', liveLabel: 'b' });
}
