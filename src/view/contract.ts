/**
 * The view contract: the shapes a DataSource (source.ts) answers with. Both sources speak it: the
 * server's JSON API implements it over the store (server/queries.ts, server/app.ts) and MemorySource
 * implements it over a parsed transcript. The UI and the views import these (`import type`), so the
 * contract between the data and the page lives in one place, beside the interface that serves it.
 */
import type { ItemDir, FrameKind, RpcId, Item } from '../wire/frame.js';
import type { Indexing } from './indexing.js';
import type { TransportCell } from '../wire/transport-event.js';

export type { TransportCell };

export type { Item };

export type RecordingStatus = 'running' | 'complete' | 'incomplete' | 'interrupted' | 'imported';

/** A row of the recordings list (the store answers with it; the contract owns its shape). */
export interface RecordingSummary {
  id: number;
  name: string | null;
  startedAt: string;
  endedAt: string | null;
  status: RecordingStatus;
  incomplete: boolean;
  incompleteReason: string | null;
  command: string[] | null;
  cwd: string | null;
  pid: number | null;
  exitCode: number | null;
  exitSignal: string | null;
  client: { name: string | null; version: string | null };
  agent: { name: string | null; version: string | null };
  protocolVersion: number | null;
  items: number;
  frames: number;
  errors: number;
  warnings: number;
  infos: number;
  durationMs: number | null;
  /**
   * While the recording's capture log is not fully indexed after its tap exited or died (another
   * process finishes it): bytes of the log indexed and its size. Null once it is all in the
   * database, and while its tap runs unless its indexing is blocked. `blocked`: why nothing is
   * indexed now (the database's disk is full: it goes on by itself once space returns).
   */
  indexing?: Indexing | null;
}

/** One finding of the checker, as stored. */
export interface StoredFinding {
  seq: number;
  severity: 'error' | 'warning' | 'info';
  rule: string;
  message: string;
  spec?: string;
}

/** A note (or a bare mark, with empty text) a user wrote on an item, as stored. */
export interface StoredNote {
  id: number;
  recordingId: number;
  seq: number;
  text: string;
  createdAt: string;
  updatedAt: string | null;
}

/** A probe run of the store (acp-inspect probe agent|client), as the home page lists it. */
export interface ProbeRunSummary {
  id: number;
  probe: string;
  startedAt: string;
  endedAt: string | null;
  target: string | null;
  verdict: string | null;
}

/** A probe matrix of the store (acp-inspect probe agents), as the home page lists it: its agents and their verdicts. */
export interface ProbeMatrixSummary {
  id: number;
  startedAt: string;
  endedAt: string | null;
  agents: Array<{ id: string; verdict: string | null; couldNotRun: boolean }>;
}

/** One line of the timeline: what the list needs, without the full raw text. */
export interface TimelineRow {
  seq: number;
  t: number;
  dir: ItemDir;
  /** Frame kind, or the event type for events; null for stderr. */
  kind: string | null;
  method: string | null;
  id?: RpcId;
  replyTo: number | null;
  /** For requests: seq of the response, when there is one. */
  responseSeq: number | null;
  latency: number | null;
  sessionId: string | null;
  size: number | null;
  /** A short one-line description of the item (update kind and text, params, error message...). */
  preview: string;
  parseError: string | null;
  /** Severities of the findings at this seq, most severe first (e.g. ["error","warning"]). */
  findings: StoredFinding['severity'][];
  /** The checker's one-line state summary after this item, when the checker provides one. */
  state?: string;
  /** A remote agent's frame: how it travelled (its POST and status, its SSE stream, the WebSocket). */
  transport?: TransportCell;
}

/** A page of the (filtered) timeline. */
export interface TimelinePage {
  /** How many items match the filter. */
  total: number;
  /** Index of the first row of `rows` within the filtered list. */
  offset: number;
  rows: TimelineRow[];
  /** A remote agent's recording: its transport (the timeline then shows a transport column). */
  transport?: 'http' | 'ws';
  /** `t` of the row just before `offset` in the filtered list (for the delta column). */
  prevT: number | null;
  /** The filter as understood, or an error naming the bad term. */
  filterError?: string;
  /**
   * Set while the filter is still being run over a large recording: `rows` are those found so far
   * and `total` is a lower bound; asking again later gives more.
   */
  partial?: true;
}

/** A finding with the rule's title and the spec's sentence, when the checker knows the rule. */
export interface FindingView extends StoredFinding {
  title?: string;
  specText?: string;
  /** The protocol's published page for the finding's spec part (src/spec/doc-links.ts). */
  url?: string;
}

/** Everything the detail pane shows about one item. */
export interface ItemDetail {
  item: Item;
  /** The request this response answers, or the response this request got. */
  pair: Item | null;
  findings: FindingView[];
  /**
   * The checker's model state after this item (sessions, turn, modes, tool calls, ...); absent (with
   * stateSummary) only when the detail was asked for without it (`?state=0`), see ItemState.
   */
  state?: unknown;
  stateSummary?: string;
  /** For updates that patch an earlier entity: the entity before and after this item. */
  patch?: { entity: string; key: string; before: unknown; after: unknown; previousSeq: number | null };
}

/** The model state after one item alone (GET .../items/:seq/state): `state` is `{error}` when the checker could not fold. */
export interface ItemState {
  state: unknown;
  stateSummary?: string;
}

/** Per-method traffic statistics. */
export interface MethodStats {
  method: string;
  count: number;
  requests: number;
  notifications: number;
  errors: number;
  /** Latency of answered requests in ms (null when none was answered). */
  p50: number | null;
  p99: number | null;
  max: number | null;
}

