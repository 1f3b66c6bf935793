/**
 * Items as the store keeps them: the columns derived at recording time and the raw text, a frame's
 * JSON parsed only when the item is read. The in-memory source filters and lists these without
 * parsing anything, and the HTML report ships them packed one array per column (numbers and
 * repeated strings compress well, and one JSON.parse reads them all). Pure.
 */
import type { EventItem, Frame, Item, StderrItem } from '../wire/frame.js';
import { classify, sessionIdOf } from '../wire/parse.js';
import { utf8Length } from '../wire/make-frame.js';
import { chunkJsonOf, type ChunkKind } from '../wire/chunk-frame.js';
import { type Decoded, lazyChunkJson, lazyFrameHead, type Utf8Decoder } from '../wire/lazy-chunk.js';
import { CHUNK_UPDATES } from '../wire/chunk-line.js';

/** Where chunkJsonOf says the update kind, when the caller does not ask for it. */
const CHUNK_KIND: ChunkKind = { update: 0 };

export interface ItemColumns {
  seq: number;
  t: number;
  dir: string;
  /** Frame kind, event type, or null (stderr). */
  kind: string | null;
  method: string | null;
  /** JSON text of the JSON-RPC id. */
  rpcId: string | null;
  replyTo: number | null;
  latency: number | null;
  sessionId: string | null;
  size: number | null;
  /** The line (frames, stderr) or the JSON of an event's data. */
  raw: string;
  parseError: string | null;
  truncated: boolean;
  rawBase64: string | null;
}

/** The columns of an item, as the store writes them. */
export function columnsOf(item: Item): ItemColumns {
  if (item.dir === 'c2a' || item.dir === 'a2c') {
    const f = item as Frame;
    return {
      seq: f.seq, t: f.t, dir: f.dir, kind: f.kind, method: f.method ?? null, rpcId: f.id === undefined ? null : JSON.stringify(f.id),
      replyTo: f.replyTo ?? null, latency: f.latency ?? null, sessionId: f.sessionId ?? null, size: f.size, raw: f.raw,
      parseError: f.parseError ?? null, truncated: !!f.truncated, rawBase64: f.rawBase64 ?? null,
    };
  }
  const none = { method: null, rpcId: null, replyTo: null, latency: null, sessionId: null, parseError: null, truncated: false, rawBase64: null };
  if (item.dir === 'stderr') return { ...none, seq: item.seq, t: item.t, dir: 'stderr', kind: null, size: utf8Length(item.raw), raw: item.raw };
  const ev = item as EventItem;
  return { ...none, seq: ev.seq, t: ev.t, dir: 'event', kind: ev.type, size: null, raw: JSON.stringify(ev.data) };
}

/**
 * The item of a row of columns, as the store reads it back (`parse` false: see below). `chunk`, when
 * given: its `update` is set to the update kind of a text chunk frame read by chunkJsonOf (what
 * Checker.step takes as `chunk`), else to -1. `decode`, when given: a frame's `raw` is its UTF-8
 * bytes a character each (valid UTF-8), decoded by it; a text chunk frame's raw and text are decoded
 * only when read (wire/lazy-chunk.ts). `stored`, when given: the row is a text chunk frame in the SDK's
 * form (the store's `chunk` column said so) of that update kind and session id (`r.sessionId`), whose
 * raw text (`r.raw` is not) and text are read from `stored.text` when read.
 */
