/**
 * Recognises the most common transcript line without parsing it: a `session/update` notification
 * streaming a piece of text, in the exact form the ACP SDK writes it (its keys in its order, no
 * whitespace), inside a transcript line in the exact form acp-inspect writes it:
 *
 *   {"t":12.5,"dir":"a2c","raw":"{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"sessionId\":\"S\",\"update\":{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{\"type\":\"text\",\"text\":\"T\"}}}}"}
 *
 * with `sessionUpdate` one of CHUNK_UPDATES. Long sessions are mostly such lines, and reading one
 * this way costs a fraction of two JSON.parse calls (the line's, then the frame's).
 *
 * In two steps, so that a reader can hand the second to another thread:
 * - `matchChunkLine` accepts a line only when JSON.parse of the line gives exactly this shape of
 *   object with a `raw` string of this shape around a session id (ASCII, no escapes), an update kind
 *   and a text span that is a JSON string body at the line's level (any character a JSON string holds
 *   as is, non-ASCII too, and any JSON escape: real agents stream é, ✓, CJK, emoji, newlines and
 *   quotes all day) whose escapes leave the frame's text a proper JSON string body (SPAN_ESCAPE). It
 *   is one regular expression over the line, whatever its text says, and decodes nothing. It works as well on a line's UTF-8 bytes read as Latin-1 (every byte a character): the
 *   shape is ASCII, and bytes of multi-byte characters are all above 0x7f.
 * - `chunkLineFrame` makes the item of a matched line from its session id and its text span
 *   (decoded from UTF-8 by the caller): exactly what the generic path (JSON.parse of the line, then
 *   frameFromText of its raw) makes, the recognised chunk frame when the frame's text is a proper
 *   JSON string, else the generic frame itself (a frame whose text has a bare `"`, say, after the
 *   line's escapes are undone), so a match never needs to be taken back.
 * Anything else (other keys, another order, whitespace, a number it does not read, a session id with
 * an escape or a character outside ASCII) is refused, and the caller takes its generic path. Pure: no
 * Node built-ins (it runs in the browser too).
 */
import type { Direction, Frame } from './frame.js';
import { frameFromText, utf8Length } from './make-frame.js';
import { stampChunk } from './chunk-stamp.js';

/** The `sessionUpdate` kinds recognised (a match's `update` is an index into this list). */
export const CHUNK_UPDATES = ['agent_message_chunk', 'agent_thought_chunk', 'user_message_chunk'] as const;
export type ChunkUpdate = (typeof CHUNK_UPDATES)[number];

/** What a recognised line says, filled in by matchChunkLine (offsets into the text it was given). */
export interface ChunkMatch {
  t: number;
  dir: 'a2c' | 'c2a';
  /** Index into CHUNK_UPDATES. */
  update: number;
  /** The session id: text.slice(sidStart, sidEnd) (ASCII, no escapes). */
  sidStart: number;
  sidEnd: number;
  /** The frame's text as the line writes it: text.slice(spanStart, spanEnd), a JSON string body (the line's escapes in it). */
  spanStart: number;
  spanEnd: number;
  /** Whether the span has escapes (else it is the frame's text as is). */
  escaped: boolean;
  /** The chunk's `messageId` (ASCII, no escapes): text.slice(midStart, midEnd); midStart -1 when it has none. */
  midStart: number;
  midEnd: number;
  /** Whether the frame writes its `messageId` after its content (else before it). */
  midAfter: boolean;
}

/**
 * A chunk's `messageId` (the spec's ContentChunk, part 2.6) and where the frame writes it: before its
 * `content` (opencode) or after it (an object literal in the schema's order, as this project's probe
 * writes). A string without escapes; a frame with a null one, or with both, takes the generic path.
 */
export interface ChunkMessage {
  id: string;
  after: boolean;
}

/** A reusable ChunkMatch to pass to matchChunkLine. */
export function newChunkMatch(): ChunkMatch {
  return { t: 0, dir: 'a2c', update: 0, sidStart: 0, sidEnd: 0, spanStart: 0, spanEnd: 0, escaped: false, midStart: -1, midEnd: -1, midAfter: false };
}

/** The `messageId` of the chunk line `m` matched in `text`, if it has one. */
export function chunkMessageOf(text: string, m: ChunkMatch): ChunkMessage | undefined {
  return m.midStart < 0 ? undefined : { id: text.slice(m.midStart, m.midEnd), after: m.midAfter };
}

