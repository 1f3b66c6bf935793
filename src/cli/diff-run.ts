/** `acp-inspect diff <a> <b>` behind the commander layer, and the report the MCP server's diff_recordings gives. */
import { loadRecordingRef, withFramesOf, type MemoryLimit } from '../source.js';
import { isFrame, type Frame } from '../wire/frame.js';
import type { Recording } from '../transcript/format.js';
import { describeFrame, type Divergence } from '../replay/aligner.js';
import { diffFrames, type RecordingDiff } from '../replay/diff-recordings.js';
import { IgnoreSet } from '../replay/json-diff.js';
import { renderDivergence, renderDivergences, summarize } from '../replay/report.js';
import { writeStdout } from './format.js';

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
  const line = `${diff.same ? 'same' : 'different'}: ${diff.matched} of ${diff.framesB} frames of b matched ${diff.framesA} frames of a; ${summary.text}`;
  return { diff, ignore, summary, line };
}

/** Renders one difference as `diff` prints it (labels a and b, no colour). */
export function renderDifference(x: Divergence, r: ReturnType<typeof diffReport>): string {
  return renderDivergence(x, { map: r.diff.map, ignore: r.ignore, recordedLabel: 'a', liveLabel: 'b' });
}

/** What `diff` holds of its first recording at most (b is streamed). */
export const DIFF_LIMIT: MemoryLimit = {
  items: 100_000,
  bytes: 64 * 1024 * 1024,
  use: 'the first recording of diff',
  fix: 'compare parts: export each with --turn SEQ or --seq A-B (-o a.jsonl, -o b.jsonl) and diff the two files, or give the smaller recording first',
};

export function runDiffCli(a: string, b: string, opts: { db?: string; ignore?: string[]; json?: boolean; color?: boolean; mergeChunks?: boolean }): void {
  const ra = loadRecordingRef(a, opts.db, { framesOnly: true, limit: DIFF_LIMIT });
  // b is streamed: only the frames a difference names stay in memory.
  const r = withFramesOf(b, opts.db, (framesB) => diffFramesReport(ra.recording.items.filter(isFrame), framesB, opts));
  const { diff: d, summary: s } = r;
  if (opts.json) {
    writeStdout(`${JSON.stringify({
      same: d.same, matched: d.matched, framesA: d.framesA, framesB: d.framesB, ...s, text: undefined,
      differences: d.divergences.map(differenceJson),
    })}\n`);
  } else {
    const color = opts.color !== false && process.stdout.isTTY === true;
    if (d.divergences.length) {
      writeStdout(`${renderDivergences(d.divergences, { color, map: d.map, ignore: r.ignore, recordedLabel: `a`, liveLabel: `b` })}\n`);
    }
    writeStdout(`${r.line}\n`);
  }
  process.exitCode = d.same ? 0 : 1;
}
