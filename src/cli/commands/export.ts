import type { Command } from 'commander';
import { DB_OPTION, parseCount } from '../options.js';

export function registerExport(program: Command): void {
  program
    .command('export')
    .description('export a recording as a transcript (.jsonl), one turn or a range of it as a test fixture (--turn/--seq), a self-contained .html report (--html), or an OpenTelemetry trace (--otlp)')
    // Optional to commander only: `--otlp [url]` takes the word after it, so `export --otlp latest`
    // hands the recording to --otlp; the action gives it back (see below).
    .argument('[ref]', 'recording id, latest, or a transcript file (.jsonl)')
    .usage('[options] <ref>')
    .option(...DB_OPTION)
    .option('-o, --output <file>', 'write to a file instead of stdout')
    .option('--html', 'write one self-contained .html report (timeline, turns, findings, states) that opens offline by double-click; with --turn/--seq, of that part (a report holds at most 100,000 items and 64 MiB)')
    .option('--no-redact', 'keep secrets (env values, headers, tokens) instead of replacing them with <redacted>')
    .option('--turn <seq>', 'only the prompt turn holding item SEQ (its session/prompt, or any item of it), with the set-up it needs', parseCount('--turn'))
    .option('--seq <A-B>', 'only items A to B, with the set-up they need and the answers to their requests')
    .option('--otlp [url]', 'send the recording as a trace to an OTLP/HTTP collector (default: $OTEL_EXPORTER_OTLP_ENDPOINT or http://localhost:4318)')
    .option('--otel-content', 'with --otlp: include prompts, agent text, tool inputs and outputs (redacted unless --no-redact)')
    .action(async (given: string | undefined, opts: { db?: string; output?: string; redact: boolean; html?: boolean; turn?: number; seq?: string; otlp?: string | true; otelContent?: boolean }) => {
      const { CliError } = await import('../../errors.js');
      let ref = given;
      // `export --otlp latest`: the word --otlp took is the recording; the collector is the default one.
      if (ref === undefined && typeof opts.otlp === 'string') [ref, opts.otlp] = [opts.otlp, true];
      if (ref === undefined) throw new CliError("missing required argument 'ref'; see acp-inspect export --help", 2);
      const sliced = opts.turn !== undefined || opts.seq !== undefined;
      if (opts.otlp !== undefined && (opts.html || sliced)) {
        throw new CliError('give one of --html (a report), --otlp (a trace) and --turn/--seq (a fixture); --html takes --turn/--seq for a report of a part');
      }
      if (opts.otlp !== undefined) {
        const { exportOtlpCli } = await import('../otlp-run.js');
        await exportOtlpCli(ref, { db: opts.db, output: opts.output, redact: opts.redact, url: opts.otlp === true ? undefined : opts.otlp, content: !!opts.otelContent });
        return;
      }
      if (opts.otelContent) throw new CliError('--otel-content needs --otlp');
      let spec: import('../../transcript/slice.js').SliceSpec | undefined;
      if (sliced) {
        if (opts.turn !== undefined && opts.seq !== undefined) throw new CliError('give --turn or --seq, not both');
        const { parseSeqRange } = await import('../../transcript/slice.js');
        spec = opts.turn !== undefined ? { turn: opts.turn } : parseSeqRange(opts.seq!);
      }
      if (opts.html) return (await import('./export-html.js')).exportHtml(ref, { ...opts, spec });
      const { exportTranscript } = await import('../export-run.js');
      await exportTranscript(ref, { db: opts.db, output: opts.output, redact: opts.redact, spec });
    });
}