// The frame, as the SDK writes it (JSON.stringify of its object literal), around the session id, the kind and the text.
export const F_HEAD = '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"';
export const F_KIND = '","update":{"sessionUpdate":"';
export const F_TEXT = '","content":{"type":"text","text":"';
export const F_TAIL = '"}}}}';
/** A `messageId` before the content: F_KIND, kind, F_MID, the id, F_TEXT. */
export const F_MID = '","messageId":"';
/** A `messageId` after the content: the text body, F_MID_AFTER, the id, F_MID_END (instead of F_TAIL). */
export const F_MID_AFTER = '"},"messageId":"';
export const F_MID_END = '"}}}';

/** The raw text of a chunk frame up to its text body. */
export function chunkHead(sessionId: string, kind: string, mid: ChunkMessage | undefined): string {
  return mid === undefined || mid.after ? F_HEAD + sessionId + F_KIND + kind + F_TEXT : F_HEAD + sessionId + F_KIND + kind + F_MID + mid.id + F_TEXT;
}

/** The raw text of a chunk frame after its text body. */
export function chunkTail(mid: ChunkMessage | undefined): string {
  return mid === undefined || !mid.after ? F_TAIL : F_MID_AFTER + mid.id + F_MID_END;
}

/** chunkTail(mid).length, without making the tail. */
export function chunkTailLength(mid: ChunkMessage | undefined): number {
  return mid === undefined || !mid.after ? F_TAIL.length : F_MID_AFTER.length + mid.id.length + F_MID_END.length;
}

/** The characters a `messageId` adds to a chunk frame's raw text (ASCII: its bytes too). */
export function chunkMessageChars(mid: ChunkMessage | undefined): number {
  return mid === undefined ? 0 : mid.after ? chunkTailLength(mid) - F_TAIL.length : F_MID.length + mid.id.length;
}

