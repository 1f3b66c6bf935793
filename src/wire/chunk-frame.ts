/**
 * Recognises the most common frame on the wire without JSON.parse: a `session/update` notification
 * streaming a piece of text, in the exact form the ACP SDK writes it (JSON.stringify of its object
 * literal: its keys in its order, no whitespace):
 *
 *   {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"S","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"T"}}}}
 *
 * with `sessionUpdate` one of CHUNK_UPDATES, and optionally a `messageId` string before `content` or
 * after it (see ChunkMessage). A burst is mostly such frames, and the tap's recorder
 * spent most of its own (non-SQLite) time per frame in JSON.parse of them. This is the raw-frame
 * sibling of chunk-line.ts (which recognises the same frame inside a transcript line).
 *
 * The contract: `chunkFrameOf` returns a frame only when `frameFromText` would make the same one
 * from that text (same fields in the same order, the same `json`), and says which update kind it is
 * (for Checker.step's memoised schema verdict). The session id and messageId must have no escapes; the text may
 * have any JSON escape (decoded by JSON.parse of that string alone) and any character JSON allows
 * in a string unescaped (so non-ASCII too: the caller hands over text decoded from valid UTF-8 only).
 * Anything else (other keys, another order, whitespace, a trailing `\r`, a bad escape, a raw control
 * character) is refused: the caller takes its generic path. Pure: no Node built-ins.
 */
import type { Direction, Frame } from './frame.js';
import { CHUNK_UPDATES, type ChunkMessage, chunkTailLength, F_HEAD, F_KIND, F_MID, F_MID_AFTER, F_MID_END, F_TAIL, F_TEXT, textChunkFrame } from './chunk-line.js';
import { type Decoded, lazyChunkJson, RawText, type Utf8Decoder } from './lazy-chunk.js';

const ASCII = /^[\x00-\x7f]*$/;

const reEsc = (s: string): string => s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
/** A character a JSON string may hold as is: anything but `"`, `\` and the control characters U+0000–U+001F. */
const PLAIN_CHAR = '[^"\\\\\\x00-\\x1f]';
/** A JSON escape (ECMA-404): `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\uXXXX`. */
const ESCAPE = '\\\\(?:["\\\\/bfnrt]|u[0-9a-fA-F]{4})';
/** Groups: 1 the session id, 2 the update kind, 3 a messageId before the content; then the text (4). */
const head = '^' + reEsc(F_HEAD) + '(' + PLAIN_CHAR + '*)' + reEsc(F_KIND) + '(' + CHUNK_UPDATES.join('|') + ')(?:' + reEsc(F_MID) + '(' + PLAIN_CHAR + '*))?' + reEsc(F_TEXT);
/** After the text: a messageId after the content (group 5), or none. */
const tail = '(?:' + reEsc(F_MID_AFTER) + '(' + PLAIN_CHAR + '*)' + reEsc(F_MID_END) + '|' + reEsc(F_TAIL) + ')$';
/** The whole frame with a text without escapes (the common case: one pass, no backtracking). */
const PLAIN = new RegExp(head + '(' + PLAIN_CHAR + '*)' + tail);
/** The whole frame with a text that has escapes (a string body in JSON's grammar, unrolled: no backtracking blow-up). */
const ESCAPED = new RegExp(head + '(' + PLAIN_CHAR + '*(?:' + ESCAPE + PLAIN_CHAR + '*)+)' + tail);

/**
 * PLAIN's or ESCAPED's match of `raw` (a frame starting with `{` and ending with `}`), or null; null
 * too for a frame with two messageIds (JSON.parse keeps the first one's place and the last one's
 * value: the generic path says so).
 */
function matchRaw(raw: string): RegExpExecArray | null {
  const r = PLAIN.exec(raw) ?? ESCAPED.exec(raw);
  return r === null || messageOf(r) === null ? null : r;
}

/** The messageId a match found, if any; null when it found two (see matchRaw). */
function messageOf(r: RegExpExecArray): ChunkMessage | undefined | null {
  if (r[3] !== undefined) return r[5] !== undefined ? null : { id: r[3], after: false };
  return r[5] !== undefined ? { id: r[5], after: true } : undefined;
}

/**
 * Whether `raw` is a text chunk frame in the SDK's form (what chunkFrameOf recognises, without making
 * the frame): its keys are the fixed ones, and only its text, which may spell anything, varies.
 */
export function isTextChunkRaw(raw: string): boolean {
  return raw.charCodeAt(0) === 0x7b && raw.charCodeAt(raw.length - 1) === 0x7d && matchRaw(raw) !== null;
}

/**
 * The session id of a text chunk frame in the SDK's form (what isTextChunkRaw recognises), else
 * null: what a frame's JSON-RPC reference needs of it, without JSON.parse (see rpcRefOf).
 */
export function textChunkSessionOf(raw: string): string | null {
  if (raw.charCodeAt(0) !== 0x7b || raw.charCodeAt(raw.length - 1) !== 0x7d) return null;
  const r = matchRaw(raw);
  return r === null ? null : r[1]!;
}