export function itemOf(r: ItemColumns, parse = true, chunk?: ChunkKind, decode?: Utf8Decoder, stored?: { update: number; text: Decoded }): Item {
  if (chunk) chunk.update = -1;
  if (decode && r.dir !== 'c2a' && r.dir !== 'a2c') return itemOf({ ...r, raw: decode(r.raw) }, parse, chunk);
  if (r.dir === 'c2a' || r.dir === 'a2c') {
    let json: unknown;
    let parsed: ReturnType<typeof classify> | undefined;
    let raw = r.raw;
    let lazy: Decoded | undefined;
    // `parse` false: a frame's JSON is left unread (readers of the raw line only: export), and its
    // method and session id are the columns' alone.
    if (parse && (stored !== undefined || (raw !== '' && (r.kind !== 'invalid' || r.parseError === null || !r.parseError.startsWith('not JSON'))))) {
      // Most frames of a long session are text chunks in the SDK's form: read without JSON.parse
      // (wire/chunk-frame.ts gives what it would; the columns already say the method and session id).
      const c = stored !== undefined ? { json: lazyChunkJson(r.sessionId!, CHUNK_UPDATES[stored.update]!, stored.text), raw: stored.text }
        : r.method === 'session/update' && !r.truncated && r.rawBase64 === null ? chunkJsonOf(raw, decode, chunk ?? CHUNK_KIND) : null;
      if (stored !== undefined && chunk) chunk.update = stored.update;
      if (c !== null) {
        json = c.json;
        lazy = c.raw;
      } else {
        if (decode) raw = decode(raw);
        try {
          json = JSON.parse(raw);
          parsed = classify(json);
        } catch { /* stays undefined */ }
      }
    } else if (decode) raw = decode(raw);
    const f = lazy ? lazyFrameHead(r.seq, r.t, r.dir, lazy) : { seq: r.seq, t: r.t, dir: r.dir, raw } as Frame;
    f.size = r.size ?? utf8Length(lazy ? lazy.raw() : raw);
    f.kind = (r.kind as Frame['kind']) ?? 'invalid';
    if (json !== undefined) f.json = json;
    if (r.method !== null) f.method = r.method;
    else if (parsed?.method) f.method = parsed.method;
    if (r.rpcId !== null) f.id = JSON.parse(r.rpcId) as Frame['id'];
    if (r.replyTo !== null) f.replyTo = r.replyTo;
    if (r.latency !== null) f.latency = r.latency;
    if (r.sessionId !== null) f.sessionId = r.sessionId;
    else {
      const sid = sessionIdOf(json);
      if (sid) f.sessionId = sid;
    }
    if (r.parseError !== null) f.parseError = r.parseError;
    if (r.truncated) f.truncated = true;
    if (r.rawBase64 !== null) f.rawBase64 = r.rawBase64;
    return f;
  }
  if (r.dir === 'stderr') return { seq: r.seq, t: r.t, dir: 'stderr', raw: r.raw } satisfies StderrItem;
  let data: Record<string, unknown> = {};
  try { data = JSON.parse(r.raw) as Record<string, unknown>; } catch { /* keep empty */ }
  return { seq: r.seq, t: r.t, dir: 'event', type: r.kind ?? 'unknown', data } satisfies EventItem;
}

/** The item without fields the store does not keep. */
export function storedItem(item: Item): Item {
  if (item.dir !== 'c2a' && item.dir !== 'a2c') return item;
  const { responseSeq: _r, ...rest } = item as Frame;
  return rest;
}

const KEYS = ['seq', 't', 'dir', 'kind', 'method', 'rpcId', 'replyTo', 'latency', 'sessionId', 'size', 'raw', 'parseError', 'truncated', 'rawBase64'] as const;

/** Columns packed one array per column: `{seq: [...], t: [...], ...}`. */
export type PackedColumns = { [K in (typeof KEYS)[number]]: ItemColumns[K][] };

export function packColumns(rows: readonly ItemColumns[]): PackedColumns {
  const out = Object.fromEntries(KEYS.map((k) => [k, new Array(rows.length)])) as { [K in (typeof KEYS)[number]]: unknown[] };
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    for (const k of KEYS) out[k][i] = r[k];
  }
  return out as PackedColumns;
}

export function unpackColumns(p: PackedColumns): ItemColumns[] {
  const n = p.seq.length;
  for (const k of KEYS) {
    if (!Array.isArray(p[k]) || p[k].length !== n) throw new Error(`the embedded recording is damaged (column ${k})`);
  }
  const rows: ItemColumns[] = new Array(n);
  for (let i = 0; i < n; i++) {
    rows[i] = {
      seq: p.seq[i]!, t: p.t[i]!, dir: p.dir[i]!, kind: p.kind[i]!, method: p.method[i]!, rpcId: p.rpcId[i]!, replyTo: p.replyTo[i]!,
      latency: p.latency[i]!, sessionId: p.sessionId[i]!, size: p.size[i]!, raw: p.raw[i]!, parseError: p.parseError[i]!,
      truncated: p.truncated[i]!, rawBase64: p.rawBase64[i]!,
    };
  }
  return rows;
}
