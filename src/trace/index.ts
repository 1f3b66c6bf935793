/**
 * trace/: the span model, a pure fold of a recording into a tree of spans (see span-model.ts). The
 * OpenTelemetry export over it lives in src/otel/.
 */
export { TraceFold, buildTrace, flattenSpans, capabilityList, SPAN, MAX_CONTENT_CHARS } from './span-model.js';
export type { SpanNode, SpanEventNode, Attrs, AttrValue, SpanKindName, TraceOptions, TraceFinding } from './span-model.js';
