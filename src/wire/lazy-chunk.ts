/**
 * Text chunk frames whose text is decoded only when it is read. Most of a long session is chunk
 * frames, and most readers of them (the checker's fold and rules, the waterfall, insights, OTel
 * spans) look at their kind, method, session id, update kind and size, never at their text. On text
 * that is not ASCII, decoding it (UTF-8 into a JavaScript string, then JSON.parse of its escapes)
 * cost more than everything else such a reader does with the frame (issue 45).
 *
 * A lazy frame is the frame textChunkFrame makes, field for field in the same order, except that
 * its `raw` and its `json.params.update.content.text` are accessor properties (own, enumerable,
 * configurable: JSON.stringify, structured cloning, spreading and Object.keys see them as the data
 * properties they stand for), decoded from the bytes on the first read and kept. Assigning either
 * makes it a data property again. The bytes are held as a Latin-1 string (a character per byte), and
 * decoded by the caller's `decode` (a Node `Buffer`'s, or a TextDecoder): this module stays pure.
 *
 * `size` is exact without decoding: the text's UTF-8 length is its bytes less what each JSON escape
 * saves. Anything the escapes alone cannot settle (an escape that makes a `"`, `\` or control
 * character of the frame's text, which may or may not be a proper JSON string) gives null: the caller
 * takes its eager path, which decides.
 */
import type { Direction, Frame } from './frame.js';
import { CHUNK_UPDATES, type ChunkMessage, chunkHead, chunkTail, chunkUpdate, F_HEAD, F_KIND, F_TAIL, F_TEXT } from './chunk-line.js';
import { utf8Length } from './make-frame.js';
import { chunkStampOf, Stamp } from './chunk-stamp.js';

/** Decodes UTF-8 bytes held as a Latin-1 string (a character per byte) into their text. */
export type Utf8Decoder = (latin1: string) => string;

const BACKSLASH = 0x5c;

/** The 4 hex digits of `s` at `at` as a number (the caller's match proved them hex), else -1. */
function hex4(s: string, at: number): number {
  let v = 0;
  for (let i = at; i < at + 4; i++) {
    const c = s.charCodeAt(i) | 0x20; // lower case (digits keep their value)
    if (c >= 0x30 && c <= 0x39) v = v * 16 + c - 0x30;
    else if (c >= 0x61 && c <= 0x66) v = v * 16 + c - 0x57;
    else return -1;
  }
  return v;
}

/**
 * What the `\uXXXX` escape at `s[i]` (its value `u`) saves of its 6 bytes in UTF-8: 5, 4 or 3 as
 * the character takes 1, 2 or 3 bytes (a lone surrogate 3 too: UTF-8 writes it as U+FFFD), and 8 of
 * the 12 when a low surrogate's escape follows a high one's (the pair is a 4-byte character).
 */
function uEscapeSaves(s: string, i: number, u: number): number {
  if (u < 0x80) return 5;
  if (u < 0x800) return 4;
  if (u >= 0xd800 && u <= 0xdbff && s.charCodeAt(i + 6) === BACKSLASH && s.charCodeAt(i + 7) === 0x75 && (hex4(s, i + 8) & 0xfc00) === 0xdc00) return 8;
  return 3;
}

/**
 * The UTF-8 length of the frame's text body that the line's span `span` spells (a JSON string body
 * in the transcript line, with the line's escapes; as bytes, a character per byte), when that body
 * is a proper JSON string body with nothing but what the line's escapes say; else -1. Only the
 * escapes are looked at: everything else in the span is a character the body holds as is (the
 * line's match refused `"`, `\` and control characters outside escapes).
 */
export function spanBodyBytes(span: string): number {
  return spanBytes(span, false);
}

/**
 * The UTF-8 length of the frame's text that the line's span `span` spells (as spanBodyBytes takes
 * it; ASCII text too), both levels of escapes undone (the line's, then the frame's), when the escapes
 * alone settle it; else -1 (as spanBodyBytes's, and for a surrogate escape not in a pair of its own
 * level, whose character may pair with one the other level makes).
 */
export function spanTextBytes(span: string): number {
  return spanBytes(span, true);
}

