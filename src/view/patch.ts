/**
 * For session updates that patch an entity announced earlier (tool call updates, plans, config
 * options, compactions), the entity before and after the update, so the UI can show a diff.
 * Pure: the current frame and the earlier frames of the same session in, before/after out.
 */
import type { Frame } from '../wire/frame.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

export interface PatchTarget {
  entity: 'toolCall' | 'plan' | 'configOptions' | 'compaction' | 'mode';
  key: string;
  /** A LIKE pattern narrowing the earlier frames worth reading (by raw text). */
  like: string;
}

export function updateOf(f: Frame): Obj | undefined {
  const j = isObj(f.json) ? f.json : undefined;
  if (!j || f.method !== 'session/update' || !isObj(j.params) || !isObj(j.params.update)) return undefined;
  return j.params.update;
}

/** Which entity `f` patches, if any. */
export function patchTarget(f: Frame): PatchTarget | undefined {
  const u = updateOf(f);
  if (!u) return undefined;
  switch (u.sessionUpdate) {
    case 'tool_call':
    case 'tool_call_update':
      return typeof u.toolCallId === 'string' ? { entity: 'toolCall', key: u.toolCallId, like: `%${u.toolCallId}%` } : undefined;
    case 'plan':
    case 'plan_update':
      return { entity: 'plan', key: 'plan', like: '%plan%' };
    case 'config_option_update':
      return { entity: 'configOptions', key: 'configOptions', like: '%config_option%' };
    case 'current_mode_update':
      return { entity: 'mode', key: 'mode', like: '%current_mode_update%' };
    case 'compaction_update':
    case 'compaction_summary_chunk':
      return typeof u.compactionId === 'string' ? { entity: 'compaction', key: u.compactionId, like: `%${u.compactionId}%` } : undefined;
    default:
      return undefined;
  }
}

/** Applies one frame to the entity value (undefined when the frame does not touch it). */
function apply(target: PatchTarget, value: unknown, f: Frame): { value: unknown; touched: boolean } {
  const u = updateOf(f);
  if (!u) return { value, touched: false };
  switch (target.entity) {
    case 'toolCall': {
      if ((u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') && u.toolCallId === target.key) {
        const { sessionUpdate: _s, ...fields } = u;
        // tool_call starts the entity; tool_call_update overwrites the fields it carries.
        return { value: u.sessionUpdate === 'tool_call' ? fields : { ...(isObj(value) ? value : {}), ...fields }, touched: true };
      }
      return { value, touched: false };
    }
    case 'plan':
      if (u.sessionUpdate === 'plan' || u.sessionUpdate === 'plan_update') return { value: u.entries ?? u.plan ?? u, touched: true };
      if (u.sessionUpdate === 'plan_removed') return { value: null, touched: true };
      return { value, touched: false };
    case 'configOptions':
      return u.sessionUpdate === 'config_option_update' ? { value: u.configOptions, touched: true } : { value, touched: false };
    case 'mode':
      return u.sessionUpdate === 'current_mode_update' ? { value: u.currentModeId, touched: true } : { value, touched: false };
    case 'compaction': {
      if (u.compactionId !== target.key) return { value, touched: false };
      const prev = isObj(value) ? value : {};
      if (u.sessionUpdate === 'compaction_update') {
        const { sessionUpdate: _s, ...fields } = u;
        return { value: { ...prev, ...fields }, touched: true };
      }
      const summary = Array.isArray(prev.summary) ? prev.summary : [];
      return { value: { ...prev, summary: [...summary, u.content] }, touched: true };
    }
  }
}

/**
 * True when `f` sets the entity whatever it was before (a `tool_call` announcing it, a plan, the
 * config options, the mode): the frames before it then cannot change the patch, so a reader going
 * backwards may stop there. A compaction is built up from all its frames and never starts over.
 */
export function startsEntity(target: PatchTarget, f: Frame): boolean {
  const u = updateOf(f);
  if (!u) return false;
  switch (target.entity) {
    case 'toolCall': return u.sessionUpdate === 'tool_call' && u.toolCallId === target.key;
    case 'plan': return u.sessionUpdate === 'plan' || u.sessionUpdate === 'plan_update' || u.sessionUpdate === 'plan_removed';
    case 'configOptions': return u.sessionUpdate === 'config_option_update';
    case 'mode': return u.sessionUpdate === 'current_mode_update';
    case 'compaction': return false;
  }
}

/** Entity before and after `current`, folding the earlier frames (oldest first) that touch it. */
export function entityPatch(target: PatchTarget, earlier: Frame[], current: Frame):
  { entity: string; key: string; before: unknown; after: unknown; previousSeq: number | null } {
  let value: unknown = undefined;
  let previousSeq: number | null = null;
  for (const f of earlier) {
    const r = apply(target, value, f);
    if (r.touched) { value = r.value; previousSeq = f.seq; }
  }
  const after = apply(target, value, current).value;
  return { entity: target.entity, key: target.key, before: value ?? null, after: after ?? null, previousSeq };
}
