/**
 * One-line previews of items for the timeline: what a reader wants to see without opening the frame
 * (the update kind and its text, the prompt, the tool call title and status, the error message...).
 * Pure: raw text in, a short string out.
 */
const MAX = 160;
/** Frames larger than this are previewed from their first characters without parsing. */
const PARSE_LIMIT = 256 * 1024;

function clip(s: string, n = MAX): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}

function textOfBlock(b: unknown): string {
  if (!b || typeof b !== 'object') return '';
  const o = b as Record<string, unknown>;
  if (o.type === 'text' && typeof o.text === 'string') return o.text;
  if (o.type === 'resource_link') return `[${String(o.name ?? o.uri ?? 'link')}]`;
  if (o.type === 'resource') return `[resource ${String((o.resource as Record<string, unknown> | undefined)?.uri ?? '')}]`;
  if (typeof o.type === 'string') return `[${o.type}]`;
  return '';
}

/** Text of a ContentBlock list (text blocks joined; other blocks named). */
export function textOfBlocks(blocks: unknown): string {
  if (!Array.isArray(blocks)) return textOfBlock(blocks);
  return blocks.map(textOfBlock).filter(Boolean).join(' ');
}

function previewUpdate(u: Record<string, unknown>): string {
  const kind = String(u.sessionUpdate ?? '?');
  switch (kind) {
    case 'agent_message_chunk':
    case 'user_message_chunk':
    case 'agent_thought_chunk':
      return `${kind} ${JSON.stringify(clip(textOfBlock(u.content), 120))}`;
    case 'tool_call':
    case 'tool_call_update':
      return `${kind} ${[u.toolCallId, u.title ? JSON.stringify(u.title) : '', u.kind, u.status].filter(Boolean).join(' ')}`;
    case 'plan':
      return `plan ${Array.isArray(u.entries) ? `${u.entries.length} entries` : ''}`;
    case 'current_mode_update':
      return `current_mode_update → ${String(u.currentModeId ?? '')}`;
    case 'available_commands_update':
      return `available_commands_update ${Array.isArray(u.availableCommands) ? u.availableCommands.map((c) => (c as { name?: string }).name).join(', ') : ''}`;
    default:
      return kind;
  }
}

function previewParams(method: string, p: Record<string, unknown>): string {
  switch (method) {
    case 'session/update':
      return p.update && typeof p.update === 'object' ? previewUpdate(p.update as Record<string, unknown>) : '';
    case 'session/prompt':
      return JSON.stringify(clip(textOfBlocks(p.prompt), 120));
    case 'initialize': {
      const ci = p.clientInfo as Record<string, unknown> | undefined;
      return `v${String(p.protocolVersion ?? '?')}${ci?.name ? ` ${String(ci.name)}` : ''}`;
    }
    case 'session/request_permission': {
      const tc = p.toolCall as Record<string, unknown> | undefined;
      const opts = Array.isArray(p.options) ? p.options.map((o) => (o as { optionId?: string }).optionId).join('|') : '';
      return `${tc?.title ? JSON.stringify(tc.title) : String(tc?.toolCallId ?? '')} [${opts}]`;
    }
    case 'fs/read_text_file':
    case 'fs/write_text_file':
      return String(p.path ?? '');
    case 'terminal/create':
      return [p.command, ...(Array.isArray(p.args) ? p.args : [])].map(String).join(' ');
    case 'session/new':
    case 'session/load':
      return String(p.cwd ?? '');
    case 'session/set_mode':
      return String(p.modeId ?? '');
    case 'session/set_config_option':
      return `${String(p.configId ?? '')} = ${JSON.stringify(p.value)}`;
    default: {
      const keys = Object.keys(p).filter((k) => k !== 'sessionId' && k !== '_meta');
      return keys.length ? `{${keys.join(', ')}}` : '';
    }
  }
}

function previewResult(method: string | null, r: unknown): string {
  if (r === null || typeof r !== 'object') return JSON.stringify(r) ?? '';
  const o = r as Record<string, unknown>;
  if (typeof o.stopReason === 'string') return `stopReason: ${o.stopReason}`;
  if (typeof o.sessionId === 'string' && method !== 'session/prompt') return `sessionId: ${o.sessionId}`;
  if (method === 'initialize') {
    const ai = o.agentInfo as Record<string, unknown> | undefined;
    return `v${String(o.protocolVersion ?? '?')}${ai?.name ? ` ${String(ai.name)}` : ''}`;
  }
  if (o.outcome && typeof o.outcome === 'object') {
    const out = o.outcome as Record<string, unknown>;
    return `${String(out.outcome ?? '')}${out.optionId ? ` ${String(out.optionId)}` : ''}`;
  }
  if (typeof o.content === 'string') return `${o.content.length} chars`;
  if (typeof o.terminalId === 'string') return `terminalId: ${o.terminalId}`;
  const keys = Object.keys(o).filter((k) => k !== '_meta');
  return keys.length ? `{${keys.join(', ')}}` : '{}';
}

/** A one-line preview of an item given its stored columns (`parsed`: its raw text already parsed, when the caller has it). */
export function previewOf(dir: string, kind: string | null, method: string | null, raw: string, parseError: string | null, parsed?: unknown): string {
  // Agents colour their logs: the preview drops ANSI escape sequences (the raw line keeps them).
  if (dir === 'stderr') return clip(raw.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, ''));
  if (dir === 'event') {
    try {
      const d = JSON.parse(raw) as Record<string, unknown>;
      return clip(`${kind ?? 'event'} ${Object.entries(d).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ')}`);
    } catch {
      return clip(`${kind ?? 'event'} ${raw}`);
    }
  }
  if (kind === 'invalid' || raw.length > PARSE_LIMIT) {
    return clip(`${parseError ? `${parseError}: ` : ''}${raw.slice(0, 200)}`);
  }
  let j: Record<string, unknown>;
  try {
    j = (parsed === undefined ? JSON.parse(raw) : parsed) as Record<string, unknown>;
  } catch {
    return clip(raw);
  }
  try {
    if (kind === 'error') {
      const e = j.error as Record<string, unknown> | undefined;
      return clip(`${String(e?.code ?? '')} ${String(e?.message ?? '')}`);
    }
    if (kind === 'result') return clip(previewResult(method, j.result));
    const p = j.params;
    if (p && typeof p === 'object' && !Array.isArray(p)) return clip(previewParams(method ?? '', p as Record<string, unknown>));
    return '';
  } catch {
    return clip(raw);
  }
}
