/**
 * `--merge-chunks`: streamed message chunks compared as whole messages. A model that splits the same
 * answer into other chunks (or other numbers of chunks) is equivalent; a different text is one
 * `changed` divergence on the merged text instead of many chunk-level ones. Pure.
 */
import type { Frame } from '../wire/frame.js';
import { updateKind, type Divergence } from './aligner.js';
import { diffJson, type IgnoreSet } from './json-diff.js';
import type { VolatileMap } from './volatile.js';

/** Session update kinds that stream text in pieces (ACP-FACTS: content chunks). */
export const CHUNK_KINDS: ReadonlySet<string> = new Set(['agent_message_chunk', 'agent_thought_chunk', 'user_message_chunk']);

function chunkText(f: Frame): string | undefined {
  const c = (f.json as { params?: { update?: { content?: { type?: unknown; text?: unknown } } } } | undefined)?.params?.update?.content;
  return c && c.type === 'text' && typeof c.text === 'string' ? c.text : undefined;
}

/** A streamed text chunk (the frames `mergeChunkDivergences` merges). */
export function isTextChunk(f: Frame): boolean {
  const k = updateKind(f);
  return f.kind === 'notification' && k !== undefined && CHUNK_KINDS.has(k) && chunkText(f) !== undefined;
}

function groupKey(f: Frame, sessionId: string | undefined): string {
  return `${f.dir} ${updateKind(f)} ${sessionId ?? ''}`;
}

/** A copy of `f` whose text content is `text` (for reporting a merged message). */
function withText(f: Frame, text: string): Frame {
  const j = JSON.parse(JSON.stringify(f.json)) as { params: { update: { content: { text: string } } } };
  j.params.update.content.text = text;
  return { ...f, json: j, raw: JSON.stringify(j) };
}

/**
 * Replaces the divergences that concern text chunks with at most one per (direction, kind, session):
 * none when the concatenated texts are equal, else one `changed` on the merged texts.
 */
export function mergeChunkDivergences(
  divergences: readonly Divergence[],
  recorded: readonly Frame[],
  live: readonly Frame[],
  opts: { map: VolatileMap; ignore?: IgnoreSet },
): Divergence[] {
  const concerns = (d: Divergence): Frame => (d.kind === 'extra' ? d.live : d.recorded);
  const touched = new Set<string>();
  for (const d of divergences) {
    const f = concerns(d);
    if (!isTextChunk(f)) continue;
    if (d.kind === 'changed' && d.diffs.some((x) => x.path !== 'params.update.content.text')) continue;
    const sid = d.kind === 'extra' && f.sessionId !== undefined ? (opts.map.recordedId(f.sessionId) ?? f.sessionId) : f.sessionId;
    touched.add(groupKey(f, sid));
  }
  if (touched.size === 0) return [...divergences];
  const recText = new Map<string, { first: Frame; text: string }>();
  const liveText = new Map<string, { first: Frame; text: string }>();
  const add = (m: typeof recText, f: Frame, sid: string | undefined): void => {
    const k = groupKey(f, sid);
    if (!touched.has(k)) return;
    const e = m.get(k);
    if (e) e.text += chunkText(f)!;
    else m.set(k, { first: f, text: chunkText(f)! });
  };
  for (const f of recorded) if (isTextChunk(f)) add(recText, f, f.sessionId);
  for (const f of live) if (isTextChunk(f)) add(liveText, f, f.sessionId !== undefined ? (opts.map.recordedId(f.sessionId) ?? f.sessionId) : undefined);
  const out = divergences.filter((d) => {
    const f = concerns(d);
    if (!isTextChunk(f)) return true;
    if (d.kind === 'changed' && d.diffs.some((x) => x.path !== 'params.update.content.text')) return true;
    const sid = d.kind === 'extra' && f.sessionId !== undefined ? (opts.map.recordedId(f.sessionId) ?? f.sessionId) : f.sessionId;
    return !touched.has(groupKey(f, sid));
  });
  for (const k of touched) {
    const r = recText.get(k);
    const l = liveText.get(k);
    if (r && l) {
      const rf = withText(r.first, r.text);
      const lf = withText(l.first, opts.map.mapPathString(l.text, false));
      const diffs = diffJson(rf.json, lf.json, { map: opts.map, ignore: opts.ignore });
      if (diffs.length > 0) out.push({ kind: 'changed', recorded: rf, live: lf, diffs });
    } else if (r) {
      out.push({ kind: 'missing', recorded: withText(r.first, r.text), reason: 'no such message in the live run (chunks merged)' });
    } else if (l) {
      out.push({ kind: 'extra', live: withText(l.first, l.text), reason: 'no such message in the recording (chunks merged)', diffs: [] });
    }
  }
  return out;
}
