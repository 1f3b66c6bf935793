/**
 * `acp-inspect export --html`: one self-contained .html page holding the UI (the report build of the
 * Preact app, inlined), the recording, its findings and model states (gzip + base64 in a
 * non-executable script element). A strict Content-Security-Policy in the page allows only its own
 * inline script and style (by hash) and data: images: it makes no request, not even for a favicon.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { checkStoredSize, holdLimit, loadRecordingRef, looksLikeFile, openStoredRef, RecordingTooBig } from '../source.js';
import type { Store } from '../store/store.js';
import { readStoredSlice } from '../store/slice-source.js';
import { sliceItems, type SlicePlan, type SliceSpec } from '../transcript/slice.js';
import { sliceTranscriptFile } from '../transcript/slice-file.js';
import type { Frame, Item } from '../wire/frame.js';
import { redactRecording } from '../redact.js';
import type { Recording } from '../transcript/format.js';
import { RULES, summarizeState } from '../check/index.js';
import { checkStream } from '../check-run/run.js';
import { encodeReport, reportData, type ReportData } from '../view/report-data.js';
import { packageVersion } from '../version.js';
import type { RecordingSummary, StoredFinding } from '../view/contract.js';

/** Where the report build of the UI lives (dist/report next to the compiled code). */
export function findReportAssets(): { js: string; css: string } | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const dir of [resolve(here, '../../report'), resolve(here, '../../dist/report')]) {
    const js = join(dir, 'report.js');
    const css = join(dir, 'report.css');
    if (existsSync(js) && existsSync(css)) return { js, css };
  }
  return undefined;
}

const FAVICON = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#2f5d8a"/><path d="M3 5h7M6 3l-3 2 3 2M13 11H6M10 9l3 2-3 2" stroke="#fff" stroke-width="1.4" fill="none" stroke-linecap="round" stroke-linejoin="round"/></svg>')}`;

const sha256 = (s: string) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A self-contained page's opening up to <body>: a Content-Security-Policy that allows only the given
 * inline style (and script, if any) by hash and data: images, so the page makes no request.
 */
