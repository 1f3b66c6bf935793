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
 * The contract: `matchChunkLine` accepts a line only when JSON.parse of the line, then of its `raw`,
 * would give exactly this shape, and then `t`, the session id and the text are what they would give.
 * Anything else (other keys, another order, whitespace, a number it does not read, a session id with
 * an escape, a text whose escapes it cannot prove, non-ASCII characters) is refused, and the caller
 * takes its generic path. Pure: no Node built-ins (it runs in the browser too).
 */
import type { Direction, Frame } from './frame.js';

/** The `sessionUpdate` kinds recognised (a match's `update` is an index into this list). */
export const CHUNK_UPDATES = ['agent_message_chunk', 'agent_thought_chunk', 'user_message_chunk'] as const;
export type ChunkUpdate = (typeof CHUNK_UPDATES)[number];

/** What a recognised line says, filled in by matchChunkLine (offsets into the text it was given). */
export interface ChunkMatch {
  t: number;
  dir: 'a2c' | 'c2a';
  /** Index into CHUNK_UPDATES. */
  update: number;
  /** The session id: text.slice(sidStart, sidEnd) (it has no escapes). */
  sidStart: number;
  sidEnd: number;
  /** The text as written in the frame (its JSON string body, escapes included), ASCII. */
  body: string;
  /** The text itself: `body` with its escapes decoded. */
  text: string;
}

/** A reusable ChunkMatch to pass to matchChunkLine. */
export function newChunkMatch(): ChunkMatch {
  return { t: 0, dir: 'a2c', update: 0, sidStart: 0, sidEnd: 0, body: '', text: '' };
}

