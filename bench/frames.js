/**
 * The benchmark's traffic, generated deterministically so the client can check every byte it
 * receives against a hash computed in advance. Shared by the synthetic agent (which writes it) and
 * the driver (which verifies it). Every line is valid ACP.
 */
import { createHash } from 'node:crypto';

const PREFIX = '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"';
const SUFFIX = '"}}}}\n';
const FILLER = 'The quick brown fox jumps over the lazy dog; 0123456789. ';

/** A template `session/update` line of exactly `size` bytes (with its `\n`); bytes [at, at+10) hold the frame number. */
export function updateTemplate(size) {
  const textLen = size - PREFIX.length - SUFFIX.length;
  if (textLen < 10) throw new Error(`frame size ${size} is too small (minimum ${PREFIX.length + SUFFIX.length + 10})`);
  let text = '0000000000';
  while (text.length < textLen) text += FILLER;
  const buf = Buffer.from(PREFIX + text.slice(0, textLen) + SUFFIX, 'latin1');
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
 * Yields the flood as chunks of whole frames (about `chunkBytes` each): frames `0..count-1`.
 * The yielded buffer is reused between yields; consume it before asking for the next.
 */
export function* floodChunks(size, count, chunkBytes = 256 * 1024) {
  const { buf: tpl, at } = updateTemplate(size);
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
