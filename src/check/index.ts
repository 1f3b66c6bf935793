/**
 * check/: the protocol model and checker. A pure fold over recorded items (frames, stderr lines,
 * events) that tracks the protocol state of one connection and reports spec violations as findings.
 * No IO, no clock; never throws on bad traffic. (Provisional minimal version: interface first.)
 */
import type { Item } from '../wire/frame.js';
import type { Recording } from '../transcript/format.js';

/** One spec violation or notable event, tied to the item (`seq`) where it was seen. */
export interface Finding {
  seq: number;
  severity: 'error' | 'warning' | 'info';
  rule: string;
  message: string;
  /** Section of the spec, e.g. "4.4 rule 4". */
  spec: string;
}

export interface CheckOptions {
  /** Rule ids to silence. */
  ignore?: string[];
}

/** Description of one rule, for reports and the UI. */
export interface RuleInfo {
  id: string;
  severity: 'error' | 'warning' | 'info';
  /** Spec section, e.g. "4.4 rule 4". */
  spec: string;
  title: string;
  /** The spec's sentence this rule enforces. */
  specText: string;
}

/** Protocol state of one connection (JSON-serializable; treat as read-only). */
export interface ModelState {
  connection: 'new' | 'initializing' | 'initialized' | 'closed';
  protocolVersion?: number;
  /** Items seen so far. */
  items: number;
  pending: { c2a: number; a2c: number };
  sessions: Record<string, { status: string; turn: string }>;
  [key: string]: unknown;
}

export interface Checker {
  /** Constant work per item; never throws, whatever the input. */
  step(item: Item): Finding[];
  /** End of recording: unanswered requests, turns never ended, ... */
  end(): Finding[];
  readonly state: ModelState;
}

export const RULES: RuleInfo[] = [];

export function createChecker(_opts?: CheckOptions): Checker {
  const state: ModelState = { connection: 'new', items: 0, pending: { c2a: 0, a2c: 0 }, sessions: {} };
  return {
    step(_item: Item): Finding[] {
      state.items++;
      return [];
    },
    end(): Finding[] {
      return [];
    },
    get state() {
      return state;
    },
  };
}

/** All findings of a recording, sorted by seq. */
export function checkRecording(rec: Recording, opts?: CheckOptions): Finding[] {
  const c = createChecker(opts);
  const out: Finding[] = [];
  for (const item of rec.items) out.push(...c.step(item));
  out.push(...c.end());
  return out.sort((a, b) => a.seq - b.seq);
}

/** The model state after item `seq` (refolds from the start). */
export function stateAt(items: Iterable<Item>, seq: number): ModelState {
  const c = createChecker();
  for (const item of items) {
    if (item.seq > seq) break;
    c.step(item);
  }
  return structuredClone(c.state);
}

/** One short line describing a state, e.g. "init v1 · 1 session · turn running · 2 pending". */
export function summarizeState(state: ModelState): string {
  const parts = [state.connection === 'initialized' ? `init v${state.protocolVersion ?? '?'}` : state.connection];
  const n = Object.keys(state.sessions).length;
  parts.push(`${n} session${n === 1 ? '' : 's'}`);
  const pending = state.pending.c2a + state.pending.a2c;
  if (pending) parts.push(`${pending} pending`);
  return parts.join(' · ');
}
