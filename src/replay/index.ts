/**
 * replay/: drives one side of an ACP session from a recording. The mock agent answers a live client
 * with the recorded agent frames; the mock client drives a live agent with the recorded client
 * frames and compares. Matching, id/path mapping and comparison are pure (aligner, volatile,
 * json-diff); processes and streams live only in agent-stdio, client-process and fixtures.
 * It does not record sessions (that is the tap) or check protocol rules (that is the checker).
 */
export { Aligner, matchKey, updateKind, describeFrame, type Divergence, type Observation, type AlignerOptions } from './aligner.js';
export { VolatileMap, VOLATILE_ID_KEYS, replacePathPrefix, type MapConflict } from './volatile.js';
export { diffJson, IgnoreSet, describeDiffs, formatPath, type PathDiff, type DiffOptions } from './json-diff.js';
export { FaultInjector, MALFORMED_LINE, type FaultPlan } from './faults.js';
export { AgentReplayer, NO_MATCH_CODE, type AgentReplayerOptions, type AgentReplaySummary, type Effect } from './agent-replayer.js';
export { ClientReplayer, recordedCwd, type ClientReplayerOptions, type ClientReplayResult } from './client-replayer.js';
export { serveMockAgent, type MockAgentIo, type MockAgentRun } from './agent-stdio.js';
export { runReplayClient, type ReplayClientRun, type ReplayClientProcessOptions } from './client-process.js';
export { diffRecordings, type RecordingDiff } from './diff-recordings.js';
export { renderDivergence, renderDivergences, framePatch, canonicalText, summarize, type RenderOptions } from './report.js';
export {
  mockAgent, replayClient, recordMode,
  type MockAgent, type MockAgentOptions, type RecordMode, type ReplayClientOptions, type ReplayClientResult,
} from './fixtures.js';
