/**
 * The transcript format (JSONL): the contract between export, import, check, replay and fixtures.
 *
 *   {"acpInspect":"recording","version":1,"name":...,"startedAt":...,"command":[...],...}   optional header
 *   {"t":12.5,"dir":"c2a","raw":"{\"jsonrpc\":\"2.0\",...}"}                                one line per item
 *   {"t":13.0,"dir":"stderr","raw":"agent log line"}
 *   {"t":0.2,"dir":"event","type":"spawn","data":{"command":"node","args":[...],"pid":123}}
 *
 * - `seq` of an item is its 1-based position among the non-header, non-blank, non-note lines.
 * - Import also accepts `"frame": <JSON value>` instead of `"raw"`; `t` is optional (then it repeats
 *   the previous item's time).
 * - Raw bytes that are not valid UTF-8 are written as `"rawBase64"` (with a lossy `"raw"` beside it);
 *   `"truncated": true` with `"size"` marks a frame whose stored text was cut by the store's cap.
 * - Readers skip `dir` values they do not know (the line still takes its seq).
 *   {"t":13.0,"dir":"note","seq":4,"text":"why so slow?","at":"2026-..."}       a user's note on item 4
 * - Note lines come after every item (so readers that skip them number the items the same) and take
 *   no seq; `seq` names the item they are on, `t` repeats that item's time, `at` is when it was written.
 * - Version 1 is the only version so far; `migrateHeader` is where older versions will be upgraded.
 */
import { type EventItem, type Item, type StderrItem, isFrame } from '../wire/frame.js';
import { frameFromText } from '../wire/make-frame.js';
import { Correlator } from '../wire/correlate.js';
import { decodeUtf8 } from '../wire/line-splitter.js';

export const TRANSCRIPT_VERSION = 1;

/** Header line of a transcript; every field but the marker is optional. */
export interface TranscriptHeader {
  acpInspect: 'recording';
  version: number;
  name?: string;
  startedAt?: string;
  endedAt?: string;
  command?: string[];
  cwd?: string;
  pid?: number;
  exitCode?: number | null;
  exitSignal?: string | null;
  status?: string;
  client?: { name?: string; version?: string; title?: string };
  agent?: { name?: string; version?: string; title?: string };
  protocolVersion?: number;
  [key: string]: unknown;
}

/** A user's note (or a bare mark, with empty text) on one item of a recording. */
export interface TranscriptNote {
  /** seq of the item it is on. */
  seq: number;
  text: string;
  /** When it was written (ISO 8601), when known. */
  at?: string;
  /** When its text was last changed (ISO 8601), when it was. */
  updatedAt?: string;
}

/** A recording in memory: its header and every item in seq order, responses correlated. */
export interface Recording {
  header: TranscriptHeader;
  items: Item[];
  /** Notes on its items, in seq order (absent when there are none). */
  notes?: TranscriptNote[];
}

/** Where a transcript error sends the user to read what a file must look like. */
export const FORMAT_HINT = 'see docs/formats.md';

/**
 * Bad transcript input; `line` is 1-based in the file. The message names the file (when known),
 * then the line, then what is wrong, each once: `detail` is what is wrong alone.
 */
export class TranscriptError extends Error {
  readonly code = 'E_TRANSCRIPT';
  readonly detail: string;
  constructor(message: string, readonly line?: number, readonly file?: string) {
    super(`${file !== undefined ? `${file}: ` : ''}${line !== undefined ? `line ${line}: ` : ''}${message}`);
    this.detail = message;
  }

  /** An error about `file` as a whole, whose `message` names the file already. */
  static ofFile(file: string, message: string): TranscriptError {
    const e = new TranscriptError(message);
    Object.defineProperty(e, 'file', { value: file });
    return e;
  }

  /** The same error as read from `file`, with the pointer to the format; an error that names its file already stays as it is. */
  inFile(file: string): TranscriptError {
    if (this.file !== undefined) return this;
    return new TranscriptError(this.detail.includes(FORMAT_HINT) ? this.detail : `${this.detail}; ${FORMAT_HINT}`, this.line, file);
  }
}

function isHeader(v: unknown): v is TranscriptHeader {
  return !!v && typeof v === 'object' && !Array.isArray(v) && (v as Record<string, unknown>).acpInspect === 'recording';
}

