/** The CLI glue of `export --otlp`: resolves the collector, sends the trace, reports in one line. */
import { CliError } from '../errors.js';
import { withRecordingStream } from '../source.js';
import { OtlpConfigError, resolveOtlpTarget } from '../otel/endpoint.js';
import { plural } from '../text/format.js';

export interface ExportOtlpCliOptions {
  db?: string;
  output?: string;
  redact: boolean;
  url?: string;
  content: boolean;
}

export async function exportOtlpCli(ref: string, o: ExportOtlpCliOptions): Promise<void> {
  if (o.output) throw new CliError('--otlp sends the trace to a collector; leave out -o/--output (or export without --otlp to write a file)');
  let target;
  try {
    target = resolveOtlpTarget(o.url, process.env);
  } catch (e) {
    if (e instanceof OtlpConfigError) throw new CliError(e.message);
    throw e;
  }
  const { exportRecordingOtlp } = await import('../otel/export.js');
  // The schemas' validators as the build made them, for the check (as check does: compiling them costs a tenth of a second).
  await (await import('../check-run/validators.js')).usePrebuiltValidators();
  // Streamed twice (the check, then the spans): never the whole recording in memory.
  const r = await withRecordingStream(ref, o.db, (src) => exportRecordingOtlp({ header: src.header, items: src.reread }, {
    target, content: o.content, redact: o.redact, recordingId: src.id, version: process.env.npm_package_version,
  }));
  if (r.error !== null) {
    throw new CliError(`could not send the trace to ${target.url}: ${r.error} (${r.delivered} of ${r.spans} spans delivered); ` +
      'is a collector listening there? Set OTEL_EXPORTER_OTLP_ENDPOINT or pass --otlp URL');
  }
  const ms = Math.round(r.ms.check + r.ms.spans + r.ms.send);
  process.stderr.write(`sent ${plural(r.spans, 'span')} (trace ${r.traceId}) for ${plural(r.items, 'item')} to ${target.url} in ${ms} ms\n`);
}
