/** `acp-inspect export <ref|FILE> --html [-o FILE] [--no-redact]`: the self-contained report. */
import { writeFileSync } from 'node:fs';
import { buildReport, ReportNotBuilt, ReportTooBig } from '../../report/html.js';
import type { SliceSpec } from '../../transcript/slice.js';
import { CliError } from '../../errors.js';
import { writeStdout } from '../stdout.js';
import { plural } from '../../text/format.js';

export function exportHtml(ref: string, opts: { db?: string; output?: string; redact: boolean; spec?: SliceSpec }): void {
  let report;
  try {
    report = buildReport(ref, { db: opts.db, redact: opts.redact, spec: opts.spec });
  } catch (e) {
    if (e instanceof ReportNotBuilt) throw new CliError(e.message, 1);
    if (e instanceof ReportTooBig) throw new CliError(e.message, 2);
    throw e;
  }
  // Like the .jsonl, to stdout; but not a page of base64 onto a terminal.
  const out = opts.output ?? (process.stdout.isTTY ? `acp-recording-${/^\d+$/.test(ref) ? ref : 'report'}.html` : undefined);
  if (!out) {
    writeStdout(report.html);
    return;
  }
  writeFileSync(out, report.html);
  process.stderr.write(`wrote ${plural(report.items, 'item')} and ${plural(report.findings, 'finding')} (${Math.round(report.html.length / 1024)} KiB, ${opts.redact ? 'credentials redacted' : 'NOT redacted'}) to ${out}\n`);
}