export function pageHead(title: string, style: string, script?: string): string {
  const csp = [
    "default-src 'none'", ...(script !== undefined ? [`script-src ${sha256(script)}`] : []), `style-src ${sha256(style)}`, 'img-src data:',
    "base-uri 'none'", "form-action 'none'",
  ].join('; ');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="acp-inspect">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="${FAVICON}">
<style>${style}</style>
</head>`;
}

/** The page around the data. `js`/`css`: the report build. */
export function reportHtml(data: ReportData, js: string, css: string, title: string): string {
  // Inside <script>/<style> only a closing tag can end the element early.
  const script = js.replace(/<\/(script)/gi, '<\\/$1');
  const style = css.replace(/<\/(style)/gi, '<\\/$1');
  const payload = gzipSync(Buffer.from(encodeReport(data), 'utf8'), { level: 9 }).toString('base64');
  return `${pageHead(title, style, script)}
<body>
<div id="app"><p>${escapeHtml(data.note)}</p><p>Opening the recording… (this page needs JavaScript)</p></div>
<script type="application/gzip" id="acp-inspect-data">${payload}</script>
<script>${script}</script>
</body>
</html>
`;
}

/** A recording to report: from a store (its summary and stored findings) or a file (checked here). */
export interface ReportSource {
  recording: Recording;
  summary?: RecordingSummary;
  /** Stored findings; a recording without any given is checked here, as `acp-inspect check` does. */
  findings?: StoredFinding[];
  label: string;
}

/** The report page of a recording; redacted unless `redact` is false. */
export function renderReport(src: ReportSource, redact: boolean): { html: string; items: number; findings: number } {
  const assets = findReportAssets();
  if (!assets) throw new ReportNotBuilt('the HTML report is not built (dist/report); run `npm run build` in the acp-inspect folder');
  let summary = src.summary;
  if (summary?.status === 'running') {
    summary = { ...summary, status: 'interrupted', incomplete: true, incompleteReason: summary.incompleteReason ?? 'still being recorded when this report was made' };
  }
  const findings = src.findings ?? checkStream(src.recording.items, []).findings;
  const rec: Recording = redact ? redactRecording(src.recording) : src.recording;
  const made = `made by acp-inspect ${packageVersion()} on ${new Date().toISOString().slice(0, 10)}`;
  const note = `Report of one recording · ${redact ? 'credentials redacted' : 'NOT redacted: credentials are as recorded'} · ${made}`;
  const data = reportData(rec, findings, RULES, summarizeState, note, summary);
  const name = data.summary.name || data.summary.command?.join(' ') || src.label;
  const html = reportHtml(data, readFileSync(assets.js, 'utf8'), readFileSync(assets.css, 'utf8'), `${name} · acp-inspect report`);
  return { html, items: rec.items.length, findings: findings.length };
}

export class ReportNotBuilt extends Error {}

/**
 * The most a self-contained report holds. The page holds the recording, its states and the UI in
 * the browser's memory, and building it holds them here (about 2.5 times the recorded bytes at the
 * peak): past these, the report would be neither a reasonable file to send nor buildable within the
 * memory every command keeps to (300 MiB). Larger recordings: a part of them, or `serve`.
 */
export const REPORT_MAX_ITEMS = 100_000;
/** REPORT_MAX_ITEMS, or less under ACP_INSPECT_HOLD_MAX_ITEMS (see holdLimit). */
const maxItems = () => holdLimit({ items: REPORT_MAX_ITEMS, bytes: REPORT_MAX_BYTES, use: '', fix: '' }).items;
export const REPORT_MAX_BYTES = 64 * 1024 * 1024;
/** A transcript file larger than this holds more than REPORT_MAX_BYTES of frames (its lines add JSON around them). */
const REPORT_MAX_FILE_BYTES = 2 * REPORT_MAX_BYTES;

/** A recording past the report's limits: one line naming them and what to do instead. */
export class ReportTooBig extends Error {
  constructor(what: string, size: string, fix = 'make the report of a part of it (add --turn SEQ or --seq A-B), or browse all of it with `acp-inspect serve`') {
    super(`${what} is too big for a self-contained HTML report (${size}; a report holds at most ${maxItems().toLocaleString('en-US')} items and ${REPORT_MAX_BYTES / 1048576} MiB of frames); ${fix}`);
  }
}

const mib = (n: number) => `${(n / 1048576).toFixed(n < 10 * 1048576 ? 1 : 0)} MiB`;

/** Throws ReportTooBig (saying `fix`) when stored recording `id` is past the limits (reading at most REPORT_MAX_ITEMS rows). */
export function checkStoredReportSize(store: Store, id: number, fix?: string): void {
  try {
    checkStoredSize(store, id, holdLimit({ items: REPORT_MAX_ITEMS, bytes: REPORT_MAX_BYTES, use: 'a report', fix: '' }));
  } catch (e) {
    if (!(e instanceof RecordingTooBig)) throw e;
    const items = store.getRecording(id)?.items ?? 0;
    throw new ReportTooBig(`recording ${id}`, `${items.toLocaleString('en-US')} items`, fix);
  }
}

/** Throws ReportTooBig when a recording in memory (a slice, a file read) is past the limits. */
function checkReportSize(rec: Recording, what: string): void {
  let bytes = 0;
  for (const it of rec.items) bytes += it.dir === 'c2a' || it.dir === 'a2c' ? (it as Frame).raw.length : 0;
  if (rec.items.length > maxItems() || bytes > REPORT_MAX_BYTES) throw new ReportTooBig(what, `${rec.items.length.toLocaleString('en-US')} items, ${mib(bytes)}`);
}

/** The report of `<id|latest|FILE>`, or of one turn or range of it (`spec`). Throws ReportTooBig past the limits. */
export function buildReport(ref: string, opts: { db?: string; redact: boolean; spec?: SliceSpec }): { html: string; items: number; findings: number } {
  if (looksLikeFile(ref)) {
    if (opts.spec) {
      const cut = sliceTranscriptFile(ref, opts.spec);
      return reportOfSlice(cut.plan, cut.items(), `${ref} ${sliceLabel(cut.plan)}`, opts.redact);
    }
    let size = 0;
    try { size = statSync(ref).size; } catch { /* the reader names the problem */ }
    if (size > REPORT_MAX_FILE_BYTES) throw new ReportTooBig(ref, mib(size));
    const loaded = loadRecordingRef(ref, opts.db);
    checkReportSize(loaded.recording, ref);
    return renderReport({ recording: loaded.recording, label: ref }, opts.redact);
  }
  const { store, id } = openStoredRef(ref, opts.db);
  try {
    if (opts.spec) {
      const cut = readStoredSlice(store, id, opts.spec);
      return reportOfSlice(cut.plan, cut.items, `recording ${id} ${sliceLabel(cut.plan)}`, opts.redact);
    }
    checkStoredReportSize(store, id);
    // A stored recording: the summary and findings `serve` shows.
    return renderReport({ recording: store.loadRecording(id), summary: store.getRecording(id), findings: store.readFindings(id), label: `recording ${id}` }, opts.redact);
  } finally {
    store.close();
  }
}

const sliceLabel = (plan: SlicePlan) => ('turn' in plan.cut ? `turn #${plan.cut.turn}` : `#${plan.cut.from}-${plan.cut.to}`);

/** The report of a slice (checked here, as a transcript file's is); its warnings on stderr. */
function reportOfSlice(plan: SlicePlan, kept: Iterable<Item>, what: string, redact: boolean): { html: string; items: number; findings: number } {
  if (plan.seqs.length > maxItems()) throw new ReportTooBig(what, `${plan.seqs.length.toLocaleString('en-US')} items`);
  for (const w of plan.warnings) process.stderr.write(`acp-inspect: warning: ${w}\n`);
  const recording: Recording = { header: plan.header, items: [...sliceItems(plan, kept)] };
  if (plan.notes.length) recording.notes = plan.notes;
  checkReportSize(recording, what);
  return renderReport({ recording, label: what }, redact);
}
