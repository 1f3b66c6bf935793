import type { Command } from 'commander';
import { DB_OPTION } from '../program.js';

export function registerExport(program: Command): void {
  program
    .command('export')
    .description('export a recording as a transcript (.jsonl), or as one self-contained .html report (--html)')
    .argument('<ref>', 'recording id, latest, or a transcript file (.jsonl)')
    .option(...DB_OPTION)
    .option('-o, --output <file>', 'write to a file instead of stdout')
    .option('--html', 'write one self-contained .html page (timeline, turns, findings, states) that opens offline by double-click')
    .option('--no-redact', 'keep secrets (env values, headers, tokens) instead of replacing them with <redacted>')
    .action(async (ref: string, opts: { db?: string; output?: string; redact: boolean; html?: boolean }) => {
      const { writeFileSync } = await import('node:fs');
      if (opts.html) {
        const { buildReport, ReportNotBuilt } = await import('../../report/html.js');
        const { CliError } = await import('../errors.js');
        let report;
        try {
          report = buildReport(ref, { db: opts.db, redact: opts.redact });
        } catch (e) {
          if (e instanceof ReportNotBuilt) throw new CliError(e.message, 1);
          throw e;
        }
        const out = opts.output ?? (process.stdout.isTTY ? `acp-recording-${/^\d+$/.test(ref) ? ref : 'report'}.html` : undefined);
        if (out) {
          writeFileSync(out, report.html);
          process.stderr.write(`wrote ${report.items} items and ${report.findings} findings (${Math.round(report.html.length / 1024)} KiB${opts.redact ? ', credentials redacted' : ', NOT redacted'}) to ${out}\n`);
        } else {
          process.stdout.write(report.html);
        }
        return;
      }
      const { loadRecordingRef } = await import('../../source.js');
      const { serializeTranscript } = await import('../../transcript/format.js');
      const { redactRecording } = await import('../../redact.js');
      const { recording } = loadRecordingRef(ref, opts.db);
      const out = serializeTranscript(opts.redact ? redactRecording(recording) : recording);
      if (opts.output) {
        writeFileSync(opts.output, out);
        process.stderr.write(`wrote ${recording.items.length} items to ${opts.output}\n`);
      } else {
        process.stdout.write(out);
      }
    });
}
