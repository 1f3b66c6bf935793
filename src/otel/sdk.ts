/**
 * The thin edge between the span model (src/trace/) and the OpenTelemetry SDK: a tracer provider
 * with a batching processor and the official OTLP/HTTP exporter (protobuf or JSON), and an emitter
 * that turns each ended SpanNode into an SDK span with the recording's own timestamps. Loaded only
 * when --otlp is given.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace, type Context, type HrTime, type Span, type Tracer } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import type { SpanNode } from '../trace/span-model.js';
import type { OtlpTarget } from './endpoint.js';

/** The instrumentation scope and the default service name. */
export const SCOPE = 'acp-inspect';

/** The time `t` ms after `epochMs` (the recording's start), as [seconds, nanoseconds], without float drift. */
export function hrTimeAt(epochMs: number, t: number): HrTime {
  const sec = Math.floor(epochMs / 1000);
  let ns = Math.round((epochMs - sec * 1000) * 1e6) + Math.round(t * 1e6);
  const carry = Math.floor(ns / 1e9);
  ns -= carry * 1e9;
  return [sec + carry, ns];
}

export interface ExportStats {
  /** Spans handed to the SDK. */
  ended: number;
  /** Spans the collector took. */
  delivered: number;
  /** Spans in batches the collector refused or never answered. */
  failed: number;
}

/** Counts what the collector took and says the first failure once; never throws into the caller. */
class CountingExporter implements SpanExporter {
  firstError: string | null = null;
  constructor(private readonly inner: SpanExporter, private readonly stats: ExportStats, private readonly onFailure: (why: string) => void) {}

  export(spans: ReadableSpan[], done: (r: ExportResult) => void): void {
    try {
      this.inner.export(spans, (r) => {
        if (r.code === ExportResultCode.SUCCESS) this.stats.delivered += spans.length;
        else {
          this.stats.failed += spans.length;
          this.fail(r.error);
        }
        done(r);
      });
    } catch (e) {
      this.stats.failed += spans.length;
      this.fail(e as Error);
      done({ code: ExportResultCode.FAILED, error: e as Error });
    }
  }

