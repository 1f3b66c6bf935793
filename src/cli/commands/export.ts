import type { Command } from 'commander';
import { DB_OPTION } from '../program.js';

export function registerExport(program: Command): void {
  program
    .command('export')
    .description('export a recording as a transcript (.jsonl), as one self-contained .html report (--html), or as an OpenTelemetry trace (--otlp)')
    .argument('<ref>', 'recording id, latest, or a transcript file (.jsonl)')
    .option(...DB_OPTION)
    .option('-o, --output <file>', 'write to a file instead of stdout')
    .option('--html', 'write one self-contained .html page (timeline, turns, findings, states) that opens offline by double-click')
    .option('--no-redact', 'keep secrets (env values, headers, tokens) instead of replacing them with <redacted>')
    .option('--otlp [url]', 'send the recording as a trace to an OTLP/HTTP collector (default: $OTEL_EXPORTER_OTLP_ENDPOINT or http://localhost:4318)')
    .option('--otel-content', 'with --otlp: include prompts, agent text, tool inputs and outputs (redacted unless --no-redact)')
    .action(async (ref: string, opts: { db?: string; output?: string; redact: boolean; html?: boolean; otlp?: string | true; otelContent?: boolean }) => {
      if (opts.otlp !== undefined) {
        const { exportOtlpCli } = await import('../otlp-run.js');
        await exportOtlpCli(ref, { db: opts.db, output: opts.output, redact: opts.redact, url: opts.otlp === true ? undefined : opts.otlp, content: !!opts.otelContent });
        return;
      }
      if (opts.otelContent) {
        const { CliError } = await import('../errors.js');
        throw new CliError('--otel-content needs --otlp');
      }
      const { writeFileSync } = await import('node:fs');
      if (opts.html) {
        const { buildReport } = await import('../../report/html.js');
        const { CliError } = await import('../errors.js');
        let report;
        try {
          report = buildReport(ref, { db: opts.db, redact: opts.redact }, program.version() ?? '');
        } catch (e) {
          if (/not built/.test((e as Error).message)) throw new CliError((e as Error).message, 1);
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
