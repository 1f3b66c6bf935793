/**
 * acp-inspect's programmatic API: frames, transcripts, the store, the checker, replay fixtures
 * (mockAgent, replayClient), the server and the span model (OpenTelemetry's shape of a recording).
 */
export * from './wire/index.js';
export * from './transcript/index.js';
export { Store, type RecordingSummary, type StoredFinding } from './store/store.js';
export { defaultDbPath } from './store/paths.js';
export { loadRecordingRef, readTranscriptFile } from './source.js';
export { redactRecording, redactValue } from './redact.js';
export * from './replay/index.js';
export { startServer, createApp } from './server/index.js';
export {
  createChecker, checkRecording, stateAt, summarizeState, RULES,
  type Finding, type CheckOptions, type Checker, type ModelState, type RuleInfo,
} from './check/index.js';
export { buildTrace, flattenSpans, TraceFold, type SpanNode, type SpanEventNode, type TraceOptions } from './trace/index.js';
