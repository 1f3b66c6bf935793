/**
 * The transcript format (JSONL): the contract between export, import, check, replay and fixtures.
 *
 *   {"acpInspect":"recording","version":1,"name":...,"startedAt":...,"command":[...],...}   optional header
 *   {"t":12.5,"dir":"c2a","raw":"{\"jsonrpc\":\"2.0\",...}"}                                one line per item
 *   {"t":13.0,"dir":"stderr","raw":"agent log line"}
 *   {"t":0.2,"dir":"event","type":"spawn","data":{"command":"node","args":[...],"pid":123}}
 *
 * - `seq` of an item is its 1-based position among the non-header, non-blank lines.
 * - Import also accepts `"frame": <JSON value>` instead of `"raw"`; `t` is optional (then it repeats
 *   the previous item's time).
 * - Raw bytes that are not valid UTF-8 are written as `"rawBase64"` (with a lossy `"raw"` beside it);
 *   `"truncated": true` with `"size"` marks a frame whose stored text was cut by the store's cap.
 * - Readers skip `dir` values they do not know (the line still takes its seq).
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

/** A recording in memory: its header and every item in seq order, responses correlated. */
export interface Recording {
  header: TranscriptHeader;
  items: Item[];
}

/** Bad transcript input; `line` is 1-based in the file. */
export class TranscriptError extends Error {
  readonly code = 'E_TRANSCRIPT';
  constructor(message: string, readonly line?: number) {
    super(line !== undefined ? `line ${line}: ${message}` : message);
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
 * Parses a whole transcript. Throws TranscriptError (with the line number) on a line that is not a
 * JSON object or lacks what its kind needs; never returns partial data silently.
 */
export function parseTranscript(text: string): Recording {
  const lines = text.split('\n');
  let header: TranscriptHeader = { acpInspect: 'recording', version: TRANSCRIPT_VERSION };
  const items: Item[] = [];
  const correlator = new Correlator();
  let seq = 0;
  let lastT = 0;
  let sawContent = false;
  for (let i = 0; i < lines.length; i++) {
    const lineText = lines[i]!;
    if (lineText.trim() === '') continue;
    const lineNo = i + 1;
    let v: unknown;
    try {
      v = JSON.parse(lineText);
    } catch (e) {
      throw new TranscriptError(`not JSON (${(e as Error).message}); each line must be a JSON object`, lineNo);
    }
    if (!sawContent && isHeader(v)) {
      header = migrateHeader(v, lineNo);
      sawContent = true;
      continue;
    }
    sawContent = true;
    if (!v || typeof v !== 'object' || Array.isArray(v)) {
      throw new TranscriptError('each line must be a JSON object like {"t":0,"dir":"c2a","raw":"..."}', lineNo);
    }
    const o = v as Record<string, unknown>;
    seq++;
    let t = lastT;
    if (o.t !== undefined) {
      if (typeof o.t !== 'number' || !Number.isFinite(o.t)) throw new TranscriptError('"t" must be a number (ms since start)', lineNo);
      t = o.t;
    }
    lastT = t;
    const dir = o.dir;
    if (dir === 'c2a' || dir === 'a2c') {
      let raw: string;
      let rawBase64: string | undefined;
      if (typeof o.rawBase64 === 'string') {
        const bytes = Buffer.from(o.rawBase64, 'base64');
        raw = decodeUtf8(bytes).text;
        rawBase64 = o.rawBase64;
      } else if (typeof o.raw === 'string') {
        raw = o.raw;
      } else if ('frame' in o) {
        raw = JSON.stringify(o.frame) ?? 'null';
      } else {
        throw new TranscriptError(`a "${dir}" line needs "raw" (the exact line) or "frame" (a JSON value)`, lineNo);
      }
      const frame = frameFromText(seq, t, dir, raw, typeof o.size === 'number' ? o.size : undefined);
      if (rawBase64 !== undefined) {
        frame.rawBase64 = rawBase64;
        frame.kind = 'invalid';
        frame.parseError = frame.parseError ? `invalid UTF-8; ${frame.parseError}` : 'invalid UTF-8';
      }
      if (o.truncated === true) frame.truncated = true;
      correlator.observe(frame);
      items.push(frame);
    } else if (dir === 'stderr') {
      const s: StderrItem = { seq, t, dir, raw: typeof o.raw === 'string' ? o.raw : String(o.raw ?? '') };
      items.push(s);
    } else if (dir === 'event') {
      const type = typeof o.type === 'string' ? o.type : 'unknown';
      const data = o.data && typeof o.data === 'object' && !Array.isArray(o.data) ? (o.data as Record<string, unknown>) : {};
      const ev: EventItem = { seq, t, dir, type, data };
      items.push(ev);
    } else if (typeof dir !== 'string') {
      throw new TranscriptError('"dir" must be "c2a", "a2c", "stderr" or "event"', lineNo);
    }
    // Unknown dir strings: skipped (future kinds), the seq stays taken.
  }
  return { header, items };
}

/** Serializes one item as a transcript line (no trailing newline). */
export function itemToLine(item: Item): string {
  const t = Math.round(item.t * 1000) / 1000;
  if (isFrame(item)) {
    const o: Record<string, unknown> = { t, dir: item.dir, raw: item.raw };
    if (item.rawBase64 !== undefined) o.rawBase64 = item.rawBase64;
    if (item.truncated) {
      o.truncated = true;
      o.size = item.size;
    }
    return JSON.stringify(o);
  }
  if (item.dir === 'stderr') return JSON.stringify({ t, dir: 'stderr', raw: item.raw });
  return JSON.stringify({ t, dir: 'event', type: item.type, data: item.data });
}

/** Serializes a whole recording, header first, one line per item, ending with a newline. */
export function serializeTranscript(rec: Recording): string {
  const header: TranscriptHeader = { ...rec.header, acpInspect: 'recording', version: TRANSCRIPT_VERSION };
  const out = [JSON.stringify(orderHeader(header))];
  for (const item of rec.items) out.push(itemToLine(item));
  return out.join('\n') + '\n';
}

function orderHeader(h: TranscriptHeader): TranscriptHeader {
  const { acpInspect, version, ...rest } = h;
  return { acpInspect, version, ...rest };
}