/** Upgrades a header of an older format version (none exist yet) or refuses a newer one. */
export function migrateHeader(h: TranscriptHeader, line: number): TranscriptHeader {
  if (typeof h.version !== 'number' || !Number.isInteger(h.version) || h.version < 1) {
    throw new TranscriptError(`header "version" must be a positive integer, got ${JSON.stringify(h.version)}`, line);
  }
  if (h.version > TRANSCRIPT_VERSION) {
    throw new TranscriptError(`transcript version ${h.version} is newer than this acp-inspect understands (${TRANSCRIPT_VERSION}); upgrade acp-inspect`, line);
  }
  if (h.name !== undefined && typeof h.name !== 'string') throw new TranscriptError('header "name" must be a string', line);
  if (h.command !== undefined && !(Array.isArray(h.command) && h.command.every((c) => typeof c === 'string'))) {
    throw new TranscriptError('header "command" must be an array of strings', line);
  }
  return h;
}

/**
 * One transcript line, read but not yet turned into an Item: what the line says, checked against
 * the format. `raw` is set for frames and stderr lines, `type`/`data` for events.
 */
export interface TranscriptLine {
  seq: number;
  t: number;
  dir: 'c2a' | 'a2c' | 'stderr' | 'event';
  raw?: string;
  /** `"size"` of the line when it is a number (the frame's size on the wire). */
  size?: number;
  rawBase64?: string;
  truncated?: boolean;
  type?: string;
  data?: Record<string, unknown>;
}

/**
 * Reads a transcript line by line, in order (the one place that knows the line format): the header,
 * seq numbering, `t` carried over, and every format error with its line number.
 */
export class TranscriptLineReader {
  header: TranscriptHeader = { acpInspect: 'recording', version: TRANSCRIPT_VERSION };
  /** seq of the last item read (blank lines, the header and notes take none). */
  seq = 0;
  /** Note lines read so far (they are not items: `read` returns undefined for them). */
  readonly notes: TranscriptNote[] = [];
  private lastT = 0;
  private sawContent = false;

  /**
   * Counts a frame line that was read without this reader (wire/chunk-line.ts recognised it: a
   * `c2a`/`a2c` line with `t` and `raw` only, which read() would return as such): its seq.
   */
  countRecognised(t: number): number {
    this.sawContent = true;
    this.lastT = t;
    return ++this.seq;
  }

  /**
   * Reads one line (`lineNo` 1-based, for errors). Returns undefined for a blank line, the header
   * and a line of a `dir` this version does not know (that line still takes its seq).
   * Throws TranscriptError on a line that breaks the format.
   */
  read(lineText: string, lineNo: number): TranscriptLine | undefined {
    // Transcript lines start with "{"; only other lines need the slower blank test.
    if (lineText.charCodeAt(0) !== 123 && lineText.trim() === '') return undefined;
    let v: unknown;
    try {
      v = JSON.parse(lineText);
    } catch (e) {
      throw new TranscriptError(`not JSON (${(e as Error).message}); each line must be a JSON object`, lineNo);
    }
    if (!this.sawContent && isHeader(v)) {
      this.header = migrateHeader(v, lineNo);
      this.sawContent = true;
      return undefined;
    }
    this.sawContent = true;
    if (!v || typeof v !== 'object' || Array.isArray(v)) {
      throw new TranscriptError('each line must be a JSON object like {"t":0,"dir":"c2a","raw":"..."}', lineNo);
    }
    const o = v as Record<string, unknown>;
    if (o.dir === 'note') {
      this.notes.push(noteFromLine(o, lineNo));
      return undefined;
    }
    const seq = ++this.seq;
    let t = this.lastT;
    if (o.t !== undefined) {
      if (typeof o.t !== 'number' || !Number.isFinite(o.t)) throw new TranscriptError('"t" must be a number (ms since start)', lineNo);
      t = o.t;
    }
    this.lastT = t;
    const dir = o.dir;
    if (dir === 'c2a' || dir === 'a2c') {
      let raw: string;
      let rawBase64: string | undefined;
      if (typeof o.rawBase64 === 'string') {
        raw = decodeBase64Utf8(o.rawBase64);
        rawBase64 = o.rawBase64;
      } else if (typeof o.raw === 'string') {
        raw = o.raw;
      } else if ('frame' in o) {
        raw = JSON.stringify(o.frame) ?? 'null';
      } else {
        throw new TranscriptError(`a "${dir}" line needs "raw" (the exact line) or "frame" (a JSON value)`, lineNo);
      }
      const line: TranscriptLine = { seq, t, dir, raw };
      if (typeof o.size === 'number') line.size = o.size;
      if (rawBase64 !== undefined) line.rawBase64 = rawBase64;
      if (o.truncated === true) line.truncated = true;
      return line;
    }
    if (dir === 'stderr') return { seq, t, dir, raw: typeof o.raw === 'string' ? o.raw : String(o.raw ?? '') };
    if (dir === 'event') {
      const type = typeof o.type === 'string' ? o.type : 'unknown';
      const data = o.data && typeof o.data === 'object' && !Array.isArray(o.data) ? (o.data as Record<string, unknown>) : {};
      return { seq, t, dir, type, data };
    }
    if (typeof dir !== 'string') throw new TranscriptError('"dir" must be "c2a", "a2c", "stderr" or "event"', lineNo);
    // Unknown dir strings: skipped (future kinds), the seq stays taken.
    return undefined;
  }
}

