import type { Command } from 'commander';
import { DB_OPTION } from '../program.js';

export function registerExport(program: Command): void {
  program
    .command('export')
    .description('export a recording as a transcript (.jsonl), as one self-contained .html report (--html), or as an OpenTelemetry trace (--otlp)')
    .argument('<ref>', 'recording id, latest, or a transcript file (.jsonl)')
    .option(...DB_OPTION)
    .option('-o, --output <file>', 'write to a file instead of stdout')
    .option('--html', 'write one self-contained .html report (timeline, turns, findings, states) that opens offline by double-click')
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
      if (opts.html) return (await import('./export-html.js')).exportHtml(ref, opts);
      const { loadRecordingRef } = await import('../../source.js');
      const { serializeTranscript } = await import('../../transcript/format.js');
      const { redactRecording } = await import('../../redact.js');
      const { writeFileSync } = await import('node:fs');
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
