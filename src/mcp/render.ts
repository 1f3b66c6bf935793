/**
 * Compact text for a model's context: the budget every answer keeps to, paging within it, the turn
 * card as Markdown and the protocol model state as a few lines. Pure.
 */
import { createTwoFilesPatch } from 'diff';
import type { ModelState } from '../check/index.js';
import type { TurnDetail } from '../view/contract.js';
import { formatDuration, plural } from '../text/format.js';
import { cutAnswer, excerpt, neutralize, origin, quoted, recordedBlock, recordedJson, token } from './recorded.js';

/** Largest text of one answer, in characters (the issue: under ~20 KB). */
export const TEXT_BUDGET = 18_000;
/** Default and largest page of a list. */
export const PAGE_DEFAULT = 50;
export const PAGE_MAX = 200;

/** Cuts `s` to `n` characters, saying how much was left out. */
export function cut(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n)}… [${s.length - n} more characters]`;
}

/**
 * Takes rows while they fit a page: at most `limit` rows and `budget` characters of text and of
 * JSON. `more` says whether rows were left (then the caller gives a next cursor).
 */
export function takePage<T>(rows: Iterable<{ line: string; data: T }>, limit: number, budget = TEXT_BUDGET - 1500): { lines: string[]; data: T[]; more: boolean } {
  const lines: string[] = [];
  const data: T[] = [];
  let text = 0;
  let json = 0;
  for (const r of rows) {
    const size = JSON.stringify(r.data).length;
    if (data.length >= limit || (data.length > 0 && (text + r.line.length + 1 > budget || json + size > budget))) return { lines, data, more: true };
    lines.push(r.line);
    data.push(r.data);
    text += r.line.length + 1;
    json += size;
  }
  return { lines, data, more: false };
}

const dur = (ms: number | null | undefined) => (ms === null || ms === undefined ? '—' : formatDuration(ms));

/**
 * The turn card as Markdown, within `budget` characters. Our sentences and headings frame it; what
 * the session said (prompt, message, thought, plan, tool output, diffs, names) is in recorded blocks
 * or quoted (recorded.ts).
 */
export function turnMarkdown(t: TurnDetail, findings: { seq: number; severity: string; rule: string; message: string; spec?: string }[], opts: { truncatedItems?: number } = {}, budget = TEXT_BUDGET - 1000): string {
  const out: string[] = [];
  const span: [number, number | null] = [t.seq, t.endSeq];
  out.push(`## Turn ${t.seq}${t.sessionId ? ` in session ${token(t.sessionId)}` : ''}`);
  out.push('', `- **Stop reason:** ${t.stopReason ? token(t.stopReason) : t.endSeq === null ? 'none yet (no response to the prompt)' : 'none'}${t.endSeq !== null ? ` (response #${t.endSeq})` : ''}`);
  out.push(`- **Duration:** ${dur(t.durationMs)}, ${plural(t.items, 'item')}${opts.truncatedItems ? ` (the card covers the first ${opts.truncatedItems}; list_frames with turn:${t.seq} pages through all)` : ''}`);
  if (t.cancelled) out.push(`- **Cancelled:** session/cancel at #${t.cancelled.seq}, ${dur(t.cancelled.t - t.t)} after the prompt`);
  out.push(`- **Findings in the turn:** ${plural(t.findings.error, 'error')}, ${plural(t.findings.warning, 'warning')}, ${t.findings.info} info`);
  out.push('', '### Prompt', '', recordedBlock(t.prompt, origin(t.seq, 'c2a', 'session/prompt text'), 2000));
  const msgBudget = Math.max(1500, Math.floor(budget / 3));
  out.push('', '### Agent message', '', t.message ? recordedBlock(t.message, origin(span, 'a2c', 'agent_message_chunk text joined'), msgBudget) : '_(no agent_message_chunk)_');
  if (t.thought) out.push('', '### Thought', '', recordedBlock(t.thought, origin(span, 'a2c', 'agent_thought_chunk text joined'), 1500));
  if (t.plan) {
    out.push('', '### Plan (last)', '');
    const entries = t.plan.slice(0, 20).map((e) => `- [${e.status === 'completed' ? 'x' : ' '}] ${e.content} (${e.status}${e.priority ? `, ${e.priority}` : ''})`);
    out.push(recordedBlock(entries.join('\n'), origin(span, 'a2c', 'plan entries (content, status, priority)')));
  }
  if (t.toolCalls.length) {
    out.push('', `### Tool calls (${t.toolCalls.length})`, '');
    for (const tc of t.toolCalls.slice(0, 30)) {
      out.push(`- ${token(tc.toolCallId)}${tc.title ? ` titled ${quoted(tc.title)}` : ''}${tc.kind ? ` kind ${token(tc.kind)}` : ''} — ${tc.status ? token(tc.status) : 'no status'} (from #${tc.seq})`);
      if (tc.content.length) {
        out.push(recordedBlock(tc.content.slice(0, 3).map((c) => excerpt(c.replace(/\s+/g, ' '), 300)).join('\n'), origin([tc.seq, t.endSeq], 'a2c', `tool call ${token(tc.toolCallId)} content`)));
      }
      for (const d of tc.diffs.slice(0, 3)) {
        const patch = createTwoFilesPatch(d.path, d.path, d.oldText ?? '', d.newText, undefined, undefined, { context: 2 })
          .split('\n').slice(2).join('\n');
        out.push(recordedBlock(patch, origin([tc.seq, t.endSeq], 'a2c', `tool call ${token(tc.toolCallId)} diff of ${token(d.path)} (unified)`), 1500));
      }
    }
    if (t.toolCalls.length > 30) out.push(`- … ${t.toolCalls.length - 30} more`);
  }
  if (t.permissions.length) {
    out.push('', '### Permission requests', '');
    for (const p of t.permissions.slice(0, 20)) {
      out.push(`- #${p.seq}${p.title ? ` for ${quoted(p.title)}` : ''} — options ${p.options.map(token).join(', ') || '—'}; answer: ${p.outcome ? quoted(p.outcome) : 'none'}; the user took ${dur(p.waitedMs)}`);
    }
  }
  if (t.calls.length) {
    out.push('', '### fs and terminal calls', '');
    for (const c of t.calls.slice(0, 30)) out.push(`- #${c.seq} ${token(c.method)} ${quoted(excerpt(c.summary, 200))} — ${c.error ? `error: ${quoted(c.error)}` : dur(c.latency)}`);
    if (t.calls.length > 30) out.push(`- … ${t.calls.length - 30} more`);
  }
  if (findings.length) {
    out.push('', '### Findings', '');
    for (const f of findings.slice(0, 20)) out.push(`- #${f.seq} ${f.severity} \`${f.rule}\`${f.spec ? ` (spec ${f.spec})` : ''}: ${neutralize(f.message)}`);
    if (findings.length > 20) out.push(`- … ${findings.length - 20} more (list_frames with "turn:${t.seq} has:finding")`);
  }
  return cutAnswer(out.join('\n'), budget);
}

/** The model state as short lines: connection, peers, sessions, terminals, pending requests. */
export function stateText(s: ModelState, sessionFilter?: string): string {
  const out: string[] = [];
  out.push(`connection: ${s.connection}${s.protocolVersion !== undefined ? `, protocol v${s.protocolVersion}` : ''}${s.requestedVersion !== undefined ? ` (client asked v${s.requestedVersion})` : ''}; after item #${s.lastSeq} (${s.frames} frames)`);
  const info = (i: { name?: string; version?: string } | null | undefined) => (i ? quoted(`${i.name ?? '?'} ${i.version ?? ''}`.trim()) : '—');
  out.push(`client: ${info(s.client.info)}; capabilities ${recordedJson(s.client.capabilities ?? {})}`);
  out.push(`agent: ${info(s.agent.info)}; capabilities ${recordedJson(s.agent.capabilities ?? {})}${s.agent.authMethods.length ? `; auth methods ${s.agent.authMethods.map((m) => token(m.id)).join(', ')}` : ''}`);
  out.push(`auth: ${s.auth.status}${s.auth.required ? ' (required)' : ''}`);
  const sessions = Object.values(s.sessions).filter((x) => sessionFilter === undefined || x.id === sessionFilter);
  out.push(`sessions (${sessions.length}):`);
  for (const x of sessions.slice(0, 30)) {
    const open = Object.keys(x.openToolCalls);
    out.push(`  ${token(x.id)}: ${x.status} (${x.origin}); turn ${x.turn}${x.turnSeq !== undefined ? ` since #${x.turnSeq}` : ''}${x.cancelSeq !== undefined ? `, cancel at #${x.cancelSeq}` : ''}; ${x.turns} turns${x.lastStopReason ? `, last stop ${token(x.lastStopReason)}` : ''}`
      + `${x.modes?.current ? `; mode ${token(x.modes.current)}` : ''}; ${Object.keys(x.toolCalls).length} tool calls${open.length ? ` (open: ${open.slice(0, 10).map(token).join(', ')})` : ''}`
      + `${x.plan ? `; plan of ${x.plan.entries} (#${x.plan.seq})` : ''}`);
  }
  if (sessions.length > 30) out.push(`  … ${sessions.length - 30} more (pass session)`);
  const terms = Object.values(s.terminals).filter((t) => sessionFilter === undefined || t.sessionId === sessionFilter);
  if (terms.length) out.push(`terminals: ${terms.slice(0, 30).map((t) => `${token(t.id)} ${t.status} (#${t.seq})`).join('; ')}`);
  const el = Object.values(s.elicitations).filter((e) => sessionFilter === undefined || e.sessionId === sessionFilter);
  if (el.length) out.push(`elicitations: ${el.slice(0, 30).map((e) => `${token(e.key)} ${token(e.mode)} ${e.status} (#${e.seq})`).join('; ')}`);
  const pending = Object.values(s.pending).filter((p) => sessionFilter === undefined || p.sessionId === sessionFilter);
  out.push(`pending requests (${pending.length}): ${pending.slice(0, 30).map((p) => `#${p.seq} ${p.dir === 'c2a' ? 'client→agent' : 'agent→client'} ${token(p.method)} id ${recordedJson(p.id)}`).join('; ') || 'none'}`);
  if (s.closedSeq !== undefined) out.push(`connection closed at #${s.closedSeq}`);
  return cut(out.join('\n'), TEXT_BUDGET - 1000);
}