function noteFromLine(o: Record<string, unknown>, lineNo: number): TranscriptNote {
  if (typeof o.seq !== 'number' || !Number.isSafeInteger(o.seq) || o.seq < 1) {
    throw new TranscriptError('a "note" line needs "seq", the positive whole number of the item it is on', lineNo);
  }
  if (typeof o.text !== 'string') throw new TranscriptError('a "note" line needs "text" (a string; "" for a bare mark)', lineNo);
  const n: TranscriptNote = { seq: o.seq, text: o.text };
  if (typeof o.at === 'string') n.at = o.at;
  if (typeof o.updatedAt === 'string') n.updatedAt = o.updatedAt;
  return n;
}

/** Throws when a note is on an item the transcript does not have. */
export function checkNotes(notes: readonly TranscriptNote[], items: number): void {
  const bad = notes.find((n) => n.seq > items);
  if (bad) throw new TranscriptError(`a note is on item #${bad.seq}, but the transcript has ${items} item${items === 1 ? '' : 's'}; fix its "seq" or remove the note line`);
}

/** The lossy UTF-8 text of base64 bytes (Buffer in Node, atob and TextDecoder in a browser). */
function decodeBase64Utf8(b64: string): string {
  if (typeof Buffer !== 'undefined') return decodeUtf8(Buffer.from(b64, 'base64')).text;
  const bin = atob(b64.replace(/[^A-Za-z0-9+/]/g, ''));
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new TextDecoder().decode(bytes);
}

/** The Item a transcript line stands for (frames parsed and classified, not yet correlated). */
export function itemFromLine(l: TranscriptLine): Item {
  const dir = l.dir;
  if (dir === 'c2a' || dir === 'a2c') {
    const frame = frameFromText(l.seq, l.t, dir, l.raw!, l.size);
    if (l.rawBase64 !== undefined) {
      frame.rawBase64 = l.rawBase64;
      frame.kind = 'invalid';
      frame.parseError = frame.parseError ? `invalid UTF-8; ${frame.parseError}` : 'invalid UTF-8';
    }
    if (l.truncated) frame.truncated = true;
    return frame;
  }
  if (dir === 'stderr') {
    const s: StderrItem = { seq: l.seq, t: l.t, dir, raw: l.raw! };
    return s;
  }
  const ev: EventItem = { seq: l.seq, t: l.t, dir, type: l.type!, data: l.data! };
  return ev;
}

/**
 * Parses a whole transcript. Throws TranscriptError (with the line number) on a line that is not a
 * JSON object or lacks what its kind needs; never returns partial data silently.
 */
export function parseTranscript(text: string): Recording {
  const lines = text.split('\n');
  const reader = new TranscriptLineReader();
  const items: Item[] = [];
  const correlator = new Correlator();
  for (let i = 0; i < lines.length; i++) {
    const l = reader.read(lines[i]!, i + 1);
    if (l === undefined) continue;
    const item = itemFromLine(l);
    if (isFrame(item)) correlator.observe(item);
    items.push(item);
  }
  if (reader.notes.length === 0) return { header: reader.header, items };
  checkNotes(reader.notes, items.length);
  return { header: reader.header, items, notes: sortNotes(reader.notes) };
}