  private fail(e: Error | undefined): void {
    if (this.firstError !== null) return;
    const cause = (e as { cause?: { code?: string } } | undefined)?.cause?.code;
    const code = (e as { code?: string } | undefined)?.code;
    this.firstError = [e?.message ?? 'export failed', cause ?? code].filter(Boolean).join(' ');
    this.onFailure(this.firstError);
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

export interface PipelineOptions {
  /** Called once, on the first batch the collector refused or did not answer. */
  onFailure?: (why: string) => void;
  /** Spans that may wait for export; past it, spans are dropped (counted). */
  maxQueueSize?: number;
  scheduledDelayMillis?: number;
  /** One request's timeout. */
  timeoutMillis?: number;
  version?: string;
}

export interface OtlpPipeline {
  tracer: Tracer;
  target: OtlpTarget;
  stats: ExportStats;
  firstError(): string | null;
  /** Sends what waits. */
  flush(): Promise<void>;
  /** Sends what waits and stops, giving up after `deadlineMs`; true when every span was delivered. */
  shutdown(deadlineMs: number): Promise<boolean>;
}

const envNumber = (name: string): number | undefined => {
  const v = Number(process.env[name]);
  return process.env[name] && Number.isFinite(v) ? v : undefined;
};

/**
 * A tracer that batches spans to the target. The resource is service.name=acp-inspect unless
 * OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES say otherwise; OTEL_EXPORTER_OTLP_HEADERS (and the
 * other OTEL_EXPORTER_OTLP_* settings) are read by the exporter itself.
 */
export function createPipeline(target: OtlpTarget, o: PipelineOptions = {}): OtlpPipeline {
  const stats: ExportStats = { ended: 0, delivered: 0, failed: 0 };
  const config = { url: target.url, timeoutMillis: o.timeoutMillis ?? envNumber('OTEL_EXPORTER_OTLP_TRACES_TIMEOUT') ?? envNumber('OTEL_EXPORTER_OTLP_TIMEOUT') ?? 10_000 };
  const inner: SpanExporter = target.protocol === 'http/json' ? new JsonExporter(config) : new ProtobufExporter(config);
  const exporter = new CountingExporter(inner, stats, o.onFailure ?? (() => undefined));
  const processor = new BatchSpanProcessor(exporter, {
    maxQueueSize: envNumber('OTEL_BSP_MAX_QUEUE_SIZE') ?? o.maxQueueSize ?? 4096,
    maxExportBatchSize: envNumber('OTEL_BSP_MAX_EXPORT_BATCH_SIZE') ?? 512,
    scheduledDelayMillis: envNumber('OTEL_BSP_SCHEDULE_DELAY') ?? o.scheduledDelayMillis ?? 1000,
  });
  const ours = resourceFromAttributes({ 'service.name': SCOPE, ...(o.version ? { 'service.version': o.version } : {}) });
  // Later merges win: the SDK's defaults, then ours, then what the environment says.
  const resource = defaultResource().merge(ours).merge(detectResources({ detectors: [envDetector] }));
  const provider = new BasicTracerProvider({
    resource,
    spanProcessors: [processor],
    // Findings are span events: a span may carry many.
    spanLimits: { eventCountLimit: envNumber('OTEL_SPAN_EVENT_COUNT_LIMIT') ?? 1024, attributeCountLimit: envNumber('OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT') ?? 256 },
  });
  const tracer = provider.getTracer(SCOPE, o.version);
  return {
    tracer,
    target,
    stats,
    firstError: () => exporter.firstError,
    flush: () => processor.forceFlush(),
    async shutdown(deadlineMs: number): Promise<boolean> {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((r) => { timer = setTimeout(() => r('timeout'), deadlineMs); });
      const done = provider.shutdown().then(() => 'done' as const, () => 'done' as const);
      const how = await Promise.race([done, timeout]);
      clearTimeout(timer);
      return how === 'done' && stats.delivered === stats.ended;
    },
  };
}

/**
 * The context a W3C `traceparent` value (`00-<trace id>-<span id>-<flags>`) names, or null: the
 * connection span then continues the trace of whatever started the tap (a CI job, an editor).
 */
export function contextFromTraceparent(value: string | undefined): Context | null {
  const m = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec((value ?? '').trim().toLowerCase());
  if (!m || m[1] === 'ff' || /^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) return null;
  return trace.setSpanContext(ROOT_CONTEXT, { traceId: m[2]!, spanId: m[3]!, traceFlags: parseInt(m[4]!, 16) & TraceFlags.SAMPLED, isRemote: true });
}

const KIND = { internal: SpanKind.INTERNAL, client: SpanKind.CLIENT, server: SpanKind.SERVER } as const;

/**
 * Turns ended SpanNodes into SDK spans. A span is started in the SDK only when it or one of its
 * children ends (its parent must exist first), with its recorded start time, so a live tap holds SDK
 * objects only for spans that are still open.
 */
export class SpanEmitter {
  private readonly live = new Map<SpanNode, Span>();
  traceId: string | null = null;

  /** `parent`: a remote context the connection span continues (see contextFromTraceparent). */
  constructor(private readonly pipeline: OtlpPipeline, private readonly epochMs: number, private readonly parent: Context | null = null) {}

  private at(t: number): HrTime {
    return hrTimeAt(this.epochMs, t);
  }

  private ensure(node: SpanNode): Span {
    const have = this.live.get(node);
    if (have) return have;
    const parent = node.parent ? this.ensure(node.parent) : null;
    const ctx = parent ? trace.setSpan(ROOT_CONTEXT, parent) : (this.parent ?? ROOT_CONTEXT);
    const span = this.pipeline.tracer.startSpan(node.name, { kind: KIND[node.kind], startTime: this.at(node.start), root: !parent && !this.parent }, ctx);
    this.traceId ??= span.spanContext().traceId;
    this.live.set(node, span);
    return span;
  }

  /** Hands an ended node to the SDK (its parent is started if it was not yet). */
  end(node: SpanNode): void {
    const span = this.ensure(node);
    span.updateName(node.name);
    span.setAttributes(node.attributes);
    for (const e of node.events) span.addEvent(e.name, e.attributes, this.at(e.t));
    if (node.status === 'error') span.setStatus({ code: SpanStatusCode.ERROR, ...(node.statusMessage ? { message: node.statusMessage } : {}) });
    span.end(this.at(node.end ?? node.start));
    this.live.delete(node);
    this.pipeline.stats.ended++;
  }
}
