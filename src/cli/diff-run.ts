/** `acp-inspect diff <a> <b>` behind the commander layer. */
import { loadRecordingRef } from '../source.js';
import { describeFrame } from '../replay/aligner.js';
import { diffRecordings } from '../replay/diff-recordings.js';
import { IgnoreSet } from '../replay/json-diff.js';
import { renderDivergences, summarize } from '../replay/report.js';

export function runDiffCli(a: string, b: string, opts: { db?: string; ignore?: string[]; json?: boolean; color?: boolean; mergeChunks?: boolean }): void {
  const ra = loadRecordingRef(a, opts.db);
  const rb = loadRecordingRef(b, opts.db);
  const ignore = new IgnoreSet(opts.ignore ?? []);
  const d = diffRecordings(ra.recording, rb.recording, { ignore, mergeChunks: opts.mergeChunks });
  const s = summarize(d.divergences);
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({
      same: d.same, matched: d.matched, framesA: d.framesA, framesB: d.framesB, ...s, text: undefined,
      differences: d.divergences.map((x) => ({
        kind: x.kind,
        a: x.kind === 'extra' ? x.nearest?.seq ?? null : x.recorded.seq,
        b: x.kind === 'missing' ? null : x.live.seq,
        frame: describeFrame(x.kind === 'extra' ? x.live : x.recorded),
        reason: x.kind === 'changed' ? undefined : x.reason,
        paths: x.kind === 'missing' ? [] : x.diffs,
      })),
    })}\n`);
  } else {
    const color = opts.color !== false && process.stdout.isTTY === true;
    if (d.divergences.length) {
      process.stdout.write(`${renderDivergences(d.divergences, { color, map: d.map, ignore, recordedLabel: `a`, liveLabel: `b` })}\n`);
    }
    process.stdout.write(`${d.same ? 'same' : 'different'}: ${d.matched} of ${d.framesB} frames of b matched ${d.framesA} frames of a; ${s.text}\n`);
  }
  process.exitCode = d.same ? 0 : 1;
}