/** The item with `seq` (items are in seq order; usually item i has seq i + 1). */
export function itemAt(items: readonly Item[], seq: number): Item | undefined {
  const guess = items[seq - 1];
  if (guess?.seq === seq) return guess;
  let lo = 0, hi = items.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = items[mid]!.seq;
    if (s === seq) return items[mid];
    if (s < seq) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

/** Notes in seq order (stable: notes on one item keep their order). */
export function sortNotes(notes: readonly TranscriptNote[]): TranscriptNote[] {
  return [...notes].sort((a, b) => a.seq - b.seq);
}

/** Serializes one note as a transcript line; `t` is the time of the item it is on. */
export function noteToLine(n: TranscriptNote, t: number): string {
  const o: Record<string, unknown> = { t: Math.round(t * 1000) / 1000, dir: 'note', seq: n.seq, text: n.text };
  if (n.at !== undefined) o.at = n.at;
  if (n.updatedAt !== undefined) o.updatedAt = n.updatedAt;
  return JSON.stringify(o);
}

/**
 * A frame's transcript line around its raw text as the UTF-8 bytes of a JSON string (store.ts's
 * RawJsonFrame read as bytes): `head`, then `bytes`, then `tail`, head and tail ASCII. A writer
 * copies the bytes into its output as they are; nothing decodes them.
 */
export interface BytesLine {
  head: string;
  bytes: Uint8Array;
  tail: string;
}

/** A transcript line without its newline: its text, or a BytesLine. */
export type LineOut = string | BytesLine;

/** Serializes one item as a transcript line (no trailing newline). */
export function itemToLine(item: Item): string {
  return lineText(itemLine(item));
}

/** A line as text (the bytes of a BytesLine are valid UTF-8). */
export function lineText(line: LineOut): string {
  return typeof line === 'string' ? line : line.head + (utf8 ??= new TextDecoder()).decode(line.bytes) + line.tail;
}
let utf8: TextDecoder | undefined;

/** Serializes one item as a transcript line (no trailing newline), a BytesLine when the frame's raw text came as bytes. */
function itemLine(item: Item): LineOut {
  const t = Math.round(item.t * 1000) / 1000;
  if (isFrame(item)) {
    // What JSON.stringify of {t, dir, raw, rawBase64?, truncated?, size?} writes, built as text: the
    // object cost a third of the line's time on kilobyte frames (the raw text's escaping is the rest).
    // `rawJson`: the raw text written as a JSON string already (store.ts's RawJsonFrame), maybe as bytes.
    const rawJson = (item as { rawJson?: string | Uint8Array }).rawJson ?? JSON.stringify(item.raw);
    const head = `{"t":${JSON.stringify(t)},"dir":"${item.dir}","raw":`;
    let tail = '}';
    if (item.truncated) tail = item.size === undefined ? ',"truncated":true}' : `,"truncated":true,"size":${JSON.stringify(item.size)}}`;
    if (item.rawBase64 !== undefined) tail = `,"rawBase64":${JSON.stringify(item.rawBase64)}${tail}`;
    return typeof rawJson === 'string' ? head + rawJson + tail : { head, bytes: rawJson, tail };
  }
  if (item.dir === 'stderr') return JSON.stringify({ t, dir: 'stderr', raw: item.raw });
  return JSON.stringify({ t, dir: 'event', type: item.type, data: item.data });
}

/** Serializes a whole recording, header first, one line per item, ending with a newline. */
export function serializeTranscript(rec: Recording): string {
  return [...transcriptLines(rec.header, rec.items, rec.notes)].map(lineText).join('\n') + '\n';
}

/**
 * A recording's transcript one line at a time (no newlines), from items read as they are needed:
 * the header, a line per item, then the notes (each with the time of the item it is on). Holds only
 * the notes and their items' times, so a recording of any size streams through it. `notes` may be a
 * function, asked once every item was read (a transcript file's notes come after its items); then
 * every item's time is kept (8 bytes an item) for the notes to find theirs. A line is text, or a
 * BytesLine for a frame whose raw text came as bytes: a writer copies them as they are.
 */
export function* transcriptLines(header: TranscriptHeader, items: Iterable<Item>, notes: readonly TranscriptNote[] | (() => readonly TranscriptNote[]) = []): Generator<LineOut> {
  yield JSON.stringify(orderHeader({ ...header, acpInspect: 'recording', version: TRANSCRIPT_VERSION }));
  const known = typeof notes === 'function' ? undefined : notes;
  const noted = new Map<number, number>();
  for (const n of known ?? []) noted.set(n.seq, 0);
  let times = new Float64Array(known ? 0 : 1024);
  for (const item of items) {
    if (!known) {
      if (item.seq >= times.length) {
        const more = new Float64Array(Math.max(times.length * 2, item.seq + 1));
        more.set(times);
        times = more;
      }
      times[item.seq] = item.t;
    } else if (noted.size && noted.has(item.seq)) noted.set(item.seq, item.t);
    yield itemLine(item);
  }
  // Notes after every item: a reader that skips them still numbers the items the same.
  for (const n of sortNotes(known ?? (notes as () => readonly TranscriptNote[])())) {
    yield noteToLine(n, known ? (noted.get(n.seq) ?? 0) : (times[n.seq] ?? 0));
  }
}

function orderHeader(h: TranscriptHeader): TranscriptHeader {
  const { acpInspect, version, ...rest } = h;
  return { acpInspect, version, ...rest };
}
