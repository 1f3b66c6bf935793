/**
 * Prompt turns, shared by the server (over SQL rows) and the in-memory source: a turn's one-line
 * info from its session/prompt request and response, and turns laid over a filtered timeline.
 * Pure.
 */
import type { TimelineGroups, TurnInfo } from './contract.js';
import { textOfBlocks } from './preview.js';

/** A turn from its prompt request and its response (null while it runs). */
export function turnInfoOf(p: { seq: number; t: number; sessionId: string | null; raw: string },
  r: { seq: number; t: number; raw: string; kind: string } | null): TurnInfo {
  let prompt = '';
  try { prompt = textOfBlocks((JSON.parse(p.raw) as { params?: { prompt?: unknown } }).params?.prompt); } catch { /* not JSON */ }
  let stopReason: string | null = null;
  if (r && r.raw) {
    try {
      const j = JSON.parse(r.raw) as { result?: { stopReason?: unknown }; error?: { message?: unknown } };
      stopReason = typeof j.result?.stopReason === 'string' ? j.result.stopReason : r.kind === 'error' ? `error: ${String(j.error?.message ?? '')}` : null;
    } catch { /* not JSON */ }
  }
  return {
    seq: p.seq, sessionId: p.sessionId, endSeq: r ? r.seq : null, t: p.t,
    durationMs: r ? r.t - p.t : null, stopReason, prompt: prompt.length > 300 ? `${prompt.slice(0, 299)}…` : prompt,
  };
}

export function lowerBound(a: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! < x) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/**
 * Prompt turns laid over the filtered timeline (`seqs`, ascending): for each turn the range
 * [from, to) of list indices it holds, and where each session first appears (`firsts`, by seq).
 * A turn runs from its session/prompt request to its response; when turns of two sessions overlap
 * in time, a turn's range stops where the next turn starts (the list stays in seq order). Turns
 * with no item in the list are left out.
 */
export function layTurns(seqs: ArrayLike<number>, turns: TurnInfo[], firsts: { sessionId: string; seq: number }[]): TimelineGroups {
  const out: TimelineGroups['turns'] = [];
  for (let k = 0; k < turns.length; k++) {
    const t = turns[k]!;
    const next = turns[k + 1]?.seq ?? Number.MAX_SAFE_INTEGER;
    const end = Math.min(t.endSeq ?? Number.MAX_SAFE_INTEGER, next - 1);
    const from = lowerBound(seqs, t.seq);
    const to = lowerBound(seqs, end + 1);
    if (to > from) out.push({ ...t, prompt: t.prompt.length > 160 ? `${t.prompt.slice(0, 159)}…` : t.prompt, from, to });
  }
  const sessions = firsts.map((x) => ({ sessionId: x.sessionId, from: lowerBound(seqs, x.seq) }));
  return { total: seqs.length, turns: out, sessions };
}