/** spanBodyBytes, or with `text` spanTextBytes. */
function spanBytes(span: string, text: boolean): number {
  let n = span.length;
  let i = span.indexOf('\\');
  while (i >= 0) {
    const c = span.charCodeAt(i + 1);
    if (c === BACKSLASH) {
      // `\\` is the body's backslash: one of the frame's escapes follows.
      const d = span.charCodeAt(i + 2);
      if (d === BACKSLASH) {
        // `\\\"`, `\\\\` or `\\\/`: the body's `\"`, `\\` or `\/`, the text's `"`, `\` or `/` (4 bytes become 2, or 1).
        const e = span.charCodeAt(i + 3);
        if (e !== 0x22 && e !== BACKSLASH && e !== 0x2f) return -1;
        n -= text ? 3 : 2;
        i += 4;
      } else if (d === 0x2f || d === 0x62 || d === 0x66 || d === 0x6e || d === 0x72 || d === 0x74) {
        n -= text ? 2 : 1; // `\\/`, `\\n`, ...: the body's `\/`, `\n`, ..., the text's `/`, newline, ...
        i += 3;
      } else if (d === 0x75) {
        // `\\uXXXX`: the body's `\uXXXX` (7 bytes become 6), the text's character (1 to 3; a pair's 14, 4).
        const u = hex4(span, i + 3);
        if (u < 0) return -1;
        if (!text) n -= 1;
        else if (u < 0xd800 || u > 0xdfff) n -= u < 0x80 ? 6 : u < 0x800 ? 5 : 4;
        else if (u <= 0xdbff && span.charCodeAt(i + 7) === BACKSLASH && span.charCodeAt(i + 8) === BACKSLASH && span.charCodeAt(i + 9) === 0x75 && (hex4(span, i + 10) & 0xfc00) === 0xdc00) {
          n -= 10;
          i += 7;
        } else return -1;
        i += 7;
      } else return -1;
    } else if (c === 0x2f) {
      n -= 1; // `\/` is `/`
      i += 2;
    } else if (c === 0x75) {
      const u = hex4(span, i + 2);
      // A `"`, `\` or control character in the body: not settled here.
      if (u < 0x20 || u === 0x22 || u === BACKSLASH) return -1;
      const saved = uEscapeSaves(span, i, u);
      if (text && saved === 3 && u >= 0xd800 && u <= 0xdfff) return -1;
      n -= saved;
      i += saved === 8 ? 12 : 6;
    } else return -1; // `\"` is a bare `"` in the body, `\n` and the like a control character
    i = span.indexOf('\\', i);
  }
  return n;
}

/**
 * What the escapes of the JSON string body `s.slice(from, to)` (a proper one: its match proved it)
 * save in UTF-8: the body's UTF-8 length less this is its text's.
 */
export function escapeSavings(s: string, from: number, to: number): number {
  let n = 0;
  let i = s.indexOf('\\', from);
  while (i >= 0 && i < to) {
    if (s.charCodeAt(i + 1) === 0x75) {
      const saved = uEscapeSaves(s, i, hex4(s, i + 2));
      n += saved;
      i += saved === 8 ? 12 : 6;
    } else {
      n += 1; // `\"`, `\\`, `\/`, `\n`, ...: one byte
      i += 2;
    }
    i = s.indexOf('\\', i);
  }
  return n;
}

/** What a lazy frame decodes when it is read (and keeps): its raw text, and its chunk's text. */
export interface Decoded {
  raw(): string;
  textOf(): string;
  /** The text's UTF-8 length (as utf8Length of textOf() counts it), without decoding it where it can. */
  textBytes(): number;
  /** The raw text's UTF-8 length, without decoding it (a frame whose `size` is an accessor). */
  rawBytes?(): number;
}

/** A transcript line's chunk frame: the raw text is made of its head, its body and its tail. */
class LineText implements Decoded {
  private size: number | undefined;
  private body: string | undefined;
  private rawText: string | undefined;
  private text: string | undefined;

  /** `head` and `tail`: the raw text up to the body and after it; `span`, `escaped` and `decode` as lazyChunkFrame's. */
  constructor(private readonly head: string, private readonly tail: string, private readonly span: string, private readonly escaped: boolean, private readonly decode: Utf8Decoder | undefined) {}

  /** The frame's text body, as the raw text has it. */
  private bodyOf(): string {
    if (this.body === undefined) {
      const s = this.decode === undefined ? this.span : this.decode(this.span);
      // The line's escapes undone (its match proved the span a JSON string body: this cannot throw).
      this.body = this.escaped ? (JSON.parse('"' + s + '"') as string) : s;
    }
    return this.body;
  }

  raw(): string {
    return (this.rawText ??= this.head + this.bodyOf() + this.tail);
  }

  textOf(): string {
    if (this.text === undefined) {
      const body = this.bodyOf();
      // The line's match proved the body a proper JSON string body: only its escapes need undoing.
      this.text = body.indexOf('\\') < 0 ? body : (JSON.parse('"' + body + '"') as string);
    }
    return this.text;
  }

  textBytes(): number {
    if (this.text === undefined) {
      // From the span's escapes, without decoding it (a span without escapes: its length in bytes).
      const n = this.escaped ? spanTextBytes(this.span) : this.span.length;
      if (n >= 0) return n;
    }
    return utf8Length(this.textOf());
  }

