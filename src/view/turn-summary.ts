/**
 * Folds the items of one prompt turn into what a reader wants at a glance: the prompt, the streamed
 * agent message assembled into text, tool calls with their latest status and diffs, the plan,
 * permission requests with the time spent waiting, fs/terminal calls, cancel and stop reason.
 * Pure: items in, a TurnDetail out.
 */
import type { Item, Frame } from '../wire/frame.js';
import type { TurnDetail, TurnInfo, TurnToolCall, StoredFinding } from './contract.js';
import { textOfBlocks } from './preview.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

function applyToolCall(calls: Map<string, TurnToolCall>, u: Obj, seq: number): void {
  const id = String(u.toolCallId ?? '');
  let tc = calls.get(id);
  if (!tc) {
    tc = { toolCallId: id, title: null, kind: null, status: null, seq, diffs: [], content: [], terminals: [] };
    calls.set(id, tc);
  }
  if (typeof u.title === 'string') tc.title = u.title;
  if (typeof u.kind === 'string') tc.kind = u.kind;
  if (typeof u.status === 'string') tc.status = u.status;
  if (Array.isArray(u.content)) {
    // Content of an update replaces the tool call's content (ACP: fields present replace).
    tc.diffs = [];
    tc.content = [];
    tc.terminals = [];
    for (const c of u.content) {
      if (!isObj(c)) continue;
      if (c.type === 'diff') {
        tc.diffs.push({ path: String(c.path ?? ''), oldText: typeof c.oldText === 'string' ? c.oldText : null, newText: String(c.newText ?? '') });
      } else if (c.type === 'terminal') {
        tc.content.push(`terminal ${String(c.terminalId ?? '')}`);
        if (typeof c.terminalId === 'string') tc.terminals.push(c.terminalId);
      } else if (c.type === 'content') {
        const text = textOfBlocks(c.content);
        if (text) tc.content.push(text);
      }
    }
  }
}

export function summarizeTurn(turn: TurnInfo, items: Item[], findings: StoredFinding[]): TurnDetail {
  let message = '';
  let thought = '';
  // A new paragraph when the message id changes or other updates came between two chunks.
  let lastMessageId: unknown;
  let interrupted = false;
  const appendMessage = (text: string, messageId: unknown) => {
    if (message && (interrupted || (messageId !== undefined && messageId !== lastMessageId)) && !message.endsWith('\n\n')) {
      message = `${message.trimEnd()}\n\n`;
      text = text.trimStart();
    }
    message += text;
    lastMessageId = messageId;
    interrupted = false;
  };
  const calls = new Map<string, TurnToolCall>();
  let plan: TurnDetail['plan'] = null;
  const permissions: TurnDetail['permissions'] = [];
  const fsCalls: TurnDetail['calls'] = [];
  let cancelled: TurnDetail['cancelled'] = null;
  const bySeq = new Map<number, Frame>();
  for (const it of items) {
    if (it.dir !== 'c2a' && it.dir !== 'a2c') continue;
    const f = it as Frame;
    bySeq.set(f.seq, f);
    const j = isObj(f.json) ? f.json : undefined;
    const params = j && isObj(j.params) ? j.params : undefined;
    if (f.kind === 'notification' && f.method === 'session/update' && params && isObj(params.update)) {
      const u = params.update;
      if (u.sessionUpdate !== 'agent_message_chunk' && u.sessionUpdate !== 'agent_thought_chunk') interrupted = true;
      switch (u.sessionUpdate) {
        case 'agent_message_chunk': appendMessage(textOfBlocks(u.content), u.messageId ?? undefined); break;
        case 'agent_thought_chunk': thought += textOfBlocks(u.content); break;
        case 'tool_call':
        case 'tool_call_update': applyToolCall(calls, u, f.seq); break;
        case 'plan':
          if (Array.isArray(u.entries)) {
            plan = u.entries.filter(isObj).map((e) => ({
              content: String(e.content ?? ''), status: String(e.status ?? ''), ...(typeof e.priority === 'string' ? { priority: e.priority } : {}),
            }));
          }
          break;
        default: break;
      }
    } else if (f.kind === 'request' && f.dir === 'a2c') {
      interrupted = true;
    }
    if (f.kind === 'notification' && f.method === 'session/cancel') {
      cancelled ??= { seq: f.seq, t: f.t };
    } else if (f.kind === 'request' && f.method === 'session/request_permission' && params) {
      const tc = isObj(params.toolCall) ? params.toolCall : {};
      if (isObj(params.toolCall) && typeof tc.toolCallId === 'string') applyToolCall(calls, tc, f.seq);
      permissions.push({
        seq: f.seq,
        title: typeof tc.title === 'string' ? tc.title : (calls.get(String(tc.toolCallId ?? ''))?.title ?? null),
        options: Array.isArray(params.options) ? params.options.filter(isObj).map((o) => String(o.optionId ?? o.name ?? '')) : [],
        outcome: null, waitedMs: null,
      });
    } else if (f.kind === 'request' && f.method && /^(fs|terminal)\//.test(f.method) && params) {
      const summary = f.method.startsWith('fs/') ? String(params.path ?? '')
        : f.method === 'terminal/create' ? [params.command, ...(Array.isArray(params.args) ? params.args : [])].map(String).join(' ')
          : String(params.terminalId ?? '');
      fsCalls.push({ seq: f.seq, method: f.method, summary, latency: null, error: null });
    } else if ((f.kind === 'result' || f.kind === 'error') && f.replyTo !== undefined) {
      const p = permissions.find((x) => x.seq === f.replyTo);
      if (p) {
        p.waitedMs = f.latency ?? null;
        const out = j && isObj(j.result) && isObj(j.result.outcome) ? j.result.outcome : undefined;
        p.outcome = f.kind === 'error' ? 'error' : out ? `${String(out.outcome ?? '')}${out.optionId ? ` ${String(out.optionId)}` : ''}` : null;
      }
      const c = fsCalls.find((x) => x.seq === f.replyTo);
      if (c) {
        c.latency = f.latency ?? null;
        if (f.kind === 'error') c.error = j && isObj(j.error) ? String(j.error.message ?? j.error.code ?? 'error') : 'error';
      }
    }
  }
  const counts = { error: 0, warning: 0, info: 0 };
  for (const fd of findings) counts[fd.severity]++;
  return {
    ...turn, message, thought, toolCalls: [...calls.values()], plan, permissions, calls: fsCalls, cancelled,
    items: items.length, findings: counts,
  };
}

/** A turn's summary as it stood after item `upTo` (the playhead): later items left out, not yet ended. */
export function summarizeTurnAt(turn: TurnInfo, items: Item[], findings: StoredFinding[], upTo?: number): TurnDetail {
  if (upTo === undefined || (turn.endSeq !== null && upTo >= turn.endSeq)) return summarizeTurn(turn, items, findings);
  const open: TurnInfo = { ...turn, endSeq: null, durationMs: null, stopReason: null };
  return summarizeTurn(open, items.filter((i) => i.seq <= upTo), findings.filter((f) => f.seq <= upTo));
}