// The frame, as the SDK writes it (JSON.stringify of its object literal), around the session id, the kind and the text.
export const F_HEAD = '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"';
export const F_KIND = '","update":{"sessionUpdate":"';
export const F_TEXT = '","content":{"type":"text","text":"';
export const F_TAIL = '"}}}}';
/** The same pieces as they appear inside a transcript line's `raw` string (each `"` escaped). */
const esc = (s: string): string => s.replace(/"/g, '\\"');
const L_T = '{"t":';
/** From the comma after `t` to the session id; then from the session id's end to the text; then the end of the line. */
const L_DIR_A2C = ',"dir":"a2c","raw":"' + esc(F_HEAD);
const L_DIR_C2A = ',"dir":"c2a","raw":"' + esc(F_HEAD);
const L_KINDS = CHUNK_UPDATES.map((k) => esc(F_KIND + k + F_TEXT));
const L_TAIL = esc(F_TAIL) + '"}';
/** Bytes of a recognised frame besides its session id, kind and text body. */
const F_FIXED = F_HEAD.length + F_KIND.length + F_TEXT.length + F_TAIL.length;

const BACKSLASH = 0x5c;
const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

/** The first character of a session id or text span that needs a closer look: `"`, `\\`, a control character, DEL or non-ASCII. */
const SPECIAL = /["\\\x00-\x1f\u007f-\uffff]/g;

/**
 * Index of the first special character of `s` at or after `from`, or `s.length` (a regular
 * expression's test: in Node 20's V8 it scans a kilobyte two to four times faster than a loop over
 * charCodeAt, and makes no match object).
 */
function firstSpecial(s: string, from: number): number {
  SPECIAL.lastIndex = from;
  return SPECIAL.test(s) ? SPECIAL.lastIndex - 1 : s.length;
}

const reEsc = (s: string): string => s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
/** A plain chunk line: t, dir, session id, update kind, text (no special characters in the last two); sticky, it matches at lastIndex. */
const PLAIN = new RegExp(
  reEsc(L_T) + '(-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?)' + reEsc(L_DIR_A2C).replace('a2c', '(a2c|c2a)')
  + '([^"\\\\\\x00-\\x1f\\u007f-\\uffff]*)' + reEsc(esc(F_KIND)) + '(' + CHUNK_UPDATES.join('|') + ')' + reEsc(esc(F_TEXT))
  + '([^"\\\\\\x00-\\x1f\\u007f-\\uffff]*)' + reEsc(L_TAIL) + '(?=\\n|$)',
  'y',
);

/** A character a frame's raw text must not have to travel as ASCII. */
const NON_ASCII = /[\u0080-\uffff]/;

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
 * `text`): returns the index where it ends (that `\n`, or `text.length`) when it is a recognised
 * chunk line, with `m` saying where its parts are, else -1. So a reader can hand over a piece of many
 * lines and skip its own search for the line's end when the line is recognised. Never throws.
 */
export function matchChunkLine(text: string, m: ChunkMatch, from = 0): number {
  // The common case, a text without escapes, in one regular expression (irregexp compares its
  // literal runs several characters at a time; String#startsWith and loops over charCodeAt cost more).
  PLAIN.lastIndex = from;
  const r = PLAIN.exec(text);
  if (r !== null) {
    const t = readNumber(r[1]!, 0, r[1]!.length);
    if (!Number.isFinite(t)) return -1;
    m.t = t;
    m.dir = r[2] === 'a2c' ? 'a2c' : 'c2a';
    m.sidStart = from + L_T.length + r[1]!.length + L_DIR_A2C.length;
    m.sidEnd = m.sidStart + r[3]!.length;
    m.update = CHUNK_UPDATES.indexOf(r[4] as ChunkUpdate);
    m.body = m.text = r[5]!;
    return PLAIN.lastIndex;
  }
  let end = text.indexOf('\n', from);
  if (end < 0) end = text.length;
  const line = from === 0 && end === text.length ? text : text.slice(from, end);
  if (!matchEscaped(line, m)) return -1;
  m.sidStart += from;
  m.sidEnd += from;
  return end;
}

/** matchChunkLine for the other lines: texts with escapes (and the refusals), piece by piece. */
function matchEscaped(line: string, m: ChunkMatch): boolean {
  if (!line.startsWith(L_T)) return false;
  let tEnd = L_T.length;
  while (tEnd < line.length && tEnd < 40 && line.charCodeAt(tEnd) !== 0x2c) tEnd++;
  const t = readNumber(line, L_T.length, tEnd);
  if (!Number.isFinite(t)) return false;
  let dir: 'a2c' | 'c2a';
  if (line.startsWith(L_DIR_A2C, tEnd)) dir = 'a2c';
  else if (line.startsWith(L_DIR_C2A, tEnd)) dir = 'c2a';
  else return false;
  const sidStart = tEnd + L_DIR_A2C.length;
  // The session id ends at the first special character, which must be the `\\` of `\\"`.
  const sidEnd = firstSpecial(line, sidStart);
  let update = -1;
  let p = 0;
  for (let k = 0; k < L_KINDS.length; k++) {
    if (line.startsWith(L_KINDS[k]!, sidEnd)) {
      update = k;
      p = sidEnd + L_KINDS[k]!.length;
      break;
    }
  }
  if (update < 0) return false;
  const textEnd = line.length - L_TAIL.length;
  if (textEnd < p || !line.endsWith(L_TAIL)) return false;
  let body: string;
  let text: string;
  if (firstSpecial(line, p) >= textEnd) {
    // Nothing special in the text: the line holds the frame's text as is, and the text is that.
    body = text = line.slice(p, textEnd);
  } else {
    // Escapes: decode the line's string (that also proves the span is whole string characters, so
    // the line's `raw` ends where this recogniser says), then the frame's. Either refusing is a refusal.
    const span = line.slice(p, textEnd);
    try {
      body = JSON.parse('"' + span + '"') as string;
      if (NON_ASCII.test(body)) return false;
      const at = firstSpecial(body, 0);
      if (at === body.length) text = body;
      // A `"` or control character before any escape can never be in a frame's string; after one,
      // the frame's own JSON.parse below refuses them.
      else if (body.charCodeAt(at) !== BACKSLASH) return false;
      else text = JSON.parse('"' + body + '"') as string;
    } catch {
      return false;
    }
  }
  m.t = t;
  m.dir = dir;
  m.update = update;
  m.sidStart = sidStart;
  m.sidEnd = sidEnd;
  m.body = body;
  m.text = text;
  return true;
}

/**
 * The Frame of a recognised line, the same as frameFromText makes from its raw text (same fields, in
 * the same order; `json` is what JSON.parse gives): `sessionId`, the update kind and the text's
 * `body` (as written in the frame) and `text` (decoded), from a ChunkMatch or wherever they travelled.
 */
export function chunkFrame(seq: number, t: number, dir: 'a2c' | 'c2a', sessionId: string, update: number, body: string, text: string): Frame {
  const kind = CHUNK_UPDATES[update]!;
  return textChunkFrame(seq, t, dir, F_HEAD + sessionId + F_KIND + kind + F_TEXT + body + F_TAIL, F_FIXED + sessionId.length + kind.length + body.length, sessionId, kind, text);
}

/**
 * The Frame of a text chunk frame whose `raw` line (`size` bytes) holds `sessionId`, the update
 * `kind` and the decoded `text`: what frameFromText makes of it (same fields in the same order).
 */
export function textChunkFrame(seq: number, t: number, dir: Direction, raw: string, size: number, sessionId: string, kind: string, text: string): Frame {
  return {
    seq,
    t,
    dir,
    raw,
    size,
    kind: 'notification',
    method: 'session/update',
    json: { jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: { sessionUpdate: kind, content: { type: 'text', text } } } },
    sessionId,
  };
}