  /** The raw text's bytes: the head's and tail's (ASCII: the line recogniser takes its ids in ASCII only) and the body's, the span's bytes less what the line's escapes save. */
  rawBytes(): number {
    if (this.size === undefined) {
      const body = this.escaped ? spanBodyBytes(this.span) : this.span.length;
      // (The span's match promises a body spanBodyBytes settles: the decoded text is the fallback all the same.)
      this.size = body >= 0 ? this.head.length + body + this.tail.length : utf8Length(this.raw());
    }
    return this.size;
  }
}

/**
 * A raw frame's chunk (a stored row's): `src` is the raw text, or its UTF-8 bytes a character each
 * when `decode` is given; its text is the JSON string body `src.slice(bodyStart, bodyEnd)`, which
 * has escapes when `escaped` (its match proved it a proper one).
 */
export class RawText implements Decoded {
  private rawText: string | undefined;
  private text: string | undefined;

  constructor(private readonly src: string, private readonly bodyStart: number, private readonly bodyEnd: number, private readonly escaped: boolean, private readonly decode: Utf8Decoder | undefined) {}

  raw(): string {
    return (this.rawText ??= this.decode === undefined ? this.src : this.decode(this.src));
  }

  textOf(): string {
    if (this.text === undefined) {
      const body = this.src.slice(this.bodyStart, this.bodyEnd);
      const s = this.decode === undefined ? body : this.decode(body);
      this.text = this.escaped ? (JSON.parse('"' + s + '"') as string) : s;
    }
    return this.text;
  }

  textBytes(): number {
    // The body's UTF-8 length (bytes count as they are) less what its escapes save.
    if (this.text !== undefined) return utf8Length(this.text);
    const body = this.decode === undefined ? utf8Length(this.src.slice(this.bodyStart, this.bodyEnd)) : this.bodyEnd - this.bodyStart;
    return this.escaped ? body - escapeSavings(this.src, this.bodyStart, this.bodyEnd) : body;
  }
}

/** The frame's hidden state (see Stamp). */
class Lazy extends Stamp {
  #text: Decoded;
  constructor(o: object, text: Decoded) {
    super(o);
    this.#text = text;
  }

  static of(o: object): Decoded {
    return (o as Lazy).#text;
  }

  static has(o: object): boolean {
    return #text in o;
  }
}

/** The accessors, shared by every lazy frame (so that they all share one shape). */
function setData(o: object, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
}
const RAW: PropertyDescriptor = {
  get(this: object) { return Lazy.of(this).raw(); },
  set(this: object, v: unknown) { setData(this, 'raw', v); },
  enumerable: true,
  configurable: true,
};
const SIZE: PropertyDescriptor = {
  get(this: object) { return Lazy.of(this).rawBytes!(); },
  set(this: object, v: unknown) { setData(this, 'size', v); },
  enumerable: true,
  configurable: true,
};
const TEXT: PropertyDescriptor = {
  get(this: object) { return Lazy.of(this).textOf(); },
  set(this: object, v: unknown) { setData(this, 'text', v); },
  enumerable: true,
  configurable: true,
};

/**
 * The UTF-8 length of a content block's `text` when the block is a lazy chunk frame's (counted
 * without decoding it where its bytes allow), else -1.
 */
export function lazyTextBytes(content: unknown): number {
  return typeof content === 'object' && content !== null && Lazy.has(content) ? Lazy.of(content).textBytes() : -1;
}

/**
 * The update kind (an index into CHUNK_UPDATES) of a lazy chunk frame, else -1: Checker.step's
 * `chunk` hint, for a reader that did not keep the one its frames were made with (its JSON is a
 * recognised text chunk's, so the schema's verdict is its kind's; without the hint, validating the
 * frame would read, and so decode, its text).
 */
export function lazyChunkKind(item: object): number {
  const u = ((item as { json?: unknown }).json as { params?: { update?: { sessionUpdate?: unknown; content?: unknown } } } | undefined)?.params?.update;
  const c = u?.content;
  return typeof c === 'object' && c !== null && Lazy.has(c) ? CHUNK_UPDATES.indexOf(u!.sessionUpdate as (typeof CHUNK_UPDATES)[number]) : -1;
}

/** A chunk frame's `json` (with the chunk's messageId `mid`, if any), its content's `text` read from `text` when read. */
export function lazyChunkJson(sessionId: string, kind: string, text: Decoded, mid?: ChunkMessage): Frame['json'] {
  const content = { type: 'text' } as { type: 'text'; text: string };
  Object.defineProperty(content, 'text', TEXT);
  new Lazy(content, text);
  return { jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: chunkUpdate(kind, content, mid) } };
}

