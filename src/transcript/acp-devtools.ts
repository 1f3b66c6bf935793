/**
 * Reads the export files of acp-devtools (another ACP inspector: its `export` command, its UI's
 * download and the captures its project publishes) as transcript lines. An export is one JSON object:
 *
 *   {"version":1,"exportedAt":<ms>,"tool":{"name":"acp-devtools","version":"0.3.0"},
 *    "session":{"id":7,"name":null,"agentCommand":"npx -y x --acp","clientName":null,"startedAt":<ms>,"endedAt":<ms>|null},
 *    "messages":[{"seq":1,"timestamp":<ms>,"direction":"editor-to-agent"|"agent-to-editor",
 *                 "kind":"request"|...,"raw":"<the line, no newline>","payload":{...},...}, ...]}
 *
 * Each message becomes a frame with its `raw` text as it is (acp-devtools keeps the line it read;
 * its export redaction re-serialises the frames it redacts), in the order of `messages`, at its
 * `timestamp` less the session's start, `editor-to-agent` as c2a. `payload`, `kind`, `method` and
 * `rpcId` are acp-devtools' reading of `raw` and are left out: ours is made from `raw`. The session
 * gives the header its name, start, end and command (`agentCommand` is the command and its
 * arguments joined by spaces, so it is split at spaces); the rest goes in the header's `source`.
 * Pure: no Node built-in, so the static viewer uses it too.
 */
import { TranscriptError, TRANSCRIPT_VERSION, type TranscriptHeader } from './format.js';

/** The `tool.name` an acp-devtools export carries. */
export const ACP_DEVTOOLS = 'acp-devtools';

/** The only export version acp-devtools has written so far. */
const EXPORT_VERSION = 1;

/**
 * True when a file starting with `head` (its first bytes as text) is an acp-devtools export: one JSON
 * object with `"version":1` whose `tool` names acp-devtools (or acp-devtools-ui) before its
 * `messages` start, or whose keys start `version`, `exportedAt`, `tool` as the export writes them
 * (then `session`, `messages`; indented or on one line).
 */
export function looksLikeAcpDevtools(head: string): boolean {
  const text = head.replace(/^\uFEFF/, '');
  if (!/^\s*\{/.test(text)) return false;
  // Its CLI writes tool.name "acp-devtools", its UI's download "acp-devtools-ui".
  const tool = /"tool"\s*:\s*\{[^{}]*"name"\s*:\s*"acp-devtools[^"]*"/.exec(text);
  if (tool && /"version"\s*:\s*1\b/.test(text)) {
    const messages = text.indexOf('"messages"');
    return messages < 0 || tool.index < messages;
  }
  // Any other writer of the same export (acp-devtools reads those too): its keys in its order.
  return /^\s*\{\s*"version"\s*:\s*1\s*,\s*"exportedAt"\s*:\s*\d+\s*,\s*"tool"\s*:\s*\{/.test(text);
}

function fail(what: string): never {
  throw new TranscriptError(`not a valid acp-devtools export: ${what}`);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function iso(ms: unknown): string | undefined {
  return typeof ms === 'number' && Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

/**
 * The transcript lines (header first, one line per message) of a parsed acp-devtools export. Throws
 * TranscriptError naming the first field that is not as acp-devtools writes it.
 */
export function acpDevtoolsToLines(doc: unknown): string[] {
  if (!isObject(doc)) fail('the file must be one JSON object');
  if (doc.version !== EXPORT_VERSION) fail(`export version ${JSON.stringify(doc.version)} is not one this acp-inspect reads (${EXPORT_VERSION})`);
  const tool = doc.tool;
  if (!isObject(tool) || typeof tool.name !== 'string') fail('"tool.name" must be a string');
  const session = doc.session;
  if (!isObject(session)) fail('"session" must be an object');
  if (typeof session.startedAt !== 'number') fail('"session.startedAt" must be a number (ms since 1970)');
  const messages = doc.messages;
  if (!Array.isArray(messages)) fail('"messages" must be an array');

  let base = session.startedAt;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!isObject(m)) fail(`messages[${i}] must be an object`);
    if (typeof m.timestamp !== 'number' || !Number.isFinite(m.timestamp)) fail(`messages[${i}].timestamp must be a number (ms since 1970)`);
    if (m.direction !== 'editor-to-agent' && m.direction !== 'agent-to-editor') fail(`messages[${i}].direction must be "editor-to-agent" or "agent-to-editor"`);
    if (typeof m.raw !== 'string') fail(`messages[${i}].raw must be a string`);
    // A message stamped before the session's start (clocks): times count from the earliest.
    if (m.timestamp < base) base = m.timestamp;
  }

  const header: TranscriptHeader = { acpInspect: 'recording', version: TRANSCRIPT_VERSION };
  if (typeof session.name === 'string' && session.name !== '') header.name = session.name;
  header.startedAt = iso(base);
  const ended = iso(session.endedAt);
  if (ended !== undefined) header.endedAt = ended;
  if (typeof session.agentCommand === 'string' && session.agentCommand.trim() !== '') header.command = session.agentCommand.trim().split(/ +/);
  const source: Record<string, unknown> = { format: ACP_DEVTOOLS, exportVersion: EXPORT_VERSION };
  if (tool.name !== ACP_DEVTOOLS) source.tool = tool.name;
  if (typeof tool.version === 'string') source.toolVersion = tool.version;
  if (typeof session.id === 'number') source.sessionId = session.id;
  if (typeof session.agentCommand === 'string') source.agentCommand = session.agentCommand;
  if (typeof session.clientName === 'string') source.clientName = session.clientName;
  const exported = iso(doc.exportedAt);
  if (exported !== undefined) source.exportedAt = exported;
  header.source = source;

  const lines = [JSON.stringify(header)];
  for (const m of messages as Array<{ timestamp: number; direction: string; raw: string }>) {
    lines.push(JSON.stringify({ t: m.timestamp - base, dir: m.direction === 'editor-to-agent' ? 'c2a' : 'a2c', raw: m.raw }));
  }
  return lines;
}
