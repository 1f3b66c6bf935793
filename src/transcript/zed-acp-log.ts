/**
 * Reads what Zed's ACP log gives (the `dev: open acp logs` panel's "Copy All Messages" button,
 * pasted into a file): one JSON array, in the order Zed saw the messages, of
 *
 *   {"_direction":"outgoing"|"incoming","_type":"request"|"response"|"notification",
 *    "id":<id>|null,"method":"<method; for a response, its request's>","params":<params, result or error>}
 *
 * (newer Zeds add the agent's stderr lines: `"_direction":"stderr"` with the line as `params`,
 * which become stderr items.)
 *
 * `outgoing` is Zed (the client) to the agent: c2a. Zed keeps no bytes and no times, so each frame
 * is rebuilt as JSON-RPC from its fields (a response whose `params` is an error object, a `code`
 * number and a `message` string and nothing but `data` besides, as Zed writes its errors, becomes an
 * `error` response; any other a `result`), every item is at t = 0, and the recording says so: the
 * header's `source` has `rebuilt: true` and `times: "unknown"`, and its first item is an event of
 * type `capture-note` with the same words. The order is Zed's and is kept.
 * Pure: no Node built-in, so the static viewer uses it too.
 */
import { TranscriptError, TRANSCRIPT_VERSION, type TranscriptHeader } from './format.js';

export const ZED_ACP_LOG = 'zed-acp-log';

/** The words the recording carries about what this format cannot tell. */
export const ZED_NOTE = 'frames rebuilt from Zed\'s ACP log ("Copy All Messages"): the order is Zed\'s; the exact bytes and the times were not kept (every item is at 0 ms)';

/** How many messages Zed's ACP log keeps of a connection (its MAX_BACKLOG_MESSAGES). */
const ZED_BACKLOG = 2000;

/** True when a file starting with `head` is a JSON array whose first element has Zed's `_direction`. */
export function looksLikeZedAcpLog(head: string): boolean {
  return /^\uFEFF?\s*\[\s*(\]|\{\s*"_direction"\s*:)/.test(head);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isErrorObject(v: unknown): boolean {
  if (!isObject(v) || typeof v.code !== 'number' || typeof v.message !== 'string') return false;
  return Object.keys(v).every((k) => k === 'code' || k === 'message' || k === 'data');
}

function fail(what: string): never {
  throw new TranscriptError(`not a valid copy of Zed's ACP log: ${what}`);
}

/** The transcript lines (header, the note event, one line per message) of a parsed Zed ACP log. */
export function zedAcpLogToLines(doc: unknown): string[] {
  if (!Array.isArray(doc)) fail('the file must be one JSON array');
  const header: TranscriptHeader = {
    acpInspect: 'recording', version: TRANSCRIPT_VERSION,
    source: { format: ZED_ACP_LOG, rebuilt: true, times: 'unknown' },
  };
  // Zed keeps the last ZED_BACKLOG messages of a connection: a copy that long may lack its start.
  const message = doc.length >= ZED_BACKLOG ? `${ZED_NOTE}; Zed keeps the last ${ZED_BACKLOG} messages and this copy has ${doc.length}, so earlier ones may be missing` : ZED_NOTE;
  const lines = [JSON.stringify(header), JSON.stringify({ t: 0, dir: 'event', type: 'capture-note', data: { format: ZED_ACP_LOG, message } })];
  for (let i = 0; i < doc.length; i++) {
    const m = doc[i];
    if (!isObject(m)) fail(`element ${i} must be an object`);
    if (m._direction === 'stderr') {
      // Newer Zeds log the agent's stderr lines too, the line as `params`.
      lines.push(JSON.stringify({ t: 0, dir: 'stderr', raw: typeof m.params === 'string' ? m.params : JSON.stringify(m.params ?? '') }));
      continue;
    }
    const dir = m._direction === 'outgoing' ? 'c2a' : m._direction === 'incoming' ? 'a2c' : fail(`element ${i}: "_direction" must be "outgoing", "incoming" or "stderr"`);
    const frame: Record<string, unknown> = { jsonrpc: '2.0' };
    if (m._type === 'request' || m._type === 'notification') {
      if (typeof m.method !== 'string') fail(`element ${i}: a ${m._type} needs "method"`);
      if (m._type === 'request') frame.id = m.id ?? null;
      frame.method = m.method;
      if (m.params !== null && m.params !== undefined) frame.params = m.params;
    } else if (m._type === 'response') {
      frame.id = m.id ?? null;
      if (isErrorObject(m.params)) frame.error = m.params;
      else frame.result = m.params ?? null;
    } else {
      fail(`element ${i}: "_type" must be "request", "response" or "notification"`);
    }
    lines.push(JSON.stringify({ t: 0, dir, raw: JSON.stringify(frame) }));
  }
  return lines;
}