/** The start of a frame whose `raw` is read from `text` when read: seq, t, dir and raw (add the rest in order). */
export function lazyFrameHead(seq: number, t: number, dir: Direction, text: Decoded): Frame {
  const f = { seq, t, dir } as Frame;
  Object.defineProperty(f, 'raw', RAW);
  new Lazy(f, text);
  return f;
}

/**
 * The text chunk frame of a transcript line recognised by matchChunkLine (chunkLineFrame's, with the
 * same arguments), with its raw and text decoded when read, and its size counted when read (from
 * the span's escapes: a reader such as the checker, which never reads it, never pays for it).
 * `span`: the line's text span as its UTF-8 bytes, a character per byte, which must be valid UTF-8
 * (the caller checks), and `decode` their decoder; or, `decode` undefined, the span as text (ASCII:
 * there is nothing to decode, only escapes). `out.update` is set to `update` (the checker's hint).
 * `size`: the raw text's UTF-8 length, when the caller knows it. `mid`: the chunk's messageId, if any.
 */
export function lazyChunkFrame(seq: number, t: number, dir: Direction, sessionId: string, update: number, span: string, escaped: boolean, decode: Utf8Decoder | undefined, out: { update: number }, size?: number, mid?: ChunkMessage): Frame {
  const kind = CHUNK_UPDATES[update]!;
  const text = new LineText(chunkHead(sessionId, kind, mid), chunkTail(mid), span, escaped, decode);
  // The fields in textChunkFrame's order.
  const f = lazyFrameHead(seq, t, dir, text);
  if (size === undefined) Object.defineProperty(f, 'size', SIZE);
  else f.size = size;
  f.kind = 'notification';
  f.method = 'session/update';
  f.json = lazyChunkJson(sessionId, kind, text, mid);
  f.sessionId = sessionId;
  out.update = update;
  return f;
}

/**
 * A stored text chunk frame's text, read from the store only when read (the row's `chunk` column
 * said its update kind and its text's UTF-8 length, and the frame's JSON is the SDK's form of those
 * and its session id): `fetch` reads the row's raw text.
 */
export class StoredText implements Decoded {
  private rawText: string | undefined;
  private text: string | undefined;

  constructor(private readonly fetch: (seq: number) => string, private readonly seq: number, private readonly bytes: number) {}

  raw(): string {
    return (this.rawText ??= this.fetch(this.seq));
  }

  textOf(): string {
    return (this.text ??= (JSON.parse(this.raw()) as { params: { update: { content: { text: string } } } }).params.update.content.text);
  }

  textBytes(): number {
    return this.bytes;
  }
}

/**
 * The store's `chunk` column of a frame (store/schema.ts): for a text chunk frame in the SDK's form
 * without a messageId (the column does not hold one; one a recogniser made, lazy or marked by
 * chunk-stamp.ts, its raw text as it was made), its text's
 * UTF-8 length times 4 plus its update kind (an index into CHUNK_UPDATES); else null. From a lazy
 * frame without decoding its text where its bytes allow; from another, from its raw text's escapes.
 */
export function chunkColumnOf(f: Frame): number | null {
  if (f.kind !== 'notification' || f.truncated || f.rawBase64 !== undefined || f.sessionId === undefined) return null;
  if (Lazy.has(f)) {
    // Its raw text and its content's text still the accessors (neither assigned since).
    const u = (f.json as { params?: { update?: { sessionUpdate?: unknown; content?: unknown } } } | undefined)?.params?.update;
    const c = u?.content;
    if (typeof c !== 'object' || c === null || !Lazy.has(c) || Lazy.of(c) !== Lazy.of(f) || 'messageId' in u!) return null;
    if (Object.getOwnPropertyDescriptor(f, 'raw')?.get !== RAW.get || Object.getOwnPropertyDescriptor(c, 'text')?.get !== TEXT.get) return null;
    const k = CHUNK_UPDATES.indexOf(u!.sessionUpdate as (typeof CHUNK_UPDATES)[number]);
    return k < 0 ? null : Lazy.of(c).textBytes() * 4 + k;
  }
  const k = chunkStampOf(f);
  if (k < 0) return null;
  // The text body is what lies between the head and the tail: its bytes less what its escapes save.
  const raw = f.raw;
  const sid = f.sessionId;
  const headChars = F_HEAD.length + sid.length + F_KIND.length + CHUNK_UPDATES[k]!.length + F_TEXT.length;
  const end = raw.length - F_TAIL.length;
  if (end < headChars || raw.charCodeAt(end) !== 0x22) return null;
  const body = f.size - (headChars - sid.length + utf8Length(sid)) - F_TAIL.length;
  return (body - escapeSavings(raw, headChars, end)) * 4 + k;
}
