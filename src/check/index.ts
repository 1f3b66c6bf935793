/**
 * check/: the protocol model and checker. A pure fold over recorded items (frames, stderr lines,
 * events) that tracks the state of one ACP connection (model.ts, following spec part 3) and reports
 * spec violations as findings (rules/, one rule per file, each citing its section of the spec).
 * No IO, no clock; never throws on bad traffic. The CLI command and the store hook live elsewhere.
 */
import type { Item } from '../wire/frame.js';
import type { Recording } from '../transcript/format.js';
import { checkItems, createChecker, type CheckOptions, type Checker, type Finding } from './checker.js';
import { initialState, type ModelState, stepModel } from './model.js';
export { stepModel, restoreState, initialState } from './model.js';

export type { CheckOptions, Checker, CheckerSnapshot, Finding } from './checker.js';
export type { ModelState, SessionState, PendingRequest, TerminalState, ElicitationState, ToolCallState, CompactionState } from './model.js';
export type { RuleInfo, Severity } from './rule.js';
export { createChecker } from './checker.js';
/** For a bundle of the checker (scripts/bundle-check.js): its own copy of the schemas takes the prebuilt validators. */
export { installPrebuiltValidators } from '../spec/schema.js';

export { RULES } from './rule-list.js';

/** All findings of a recording, sorted by seq. */
export function checkRecording(rec: Recording, opts?: CheckOptions): Finding[] {
  return checkItems(rec.items, opts);
}

/**
 * The model state after item `seq`, by refolding the model from the start (no rules run, so this
 * is much faster than checking). Returns a copy.
 */
export function stateAt(items: Iterable<Item>, seq: number): ModelState {
  const s = initialState();
  for (const item of items) {
    if (item.seq > seq) break;
    stepModel(s, item);
  }
  return structuredClone(s);
}

/** One short line describing a state, e.g. "init v1 · 1 session · turn running · 2 pending". */
export function summarizeState(state: ModelState): string {
  const parts: string[] = [];
  if (state.connection === 'initialized') parts.push(`init v${state.protocolVersion ?? '?'}`);
  else if (state.connection === 'initializing') parts.push('initializing');
  else parts.push('not initialized');
  if (state.auth.status === 'authenticated') parts.push('authenticated');
  else if (state.auth.status === 'logged-out') parts.push('logged out');
  else if (state.auth.required) parts.push('auth required');
  const sessions = Object.values(state.sessions);
  const open = sessions.filter((x) => x.status !== 'closed' && x.status !== 'deleted');
  parts.push(`${open.length} session${open.length === 1 ? '' : 's'}`);
  const running = open.filter((x) => x.turn !== 'idle');
  if (running.length === 1) parts.push(running[0]!.turn === 'running' ? 'turn running' : 'turn cancelling');
  else if (running.length > 1) parts.push(`${running.length} turns running`);
  else if (open.length) parts.push('idle');
  const terms = state.openTerminals ?? 0;
  if (terms) parts.push(`${terms} terminal${terms === 1 ? '' : 's'}`);
  const pending = state.pendingCount.c2a + state.pendingCount.a2c;
  if (pending) parts.push(`${pending} pending`);
  return parts.join(' · ');
}
