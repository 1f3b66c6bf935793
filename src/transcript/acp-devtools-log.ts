/**
 * Reads what `acp-devtools proxy --log json` writes to its stderr (a file when redirected): one line
 * per captured message, `JSON.stringify` of the message as its export holds it
 * (`{"seq":1,"timestamp":<ms>,"direction":"editor-to-agent",...,"raw":"..."}`), between the agent's
 * own stderr and acp-devtools' status lines (`acp-devtools: spawned ...`), which share the stream.
 * Message lines become frames (`raw` as it is, `direction` and `timestamp` as in an export, times
 * from the first message); acp-devtools' lines become events of type `acp-devtools`; any other line
 * is a stderr line of the agent, at the time of the message before it. Pure: no Node built-in.
 */
import { TRANSCRIPT_VERSION, type TranscriptHeader } from './format.js';

export const ACP_DEVTOOLS_LOG = 'acp-devtools-log';

/** How every message line of the log starts (the keys in the order the proxy makes them). */
const MESSAGE_LINE = /^\{"seq":\d+,"timestamp":\d+,"direction":"(editor-to-agent|agent-to-editor)"/m;

/** True when the first bytes of a file hold a message line of acp-devtools' JSON log. */
export function looksLikeAcpDevtoolsLog(head: string): boolean {
  return MESSAGE_LINE.test(head);
}

interface LogMessage { timestamp: number; direction: string; raw: string }

function message(line: string): LogMessage | undefined {
  if (!line.startsWith('{"seq":')) return undefined;
  try {
    const m = JSON.parse(line) as Record<string, unknown>;
    if (typeof m.timestamp !== 'number' || typeof m.raw !== 'string' || (m.direction !== 'editor-to-agent' && m.direction !== 'agent-to-editor')) return undefined;
    return m as unknown as LogMessage;
  } catch {
    return undefined;
  }
}

/** The transcript lines of an acp-devtools JSON log. */
export function acpDevtoolsLogToLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let base: number | undefined;
  for (const l of lines) {
    const m = message(l);
    if (m) { base = m.timestamp; break; }
  }
  const header: TranscriptHeader = { acpInspect: 'recording', version: TRANSCRIPT_VERSION, source: { format: ACP_DEVTOOLS_LOG } };
  if (base !== undefined) header.startedAt = new Date(base).toISOString();
  const out = [JSON.stringify(header)];
  let t = 0;
  for (const l of lines) {
    const m = message(l);
    if (m) {
      t = m.timestamp - base!;
      out.push(JSON.stringify({ t, dir: m.direction === 'editor-to-agent' ? 'c2a' : 'a2c', raw: m.raw }));
    } else if (l.startsWith('acp-devtools: ')) {
      out.push(JSON.stringify({ t, dir: 'event', type: 'acp-devtools', data: { message: l.slice('acp-devtools: '.length) } }));
    } else {
      out.push(JSON.stringify({ t, dir: 'stderr', raw: l }));
    }
  }
  return out;
}