/** One prompt turn: a `session/prompt` request and everything up to its response. */
export interface TurnInfo {
  /** seq of the session/prompt request (the turn's id in filters: `turn:SEQ`). */
  seq: number;
  sessionId: string | null;
  /** seq of the response, null while the turn runs. */
  endSeq: number | null;
  t: number;
  durationMs: number | null;
  stopReason: string | null;
  /** The prompt's text (text blocks joined, others named). */
  prompt: string;
}

/** Prompt turns over the filtered timeline (`GET /api/recordings/:id/groups?q=`), for grouping it. */
export interface TimelineGroups {
  /** How many items match the filter. */
  total: number;
  /** Turns in order, each holding the list indices [from, to) of the filtered timeline. */
  turns: (TurnInfo & { from: number; to: number })[];
  /** Each session's first item in the filtered timeline (its list index), in order. */
  sessions: { sessionId: string; from: number }[];
}

export interface TurnToolCall {
  toolCallId: string;
  title: string | null;
  kind: string | null;
  status: string | null;
  seq: number;
  /** Diffs carried by the tool call's content. */
  diffs: { path: string; oldText: string | null; newText: string }[];
  /** Text content and terminal ids, in order. */
  content: string[];
  /** The ids of the terminals the content names (`{type: "terminal", terminalId}`), in order. */
  terminals: string[];
}

export interface TurnDetail extends TurnInfo {
  /** The agent's streamed message chunks assembled (Markdown). */
  message: string;
  thought: string;
  toolCalls: TurnToolCall[];
  plan: { content: string; status: string; priority?: string }[] | null;
  permissions: { seq: number; title: string | null; options: string[]; outcome: string | null; waitedMs: number | null }[];
  /** fs/* and terminal/* calls the agent made during the turn. */
  calls: { seq: number; method: string; summary: string; latency: number | null; error: string | null }[];
  cancelled: { seq: number; t: number } | null;
  /** Items in the turn, and findings inside it by severity. */
  items: number;
  findings: { error: number; warning: number; info: number };
}

/** One agent (name and version) across the recordings of the store (`GET /api/agents`). */
export interface AgentRow {
  name: string | null;
  version: string | null;
  recordings: number[];
  /** Prompt turns answered, and their durations (session/prompt request to response). */
  turns: number;
  turnP50: number | null;
  turnP90: number | null;
  /** Error responses in either direction. */
  errors: number;
  /** Answered requests per method (either direction), with latency percentiles in ms. */
  methods: { method: string; answered: number; p50: number | null; p90: number | null; p99: number | null; max: number | null }[];
}

/** Messages on the live stream (SSE event `message`, JSON data). */
export type LiveEvent =
  | { type: 'hello'; dataVersion: number }
  | { type: 'recordings' }
  | { type: 'recording'; recording: RecordingSummary }
  | { type: 'items'; recordingId: number; rows: TimelineRow[]; maxSeq: number }
  | { type: 'findings'; recordingId: number; findings: StoredFinding[]; replaced?: boolean }
  | { type: 'deleted'; recordingId: number }
  /** State summaries for more items are ready (a background fold finished): reload shown rows. */
  | { type: 'states'; recordingId: number }
  /** The notes of a recording changed (added, edited or deleted, here or by another process): all of them. */
  | { type: 'notes'; recordingId: number; notes: StoredNote[] };

export type { ItemDir, FrameKind };

/** One side of an aligned row in the Compare view. */
export interface CompareFrame {
  seq: number;
  t: number;
  dir: 'c2a' | 'a2c';
  /** `request session/prompt`, `session/update tool_call`, `result for initialize`... (left out on the b side of a same row) */
  label?: string;
  preview?: string;
}

/** One aligned row: a frame of the first recording and its counterpart in the second. */
export interface CompareRow {
  /**
   * same: matched, equal once volatile values are normalised; changed: matched with differences;
   * missing: only in the first; extra: only in the second; merged: a streamed chunk whose message
   * is equal once chunks are merged.
   */
  status: 'same' | 'changed' | 'missing' | 'extra' | 'merged';
  a?: CompareFrame;
  b?: CompareFrame;
  /** Why a frame has no counterpart. */
  reason?: string;
  /** For an extra frame: the seq of the nearest frame of the first recording. */
  nearest?: number;
  /** Path-level differences, one readable line each. */
  diffs?: string[];
  /** Unified diff of the two frames (keys sorted, volatile values mapped, ignored paths blanked). */
  patch?: string;
}

/** Two recordings aligned frame by frame (`GET /api/compare?a=ID&b=ID`). */
export interface CompareResult {
  a: RecordingSummary;
  b: RecordingSummary;
  same: boolean;
  /** Frames of b matched to frames of a. */
  matched: number;
  framesA: number;
  framesB: number;
  changed: number;
  missing: number;
  extra: number;
  rows: CompareRow[];
  /** True when more rows diverge than carry a unified diff. */
  patchesCut: boolean;
  ignore: string[];
  mergeChunks: boolean;
}

/**
 * A comparison without its rows (`GET /api/compare?a=ID&b=ID&paged=1`): the totals, the status of
 * every row, and the id to ask for rows by (`GET /api/compare/rows?id=ID&offset=N&limit=N`).
 */
export interface CompareIndex extends Omit<CompareResult, 'rows'> {
  id: string;
  /** Rows in all. */
  total: number;
  /** One letter per row: s same, c changed, m missing (only in a), x extra (only in b), g merged. */
  statuses: string;
}

/** Rows `offset`… of a paged comparison, each as the whole answer has it. */
export interface CompareRowsPage {
  offset: number;
  rows: CompareRow[];
}
