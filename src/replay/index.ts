/**
 * replay/: drives one side of an ACP session from a recording. The mock agent answers a live client
 * with the recorded agent frames; the mock client drives a live agent with the recorded client
 * frames and compares. Matching, id/path mapping and comparison are pure (aligner, volatile,
 * json-diff); processes and streams live only in agent-stdio, client-process and fixtures.
 * It does not record sessions (that is the tap) or check protocol rules (that is the checker).
 *
 * The package entry re-exports this file, so names here are chosen not to collide with other parts.
 */
export {
  mockAgent, replayClient, recordMode,
  type MockAgent, type MockAgentOptions, type RecordMode, type ReplayClientOptions, type ReplayClientResult,
} from './fixtures.js';
export { Aligner, matchKey, type Divergence, type Observation, type AlignerOptions } from './aligner.js';
export { VolatileMap, VOLATILE_ID_KEYS, type MapConflict } from './volatile.js';
export { IgnoreSet, type PathDiff } from './json-diff.js';
export { type FaultPlan } from './faults.js';
export { AgentReplayer, type AgentReplayerOptions, type AgentReplaySummary, type Effect as ReplayEffect } from './agent-replayer.js';
export { ClientReplayer, type ClientReplayerOptions, type ClientReplayResult } from './client-replayer.js';
export { serveMockAgent, type MockAgentIo, type MockAgentRun } from './agent-stdio.js';
export { runReplayClient, type ReplayClientRun, type ReplayClientProcessOptions } from './client-process.js';
export { diffRecordings, type RecordingDiff } from './diff-recordings.js';
export { renderDivergences, type RenderOptions } from './report.js';
