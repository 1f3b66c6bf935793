/**
 * Entity transition tables from spec part 3, as data: which moves are stated, and which states
 * allow which method. The model (check/model.ts) follows them and the rules cite them.
 */

/** Prompt turn states (part 3 "Prompt turn"): idle → running (session/prompt) → idle (answered). */
export type TurnStatus = 'idle' | 'running' | 'cancel-requested';
export const TURN_TRANSITIONS: ReadonlyArray<{ from: TurnStatus; trigger: string; to: TurnStatus }> = [
  { from: 'idle', trigger: 'session/prompt', to: 'running' },
  { from: 'running', trigger: 'session/cancel', to: 'cancel-requested' },
  { from: 'running', trigger: 'session/close', to: 'cancel-requested' },
  { from: 'running', trigger: 'prompt answered', to: 'idle' },
  { from: 'cancel-requested', trigger: 'prompt answered', to: 'idle' },
];

/** Session lifecycle (part 3 "Session"). `loading`: session/load or session/resume sent, not answered yet. */
export type SessionStatus = 'opening' | 'active' | 'loading' | 'closed' | 'deleted';
export const SESSION_TRANSITIONS: ReadonlyArray<{ from: SessionStatus | 'none' | 'stored'; trigger: string; to: SessionStatus }> = [
  { from: 'none', trigger: 'session/new answered', to: 'active' },
  { from: 'active', trigger: 'session/fork answered', to: 'active' },
  { from: 'stored', trigger: 'session/load sent', to: 'loading' },
  { from: 'stored', trigger: 'session/resume sent', to: 'loading' },
  { from: 'loading', trigger: 'load/resume answered', to: 'active' },
  { from: 'active', trigger: 'session/close answered', to: 'closed' },
  { from: 'active', trigger: 'session/delete answered', to: 'deleted' },
];
/** Session states in which the session can be used by methods that carry its id. */
export const SESSION_USABLE: ReadonlySet<string> = new Set(['opening', 'active', 'loading']);

/** Terminal lifecycle (part 3 "Terminal"). Released ids are invalid for terminal/* methods. */
export type TerminalStatus = 'running' | 'exited' | 'killed' | 'released';
export const TERMINAL_TRANSITIONS: ReadonlyArray<{ from: TerminalStatus | 'none'; trigger: string; to: TerminalStatus }> = [
  { from: 'none', trigger: 'terminal/create answered', to: 'running' },
  { from: 'running', trigger: 'terminal/kill answered', to: 'killed' },
  { from: 'running', trigger: 'exit status seen', to: 'exited' },
  { from: 'running', trigger: 'terminal/release', to: 'released' },
  { from: 'exited', trigger: 'terminal/release', to: 'released' },
  { from: 'killed', trigger: 'terminal/release', to: 'released' },
];

/** Compaction statuses (part 3 "Compaction"); custom values are allowed and are not terminal. */
export const COMPACTION_TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/** Elicitation outcomes (part 3 "Elicitation"): the response `action`, or `complete` for URL mode. */
export type ElicitationStatus = 'pending' | 'accepted' | 'declined' | 'cancelled' | 'complete' | 'answered' | 'failed';
export const ELICITATION_ACTIONS: Readonly<Record<string, ElicitationStatus>> = { accept: 'accepted', decline: 'declined', cancel: 'cancelled' };

/** Session updates that belong to a conversation (must come during a turn or a load replay, part 6). */
export const CONVERSATION_UPDATES: ReadonlySet<string> = new Set([
  'user_message_chunk', 'agent_message_chunk', 'agent_thought_chunk', 'tool_call', 'tool_call_update', 'plan',
]);
