/**
 * acp-inspect's programmatic API: frames, transcripts, the store, and (as they land) the checker,
 * replay fixtures and server.
 */
export * from './wire/index.js';
export * from './transcript/index.js';
export { Store, type RecordingSummary, type StoredFinding } from './store/store.js';
export { defaultDbPath } from './store/paths.js';
export { loadRecordingRef, readTranscriptFile } from './source.js';
export { redactRecording, redactValue } from './redact.js';
export * from './replay/index.js';
export { startServer, createApp } from './server/index.js';
