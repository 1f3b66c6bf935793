/**
 * The benchmark's traffic, generated deterministically so the client can check every byte it
 * receives against a hash computed in advance. Shared by the synthetic agent (which writes it) and
 * the driver (which verifies it). Every line is valid ACP.
 */
import { createHash } from 'node:crypto';

const PREFIX = '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"';
const SUFFIX = '"}}}}\n';
const FILLER = 'The quick brown fox jumps over the lazy dog; 0123456789. ';

/** A JSON escape as one piece (backslash, then what follows it). */
const e = (s) => '\\' + s;
/**
 * The kinds of chunk text the bench floods with, each as the pieces of a JSON string body as the
 * frame writes it (an escape is one piece, so a text cut to size never splits one): `ascii`, plain
 * prose; `multibyte`, what agents stream all day: 2-, 3- and 4-byte UTF-8 (é, ✓ and —, CJK, emoji)
 * and a surrogate pair written as JSON escapes; `escapes`, ASCII prose full of `\n`, `\"`, `\\`,
 * `\t` and `\u00e9`; `mixed`, both.
 */
const PIECES = {
  ascii: [...FILLER],
  multibyte: [...'Prose with a few ✓ marks — dashes, café, naïve; 日本語のテキスト, 中文 and 한국어; emoji 🚀🎉 and ', e('ud83d') + e('ude00'), ...' done. '],
  escapes: [...'Line one', e('n'), ...'A ', e('"'), ...'quoted', e('"'), ...' word, a back', e('\\'), ...'slash, caf', e('u00e9'), e('t'), ...'tab; C:', e('\\'), ...'dir', e('n'), ...'end. '],
  mixed: [...'✓ done — ', e('"'), ...'naïve', e('"'), e('n'), ...'日本語 ', e('u00e9'), ...' 🚀 ', e('\\'), e('ud83d') + e('ude00'), e('t'), ...'fin. '],
};
/** The text kinds, ASCII first. */
export const TEXT_KINDS = Object.keys(PIECES);

/** `head` then whole pieces of the kind `text`, then ASCII dots: a frame text body of exactly `bytes` bytes of UTF-8. */
function textBody(head, bytes, text) {
  const pieces = PIECES[text];
  if (!pieces) throw new Error(`unknown text kind ${text} (one of ${TEXT_KINDS.join(', ')})`);
  let body = head;
  let len = Buffer.byteLength(head);
  for (let i = 0; ; i = (i + 1) % pieces.length) {
    const n = Buffer.byteLength(pieces[i]);
    if (len + n > bytes) break;
    body += pieces[i];
    len += n;
  }
  return body + '.'.repeat(bytes - len);
}

/**
 * A template `session/update` line of exactly `size` bytes (with its `\n`), its text of the kind
 * `text` (TEXT_KINDS); bytes [at, at+10) hold the frame number.
 */
export function updateTemplate(size, text = 'ascii') {
  const textLen = size - PREFIX.length - SUFFIX.length;
  if (textLen < 10) throw new Error(`frame size ${size} is too small (minimum ${PREFIX.length + SUFFIX.length + 10})`);
  const buf = Buffer.from(PREFIX + textBody('0000000000', textLen, text) + SUFFIX, 'utf8');
  return { buf, at: PREFIX.length };
}

/** Writes the frame number `i` as 10 ASCII digits at `off`. */
export function stamp(buf, off, i) {
  for (let k = 9; k >= 0; k--) {
    buf[off + k] = 48 + (i % 10);
    i = Math.floor(i / 10);
  }
}

/**
 * Yields the flood as chunks of whole frames (about `chunkBytes` each): frames `0..count-1`, their
 * text of the kind `text` (TEXT_KINDS).
 * The yielded buffer is reused between yields; consume it before asking for the next.
 */
export function* floodChunks(size, count, chunkBytes = 256 * 1024, text = 'ascii') {
  const { buf: tpl, at } = updateTemplate(size, text);
  const per = Math.max(1, Math.floor(chunkBytes / size));
  const chunk = Buffer.allocUnsafe(per * size);
  for (let k = 0; k < per; k++) tpl.copy(chunk, k * size);
  for (let i = 0; i < count; i += per) {
    const n = Math.min(per, count - i);
    for (let k = 0; k < n; k++) stamp(chunk, k * size + at, i + k);
    yield n === per ? chunk : chunk.subarray(0, n * size);
  }
}

export const line = (obj) => Buffer.from(JSON.stringify(obj) + '\n');

export const initializeRequest = (id) => line({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false }, clientInfo: { name: 'bench-client', version: '1.0.0' } } });
export const initializeResult = (id) => line({ jsonrpc: '2.0', id, result: { protocolVersion: 1, agentCapabilities: { loadSession: false }, authMethods: [], agentInfo: { name: 'bench-agent', version: '1.0.0' } } });
export const newSessionRequest = (id) => line({ jsonrpc: '2.0', id, method: 'session/new', params: { cwd: '/', mcpServers: [] } });
export const newSessionResult = (id) => line({ jsonrpc: '2.0', id, result: { sessionId: 'sess-1' } });
/** A prompt whose text tells the agent what to do: `ping`, or `flood SIZE COUNT`. */
export const promptRequest = (id, text) => line({ jsonrpc: '2.0', id, method: 'session/prompt', params: { sessionId: 'sess-1', prompt: [{ type: 'text', text }] } });
export const promptResult = (id) => line({ jsonrpc: '2.0', id, result: { stopReason: 'end_turn' } });

/** What the agent sends back for a `flood SIZE COUNT` prompt: its length and sha256. */
export function expectedFlood(id, size, count) {
  const h = createHash('sha256');
  let len = 0;
  for (const c of floodChunks(size, count)) {
    h.update(c);
    len += c.length;
  }
  const end = promptResult(id);
  h.update(end);
  return { len: len + end.length, hash: h.digest('hex') };
}