/** A text in a JSON string, as JSON.stringify writes it: each `"` escaped (the pieces have no `\` nor control characters). */
const quote = (s: string): string => s.replace(/"/g, '\\"');
/** A JSON escape of the frame's text as its raw text written as a JSON string has it (its backslash, and a `"` or `\` after it, escaped once more). */
const QUOTED_ESCAPE = '\\\\\\\\(?:\\\\["\\\\\\\\]|[/bfnrt]|u[0-9a-fA-F]{4})';
/** The raw text of a text chunk frame in the SDK's form written as a JSON string (as SQLite's json_quote and JSON.stringify write it). */
const QUOTED = new RegExp('^"' + reEsc(quote(F_HEAD)) + PLAIN_CHAR + '*' + reEsc(quote(F_KIND)) + '(?:' + CHUNK_UPDATES.join('|') + ')'
  + '(?:' + reEsc(quote(F_MID)) + PLAIN_CHAR + '*' + reEsc(quote(F_TEXT)) + PLAIN_CHAR + '*(?:' + QUOTED_ESCAPE + PLAIN_CHAR + '*)*' + reEsc(quote(F_TAIL))
  + '|' + reEsc(quote(F_TEXT)) + PLAIN_CHAR + '*(?:' + QUOTED_ESCAPE + PLAIN_CHAR + '*)*(?:' + reEsc(quote(F_MID_AFTER)) + PLAIN_CHAR + '*' + reEsc(quote(F_MID_END)) + '|' + reEsc(quote(F_TAIL)) + '))"$');

/**
 * isTextChunkRaw of the raw text `quoted` is written as a JSON string, without decoding it (an
 * export's lines come from the store so written). Never says yes when isTextChunkRaw would say no;
 * says no to a frame whose session id or text holds a lone surrogate (escaped in `quoted`).
 */
export function isQuotedTextChunk(quoted: string): boolean {
  return QUOTED.test(quoted);
}

/**
 * Where chunkFrameOf says which update kind it recognised: an index into CHUNK_UPDATES; and the
 * session id of the last frame it recognised, reused for the next one of the same session.
 */
export interface ChunkKind {
  update: number;
  sessionId?: string;
}

/**
 * The frame `frameFromText(seq, t, dir, raw, size)` would make, when `raw` is a text chunk frame in
 * the SDK's form (see above), else null; `out.update` then holds its update kind. `raw` must be
 * the whole line (without its `\n`) decoded from valid UTF-8, and `size` its length in bytes.
 */
export function chunkFrameOf(seq: number, t: number, dir: Direction, raw: string, size: number, out: ChunkKind): Frame | null {
  if (raw.charCodeAt(0) !== 0x7b || raw.charCodeAt(raw.length - 1) !== 0x7d) return null;
  let r = PLAIN.exec(raw);
  let text: string;
  if (r !== null) text = r[4]!;
  else {
    r = ESCAPED.exec(raw);
    if (r === null) return null;
    // The body is a JSON string's body by the grammar above, so this is what JSON.parse of the whole frame gives it.
    text = JSON.parse('"' + r[4]! + '"') as string;
  }
  const mid = messageOf(r);
  if (mid === null) return null;
  // The kind as CHUNK_UPDATES holds it, and the session id the last frame had when it is the same:
  // the checker looks both up per frame (maps, sets, a session by its id), and a string the match
  // made anew is hashed and interned by V8 at each lookup; these are done with after the first.
  out.update = CHUNK_UPDATES.indexOf(r[2]! as (typeof CHUNK_UPDATES)[number]);
  const kind = CHUNK_UPDATES[out.update]!;
  const sessionId = r[1] === out.sessionId ? out.sessionId : (out.sessionId = r[1]!);
  return textChunkFrame(seq, t, dir, raw, size, sessionId, kind, text, mid);
}

/**
 * What a stored frame's item needs of `raw` when it is a text chunk frame in the SDK's form (as
 * chunkFrameOf recognises it, `out` alike), else null: its `json`, with a text decoded only when
 * read (wire/lazy-chunk.ts) when there is something to decode; and, when `decode` is given (`raw` is
 * then the frame's UTF-8 bytes a character each, which must be valid UTF-8), what its raw text is
 * decoded from when read. A session id past ASCII (as bytes) gives null: the caller decodes.
 */
export function chunkJsonOf(raw: string, decode: Utf8Decoder | undefined, out: ChunkKind): { json: Frame['json']; raw?: Decoded } | null {
  if (raw.charCodeAt(0) !== 0x7b || raw.charCodeAt(raw.length - 1) !== 0x7d) return null;
  let r = PLAIN.exec(raw);
  const escaped = r === null;
  if (escaped && (r = ESCAPED.exec(raw)) === null) return null;
  const mid = messageOf(r!);
  if (mid === null) return null;
  if (decode !== undefined && (!ASCII.test(r![1]!) || (mid !== undefined && !ASCII.test(mid.id)))) return null;
  out.update = CHUNK_UPDATES.indexOf(r![2]! as (typeof CHUNK_UPDATES)[number]);
  const kind = CHUNK_UPDATES[out.update]!;
  const sessionId = r![1] === out.sessionId ? out.sessionId : (out.sessionId = r![1]!);
  if (!escaped && decode === undefined) return { json: textChunkFrame(0, 0, 'a2c', raw, 0, sessionId, kind, r![4]!, mid).json };
  // The text body ends where the tail starts (a messageId after the content is in the tail).
  const end = raw.length - chunkTailLength(mid);
  const text = new RawText(raw, end - r![4]!.length, end, escaped, decode);
  return { json: lazyChunkJson(sessionId, kind, text, mid), raw: decode === undefined ? undefined : text };
}
