/**
 * `acp-inspect export --html`: one self-contained .html page holding the UI (the report build of the
 * Preact app, inlined), the recording, its findings and model states (gzip + base64 in a
 * non-executable script element). A strict Content-Security-Policy in the page allows only its own
 * inline script and style (by hash) and data: images: it makes no request, not even for a favicon.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { loadRecordingRef } from '../source.js';
import { Store } from '../store/store.js';
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

/** The report of `<id|latest|FILE>`. */
export function buildReport(ref: string, opts: { db?: string; redact: boolean }): { html: string; items: number; findings: number } {
  const loaded = loadRecordingRef(ref, opts.db);
  if (loaded.id === undefined) return renderReport({ recording: loaded.recording, label: loaded.file ?? ref }, opts.redact);
  // A stored recording: the summary and findings `serve` shows.
  const store = Store.open(opts.db, { mustExist: true, readonly: true });
  try {
    return renderReport({ recording: loaded.recording, summary: store.getRecording(loaded.id), findings: store.readFindings(loaded.id), label: `recording ${loaded.id}` }, opts.redact);
  } finally {
    store.close();
  }
}
