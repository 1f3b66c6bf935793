/**
 * Compact text for a model's context: the budget every answer keeps to, paging within it, the turn
 * card as Markdown and the protocol model state as a few lines. Pure.
 */
import { createTwoFilesPatch } from 'diff';
import type { ModelState } from '../check/index.js';
import type { TurnDetail } from '../view/contract.js';
import { formatDuration } from '../text/format.js';

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

/** The turn card as Markdown, within `budget` characters. */
export function turnMarkdown(t: TurnDetail, findings: { seq: number; severity: string; rule: string; message: string; spec?: string }[], opts: { truncatedItems?: number } = {}, budget = TEXT_BUDGET - 1000): string {
  const out: string[] = [];
  out.push(`## Turn ${t.seq}${t.sessionId ? ` in session ${t.sessionId}` : ''}`);
  out.push('', `- **Stop reason:** ${t.stopReason ?? (t.endSeq === null ? 'none yet (no response to the prompt)' : 'none')}${t.endSeq !== null ? ` (response #${t.endSeq})` : ''}`);
  out.push(`- **Duration:** ${dur(t.durationMs)}, ${t.items} items${opts.truncatedItems ? ` (the card covers the first ${opts.truncatedItems}; list_frames with turn:${t.seq} pages through all)` : ''}`);
  if (t.cancelled) out.push(`- **Cancelled:** session/cancel at #${t.cancelled.seq}, ${dur(t.cancelled.t - t.t)} after the prompt`);
  out.push(`- **Findings in the turn:** ${t.findings.error} errors, ${t.findings.warning} warnings, ${t.findings.info} info`);
  out.push('', '### Prompt', '', quote(cut(t.prompt, 2000)));
  const msgBudget = Math.max(1500, Math.floor(budget / 3));
  out.push('', '### Agent message', '', t.message ? cut(t.message, msgBudget) : '_(no agent_message_chunk)_');
  if (t.thought) out.push('', '### Thought', '', quote(cut(t.thought, 1500)));
  if (t.plan) {
    out.push('', '### Plan (last)', '');
    for (const e of t.plan.slice(0, 20)) out.push(`- [${e.status === 'completed' ? 'x' : ' '}] ${e.content} (${e.status}${e.priority ? `, ${e.priority}` : ''})`);
  }
  if (t.toolCalls.length) {
    out.push('', `### Tool calls (${t.toolCalls.length})`, '');
    for (const tc of t.toolCalls.slice(0, 30)) {
      out.push(`- \`${tc.toolCallId}\` ${tc.title ? `**${tc.title}**` : ''} ${tc.kind ?? ''} — ${tc.status ?? 'no status'} (from #${tc.seq})`.replace(/ +/g, ' '));
      for (const c of tc.content.slice(0, 3)) out.push(`  - ${cut(c.replace(/\s+/g, ' '), 300)}`);
      for (const d of tc.diffs.slice(0, 3)) {
        const patch = createTwoFilesPatch(d.path, d.path, d.oldText ?? '', d.newText, undefined, undefined, { context: 2 })
          .split('\n').slice(2).join('\n');
        out.push('', '  ```diff', ...cut(patch, 1500).split('\n').map((l) => `  ${l}`), '  ```');
      }
    }
    if (t.toolCalls.length > 30) out.push(`- … ${t.toolCalls.length - 30} more`);
  }
  if (t.permissions.length) {
    out.push('', '### Permission requests', '');
    for (const p of t.permissions.slice(0, 20)) {
      out.push(`- #${p.seq} ${p.title ?? ''} — options ${p.options.join(', ') || '—'}; answer: ${p.outcome ?? 'none'}; the user took ${dur(p.waitedMs)}`);
    }
  }
  if (t.calls.length) {
    out.push('', '### fs and terminal calls', '');
    for (const c of t.calls.slice(0, 30)) out.push(`- #${c.seq} ${c.method} ${cut(c.summary, 200)} — ${c.error ? `error: ${c.error}` : dur(c.latency)}`);
    if (t.calls.length > 30) out.push(`- … ${t.calls.length - 30} more`);
  }
  if (findings.length) {
    out.push('', '### Findings', '');
    for (const f of findings.slice(0, 20)) out.push(`- #${f.seq} ${f.severity} \`${f.rule}\`${f.spec ? ` (spec ${f.spec})` : ''}: ${f.message}`);
    if (findings.length > 20) out.push(`- … ${findings.length - 20} more (list_frames with "turn:${t.seq} has:finding")`);
  }
  return cut(out.join('\n'), budget);
}

function quote(s: string): string {
  return s.split('\n').map((l) => `> ${l}`).join('\n');
}

/** The model state as short lines: connection, peers, sessions, terminals, pending requests. */
export function stateText(s: ModelState, sessionFilter?: string): string {
  const out: string[] = [];
  out.push(`connection: ${s.connection}${s.protocolVersion !== undefined ? `, protocol v${s.protocolVersion}` : ''}${s.requestedVersion !== undefined ? ` (client asked v${s.requestedVersion})` : ''}; after item #${s.lastSeq} (${s.frames} frames)`);
  const info = (i: { name?: string; version?: string } | null | undefined) => (i ? `${i.name ?? '?'} ${i.version ?? ''}`.trim() : '—');
  out.push(`client: ${info(s.client.info)}; capabilities ${JSON.stringify(s.client.capabilities ?? {})}`);
  out.push(`agent: ${info(s.agent.info)}; capabilities ${JSON.stringify(s.agent.capabilities ?? {})}${s.agent.authMethods.length ? `; auth methods ${s.agent.authMethods.map((m) => m.id).join(', ')}` : ''}`);
  out.push(`auth: ${s.auth.status}${s.auth.required ? ' (required)' : ''}`);
  const sessions = Object.values(s.sessions).filter((x) => sessionFilter === undefined || x.id === sessionFilter);
  out.push(`sessions (${sessions.length}):`);
  for (const x of sessions.slice(0, 30)) {
    const open = Object.keys(x.openToolCalls);
    out.push(`  ${x.id}: ${x.status} (${x.origin}); turn ${x.turn}${x.turnSeq !== undefined ? ` since #${x.turnSeq}` : ''}${x.cancelSeq !== undefined ? `, cancel at #${x.cancelSeq}` : ''}; ${x.turns} turns${x.lastStopReason ? `, last stop ${x.lastStopReason}` : ''}`
      + `${x.modes?.current ? `; mode ${x.modes.current}` : ''}; ${Object.keys(x.toolCalls).length} tool calls${open.length ? ` (open: ${open.slice(0, 10).join(', ')})` : ''}`
      + `${x.plan ? `; plan of ${x.plan.entries} (#${x.plan.seq})` : ''}`);
  }
  if (sessions.length > 30) out.push(`  … ${sessions.length - 30} more (pass session)`);
  const terms = Object.values(s.terminals).filter((t) => sessionFilter === undefined || t.sessionId === sessionFilter);
  if (terms.length) out.push(`terminals: ${terms.slice(0, 30).map((t) => `${t.id} ${t.status} (#${t.seq})`).join('; ')}`);
  const el = Object.values(s.elicitations).filter((e) => sessionFilter === undefined || e.sessionId === sessionFilter);
  if (el.length) out.push(`elicitations: ${el.slice(0, 30).map((e) => `${e.key} ${e.mode} ${e.status} (#${e.seq})`).join('; ')}`);
  const pending = Object.values(s.pending).filter((p) => sessionFilter === undefined || p.sessionId === sessionFilter);
  out.push(`pending requests (${pending.length}): ${pending.slice(0, 30).map((p) => `#${p.seq} ${p.dir === 'c2a' ? 'client→agent' : 'agent→client'} ${p.method} id ${JSON.stringify(p.id)}`).join('; ') || 'none'}`);
  if (s.closedSeq !== undefined) out.push(`connection closed at #${s.closedSeq}`);
  return cut(out.join('\n'), TEXT_BUDGET - 1000);
}
