/**
 * `acp-inspect export <ref|FILE> --otlp [URL]`: a finished recording as one trace. The checker runs
 * first (its findings become span events), then the span model folds the items and each span that
 * ends goes to the SDK; the queue is flushed as it fills, so a large recording is sent in full
 * rather than dropped.
 */
import type { Frame, Item } from '../wire/frame.js';
import type { Recording, TranscriptHeader } from '../transcript/format.js';
import { createChecker, type Finding } from '../check/checker.js';
import { FindingSpool } from '../check-run/finding-spool.js';
import { TraceFold } from '../trace/span-model.js';
import { redactFrame } from '../redact.js';
import { createPipeline, SpanEmitter } from './sdk.js';
import type { OtlpTarget } from './endpoint.js';

export interface OtlpExportOptions {
  target: OtlpTarget;
  /** Send message content (--otel-content). */
  content: boolean;
  /** Redact credentials in content (the default; --no-redact turns it off). */
  redact: boolean;
  recordingId?: number;
  version?: string;
  /** How long the last batches may take. */
  finishMs?: number;
}

export interface OtlpExportResult {
  spans: number;
  /** Items of the recording. */
  items: number;
  delivered: number;
  traceId: string | null;
  findings: number;
  /** The first error the collector gave, when spans were not delivered. */
  error: string | null;
  ms: { check: number; spans: number; send: number };
}

/** Spans that may wait before the exporter is made to catch up (below the queue's bound: nothing is dropped). */
const FLUSH_EVERY = 2048;

/**
 * A recording to send: its header and its items, which are read twice (the check, then the spans):
 * an array, or a function that reads them afresh each time (a stored recording a page at a time, a
 * file a read at a time), so that a recording of any size is sent in bounded memory.
 */
export interface OtlpSource {
  header: TranscriptHeader;
  items: Iterable<Item> | (() => Iterable<Item>);
}

export async function exportRecordingOtlp(rec: Recording | OtlpSource, o: OtlpExportOptions): Promise<OtlpExportResult> {
  const read = () => (typeof rec.items === 'function' ? rec.items() : rec.items);
  const t0 = performance.now();
  // The check, streamed, its findings spooled (a recording may have one on every frame); it also
  // finds the last item's time and counts the items.
  const checker = createChecker();
  const spool = new FindingSpool();
  try {
    let lastT = 0;
    let items = 0;
    for (const item of read()) {
      const f = checker.step(item);
      for (let i = 0; i < f.length; i++) spool.add(f[i]!);
      lastT = item.t;
      items++;
    }
    for (const f of checker.end()) spool.add(f);
    return await sendSpans(rec, o, read, { spool, lastT, items, checkMs: performance.now() - t0 });
  } finally {
    spool.close();
  }
}

/** The second reading: the spans, with the spooled findings (in seq order, as the items) at their items. */
async function sendSpans(rec: Recording | OtlpSource, o: OtlpExportOptions, read: () => Iterable<Item>, c: { spool: FindingSpool; lastT: number; items: number; checkMs: number }): Promise<OtlpExportResult> {
  const t1 = performance.now();
  const findings = c.spool.read();
  let next = findings.next();
  const pipeline = createPipeline(o.target, { version: o.version, maxQueueSize: FLUSH_EVERY * 2, scheduledDelayMillis: 200 });
  const parsed = rec.header.startedAt ? Date.parse(rec.header.startedAt) : NaN;
  // A transcript without its start time is placed so that it ends now.
  const epochMs = Number.isFinite(parsed) ? parsed : Date.now() - c.lastT;
  const emitter = new SpanEmitter(pipeline, epochMs);
  let waiting = 0;
  const fold = new TraceFold({
    content: o.content,
    redact: o.content && o.redact ? (f: Frame) => redactFrame(f) : undefined,
    onEnd: (s) => {
      emitter.end(s);
      waiting++;
    },
    recording: { name: rec.header.name ?? null, command: rec.header.command ?? null, id: o.recordingId ?? null },
  });
  let sendMs = 0;
  for (const item of read()) {
    let at: Finding[] | undefined;
    for (; !next.done && next.value.seq <= item.seq; next = findings.next()) if (next.value.seq === item.seq) (at ??= []).push(next.value);
    fold.step(item, at);
    if (waiting >= FLUSH_EVERY) {
      waiting = 0;
      const f0 = performance.now();
      await pipeline.flush();
      sendMs += performance.now() - f0;
      if (pipeline.firstError()) break; // the collector refuses: stop here, say so once
    }
  }
  if (!pipeline.firstError()) fold.finish();
  const t2 = performance.now();
  await pipeline.shutdown(o.finishMs ?? 10_000);
  const t3 = performance.now();
  return {
    spans: fold.spans,
    items: c.items,
    delivered: pipeline.stats.delivered,
    traceId: emitter.traceId,
    findings: c.spool.count,
    error: pipeline.firstError() ?? (pipeline.stats.delivered < fold.spans ? 'the collector did not answer in time' : null),
    ms: { check: c.checkMs, spans: t2 - t1 - sendMs, send: sendMs + (t3 - t2) },
  };
}