/** A chunk's `update` object, its keys in the frame's order. */
export function chunkUpdate(kind: string, content: object, mid: ChunkMessage | undefined): object {
  if (mid === undefined) return { sessionUpdate: kind, content };
  return mid.after ? { sessionUpdate: kind, content, messageId: mid.id } : { sessionUpdate: kind, messageId: mid.id, content };
}
/** The same pieces as they appear inside a transcript line's `raw` string (each `"` escaped). */
const esc = (s: string): string => s.replace(/"/g, '\\"');
const L_T = '{"t":';
/** From the comma after `t` to the session id; then the end of the line. */
const L_DIR_A2C = ',"dir":"a2c","raw":"' + esc(F_HEAD);
const L_TAIL = esc(F_TAIL) + '"}';
const L_KIND = esc(F_KIND);
const L_MID = esc(F_MID);
const L_TEXT = esc(F_TEXT);
const L_MID_AFTER = esc(F_MID_AFTER);
/** Bytes of a recognised frame besides its session id, kind and text body. */
const F_FIXED = F_HEAD.length + F_KIND.length + F_TEXT.length + F_TAIL.length;

const BACKSLASH = 0x5c;
const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

/** The first character of a frame's text that needs a closer look: `"`, `\\` or a control character (the rest a JSON string holds as is). */
const TEXT_SPECIAL = /["\\\x00-\x1f]/;

const reEsc = (s: string): string => s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
/**
 * An escape in the text span as the line writes it that leaves the frame's text a proper JSON string
 * body: a backslash of the frame's (the line's `\\`) followed by the rest of one of the frame's
 * escapes (the line's escaped quote, backslash or slash, one of `/bfnrt`, or `u` and 4 hex digits);
 * the line's escaped slash; or the line's `\u` escape of anything but a control character, a quote
 * or a backslash. Any other escape of the line's (its escaped quote or `\n` alone, say) puts a bare
 * quote or control character into the frame's text, which then is no proper JSON string: such a line
 * is refused, and the generic path judges it. So a match promises a frame whose text needs nothing
 * looked at but its escapes (lazy-chunk.ts's spanBodyBytes never refuses its span).
 */
const SPAN_ESCAPE = String.raw`(?:\\\\(?:\\["\\/]|[/bfnrt]|u[0-9a-fA-F]{4})|\\/|\\u(?!00[01]|0022|005[cC])[0-9a-fA-F]{4})`;
/** What a JSON string holds as is: anything but `"`, `\\` and the control characters. */
const STR_CHAR = '[^"\\\\\\x00-\\x1f]';
/** An id the line recogniser reads as it is: ASCII, nothing a JSON string escapes. */
const ID = '([^"\\\\\\x00-\\x1f\\u007f-\\uffff]*)';
/**
 * A chunk line: t, dir, session id, update kind, a `messageId` before the content or none, the text
 * span in JSON's string grammar, unrolled (no backtracking blow-up): its characters up to the first
 * escape, then the rest (empty when there is no escape); then a `messageId` after the content or
 * none. Sticky: it matches at lastIndex.
 */
const LINE = new RegExp(
  reEsc(L_T) + '(-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?)' + reEsc(L_DIR_A2C).replace('a2c', '(a2c|c2a)')
  + ID + reEsc(L_KIND) + '(' + CHUNK_UPDATES.join('|') + ')(?:' + reEsc(L_MID) + ID + ')?' + reEsc(L_TEXT)
  + '(' + STR_CHAR + '*)((?:' + SPAN_ESCAPE + STR_CHAR + '*)*)(?:' + reEsc(L_MID_AFTER) + ID + reEsc(esc(F_MID_END) + '"}') + '|' + reEsc(L_TAIL) + ')(?=\\n|$)',
  'y',
);

/**
 * The JSON number `s.slice(from, to)` when it is one without an exponent (`-?(0|[1-9][0-9]*)(.[0-9]+)?`),
 * exactly as JSON.parse reads it, else NaN. Up to 15 digits and 22 decimals it is the integer of its
 * digits divided by a power of ten, both exact, so IEEE division rounds it correctly, as JSON.parse does.
 */
function readNumber(s: string, from: number, to: number): number {
  let i = from;
  const negative = s.charCodeAt(i) === 0x2d;
  if (negative) i++;
  const first = i;
  let m = 0;
  let digits = 0;
  let decimals = -1;
  for (; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) {
      m = m * 10 + (c - 0x30);
      digits++;
      if (decimals >= 0) decimals++;
    } else if (c === 0x2e && decimals < 0 && i > first) decimals = 0;
    else return NaN;
  }
  if (digits === 0 || decimals === 0) return NaN; // "", "-", "1."
  const intDigits = decimals < 0 ? digits : digits - decimals;
  if (intDigits === 0 || (intDigits > 1 && s.charCodeAt(first) === 0x30)) return NaN; // ".5", "01"
  const v = digits <= 15 && decimals <= 22 ? (decimals > 0 ? m / POW10[decimals]! : m) : Number(s.slice(from, to));
  return negative ? -v : v;
}

/**
 * Recognises the line of `text` that starts at `from` and runs to the next `\n` (or the end of
 * `text`): returns the index where it ends (that `\n`, or `text.length`) when it is a chunk line,
 * with `m` saying where its parts are, else -1. So a reader can hand over a piece of many lines and
 * skip its own search for the line's end when the line is recognised. Never throws.
 */
export function matchChunkLine(text: string, m: ChunkMatch, from = 0): number {
  // One regular expression (irregexp compares its literal runs several characters at a time;
  // String#startsWith and loops over charCodeAt cost more).
  LINE.lastIndex = from;
  const r = LINE.exec(text);
  if (r === null) return -1;
  const t = readNumber(r[1]!, 0, r[1]!.length);
  if (!Number.isFinite(t)) return -1;
  const before = r[5];
  const after = r[8];
  if (before !== undefined && after !== undefined) return -1; // two messageIds: the generic path says what JSON.parse makes of it
  m.t = t;
  m.dir = r[2] === 'a2c' ? 'a2c' : 'c2a';
  m.sidStart = from + L_T.length + r[1]!.length + L_DIR_A2C.length;
  m.sidEnd = m.sidStart + r[3]!.length;
  m.update = CHUNK_UPDATES.indexOf(r[4] as ChunkUpdate);
  let at = m.sidEnd + L_KIND.length + r[4]!.length;
  if (before !== undefined) {
    m.midStart = at + L_MID.length;
    m.midEnd = m.midStart + before.length;
    m.midAfter = false;
    at = m.midEnd;
  } else {
    m.midStart = m.midEnd = -1;
    m.midAfter = false;
  }
  m.spanStart = at + L_TEXT.length;
  m.spanEnd = m.spanStart + r[6]!.length + r[7]!.length;
  m.escaped = r[7]!.length > 0;
  if (after !== undefined) {
    m.midStart = m.spanEnd + L_MID_AFTER.length;
    m.midEnd = m.midStart + after.length;
    m.midAfter = true;
  }
  return LINE.lastIndex;
}

/**
 * The item the generic path makes of a line matchChunkLine recognised (seq `seq`), from its `t`,
 * direction, session id, update kind and text span (the span decoded from UTF-8; `escaped` as the
 * match said): a text chunk frame, `out.update` then its update kind (the checker's hint), or, when
 * the frame's own text is not a proper JSON string, the generic frame of its raw text, `out.update`
 * then -1. `spanBytes`: the span's length in UTF-8 when the caller knows it (an ASCII span's length).
 * `mid`: the chunk's messageId (chunkMessageOf).
 */
export function chunkLineFrame(seq: number, t: number, dir: 'a2c' | 'c2a', sessionId: string, update: number, span: string, escaped: boolean, out: { update: number }, spanBytes = -1, mid?: ChunkMessage): Frame {
  const kind = CHUNK_UPDATES[update]!;
  if (!escaped) {
    // The span is the frame's text body, and that has nothing to decode.
    out.update = update;
    const fixed = F_FIXED + sessionId.length + kind.length + chunkMessageChars(mid);
    return textChunkFrame(seq, t, dir, chunkHead(sessionId, kind, mid) + span + chunkTail(mid), fixed + (spanBytes >= 0 ? spanBytes : utf8Length(span)), sessionId, kind, span, mid);
  }
  // The line's escapes undone (the match proved the span a JSON string body: this cannot throw).
  return chunkBodyFrame(seq, t, dir, sessionId, update, JSON.parse('"' + span + '"') as string, out, -1, mid);
}

/**
 * chunkLineFrame's item from the frame's text `body` as it is in the frame's raw text (the span with
 * the line's escapes undone, by the caller). `size`: the raw text's UTF-8 length when the caller
 * knows it, else -1.
 */
export function chunkBodyFrame(seq: number, t: number, dir: 'a2c' | 'c2a', sessionId: string, update: number, body: string, out: { update: number }, size = -1, mid?: ChunkMessage): Frame {
  const kind = CHUNK_UPDATES[update]!;
  const raw = chunkHead(sessionId, kind, mid) + body + chunkTail(mid);
  // (The body is between ASCII characters of the raw text: its UTF-8 length adds up.)
  if (size < 0) size = F_FIXED + sessionId.length + kind.length + chunkMessageChars(mid) + utf8Length(body);
  let text: string | undefined;
  const at = body.search(TEXT_SPECIAL);
  if (at < 0) text = body;
  else if (body.charCodeAt(at) === BACKSLASH) {
    // A `"` or control character before any escape can never be in a frame's string; after one,
    // JSON.parse refuses them.
    try {
      text = JSON.parse('"' + body + '"') as string;
    } catch {
      text = undefined;
    }
  }
  if (text === undefined) {
    out.update = -1;
    return frameFromText(seq, t, dir, raw, size);
  }
  out.update = update;
  return textChunkFrame(seq, t, dir, raw, size, sessionId, kind, text, mid);
}

/**
 * The Frame of a text chunk frame whose `raw` line (`size` bytes) holds `sessionId`, the update
 * `kind`, the decoded `text` and the messageId `mid`, if any: what frameFromText makes of it (same
 * fields in the same order).
 */
export function textChunkFrame(seq: number, t: number, dir: Direction, raw: string, size: number, sessionId: string, kind: string, text: string, mid?: ChunkMessage): Frame {
  const content = { type: 'text', text };
  const f: Frame = {
    seq,
    t,
    dir,
    raw,
    size,
    kind: 'notification',
    method: 'session/update',
    json: { jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: chunkUpdate(kind, content, mid) } },
    sessionId,
  };
  // Every caller recognised `raw` as the SDK's form (the store's `chunk` column: see chunk-stamp.ts);
  // a frame with a messageId has none (the column does not hold it).
  if (mid === undefined) stampChunk(f, CHUNK_UPDATES.indexOf(kind as ChunkUpdate));
  return f;
}
