/** `acp-inspect diff <a> <b>` behind the commander layer (the report itself: replay/diff-report.ts). */
import { loadRecordingRef, withFramesOf, type MemoryLimit } from '../source.js';
import { isFrame } from '../wire/frame.js';
import { renderDivergences } from '../replay/report.js';
import { diffFramesReport, differenceJson } from '../replay/diff-report.js';
import { writeStdout } from './stdout.js';
import { colorFor } from './color.js';

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
    const color = colorFor(process.stdout, opts);
    if (d.divergences.length) {
      writeStdout(`${renderDivergences(d.divergences, { color, map: d.map, ignore: r.ignore, recordedLabel: `a`, liveLabel: `b` })}\n`);
    }
    writeStdout(`${r.line}\n`);
  }
  process.exitCode = d.same ? 0 : 1;
}
