import type { Command } from 'commander';
import { DB_OPTION } from '../program.js';

export function registerExport(program: Command): void {
  program
    .command('export')
    .description('export a recording as a transcript (.jsonl), or as one self-contained .html report (--html)')
    .argument('<ref>', 'recording id, latest, or a transcript file (.jsonl)')
    .option(...DB_OPTION)
    .option('-o, --output <file>', 'write to a file instead of stdout')
    .option('--html', 'write one self-contained .html report (timeline, turns, findings, states) that opens offline by double-click')
    .option('--no-redact', 'keep secrets (env values, headers, tokens) instead of replacing them with <redacted>')
    .action(async (ref: string, opts: { db?: string; output?: string; redact: boolean; html?: boolean }) => {
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
