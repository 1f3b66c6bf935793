/**
 * What a rule is: spec data (id, severity, section, the spec's sentence) plus small hooks the
 * checker calls. Rules read the state *before* the frame is applied and report findings; they never
 * change the state and never throw (the checker guards them anyway).
 */
import type { Frame, FrameKind, Item } from '../wire/frame.js';
import type { MethodSpec } from '../spec/methods.js';
import type { SchemaResult } from '../spec/schema.js';
import type { ModelState, PendingRequest } from './model.js';

export type Severity = 'error' | 'warning' | 'info';

/** Description of one rule, for reports and the UI. */
export interface RuleInfo {
  id: string;
  severity: Severity;
  /** Spec section, e.g. "4.4 rule 4". */
  spec: string;
  title: string;
  /** The spec's sentence this rule enforces. */
  specText: string;
}

/** Everything a rule may look at for one frame. */
export interface FrameContext {
  frame: Frame;
  /** The frame's JSON when it is an object. */
  msg: Record<string, unknown> | undefined;
  /** Method of a request/notification, or of the request a response answers. */
  method: string | undefined;
  /** Method table entry, when the method is known. */
  spec: MethodSpec | undefined;
  /** `params` when an object. */
  params: Record<string, unknown> | undefined;
  /** For responses: the request answered (found in the state before this frame). */
  req: PendingRequest | undefined;
  /** State before this frame. */
  state: ModelState;
  /** Schema validation of params (requests, notifications) or result (results); computed once, lazily. */
  schema(): SchemaResult | undefined;
  /** Report a finding for the current rule at this frame (or at `seq`). */
  report(message: string, opts?: { seq?: number; spec?: string; severity?: Severity }): void;
  /** True the first time this rule asks for `key` on this connection (to report something once). */
  once(key: string): boolean;
  /** This rule's own memory over the recording (what it tallies to report at the end); the same map in `end`. */
  memory<T>(): Map<string, T>;
}

export interface EndContext {
  state: ModelState;
  report(message: string, opts: { seq: number; spec?: string; severity?: Severity }): void;
  /** The rule's memory (FrameContext.memory). */
  memory<T>(): Map<string, T>;
}

export interface ItemContext {
  item: Item;
  state: ModelState;
  report(message: string, opts?: { seq?: number; spec?: string; severity?: Severity }): void;
  /** The rule's memory (FrameContext.memory). */
  memory<T>(): Map<string, T>;
}

export interface Rule extends RuleInfo {
  /** Only for frames whose method (or answered request's method) is one of these. */
  methods?: readonly string[];
  /**
   * Only for `session/update` notifications whose `update.sessionUpdate` is one of these (with
   * `methods: ['session/update']`): the checker dispatches them by update kind, so an update meets
   * only the rules about its kind.
   */
  updates?: readonly string[];
  /** Only for frames of these kinds. */
  kinds?: readonly FrameKind[];
  /**
   * `wire`: JSON-RPC level rules, valid whatever protocol version was negotiated. Other rules are
   * ACP v1 rules: when another version is negotiated their findings become `info`.
   */
  layer?: 'wire';
  check?(ctx: FrameContext): void;
  /** Non-frame items (stderr lines, lifecycle events). */
  item?(ctx: ItemContext): void;
  end?(ctx: EndContext): void;
}

export function defineRule(r: Rule): Rule {
  return r;
}
