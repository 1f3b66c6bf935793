/**
 * Resolves what a user names on the command line — a recording id, `latest`, or a transcript file —
 * into an in-memory Recording. Shared by export, check, replay, diff and the fixtures API.
 */
import { existsSync, statSync } from 'node:fs';
import { checkNotes, sortNotes, type Recording, type TranscriptHeader, type TranscriptNote, TranscriptError, TranscriptLineReader } from './transcript/format.js';
import { readTranscriptItems } from './transcript/read-file.js';
import type { Item } from './wire/frame.js';
import { pairFiles } from './transcript/open-capture.js';
import { Store, toTranscriptNote } from './store/store.js';
import { StoreError } from './store/errors.js';
import { iterateFrames, loadFramesOf } from './store/frames.js';
import { isFrame, type Frame } from './wire/frame.js';

export interface LoadedRecording {
  recording: Recording;
  /** Set when the recording came from the database. */
  id?: number;
  /** Set when the recording came from a file. */
  file?: string;
}

/** True when `ref` names a file rather than an id or `latest`. */
export function looksLikeFile(ref: string): boolean {
  return /\.(jsonl|json|ndjson)$/i.test(ref) || ref.includes('/') || (!/^\d+$/.test(ref) && ref !== 'latest' && (existsSync(ref) || pairFiles(ref) !== undefined));
}

/**
 * Reads and parses a transcript file (or a capture of another tool's format: openCapture) into
 * memory; errors name the file. Read a piece at a time
 * (transcript/read-file.ts), so a file larger than the longest string V8 makes still loads when its
 * items fit in memory; readers that need not hold it use transcriptFileStream.
 */
export function readTranscriptFile(file: string): Recording {
  const src = transcriptFileStream(file);
  const items = [...src.items];
  const notes = src.notes();
  return notes.length ? { header: src.header, items, notes } : { header: src.header, items };
}

/**
 * Opens the database and resolves `<id|latest>` in it, first marking recordings whose tap is gone as
 * interrupted where the database can be written (read-only or locked: reading still works). The
 * caller closes the store.
 */
export function openStoredRef(ref: string, dbPath: string | undefined): { store: Store; id: number } {
  const store = Store.open(dbPath, { mustExist: true });
  try {
    try {
      store.markInterrupted();
    } catch { /* read-only or locked: reading still works */ }
    return { store, id: store.resolveIndexedRef(ref) };
  } catch (e) {
    store.close();
    throw e;
  }
}

/** Runs `fn` on the database's recording `<id|latest>` (see openStoredRef). */
function withStoredRef<T>(ref: string, dbPath: string | undefined, fn: (store: Store, id: number) => T): T {
  const { store, id } = openStoredRef(ref, dbPath);
  try {
    return fn(store, id);
  } finally {
    store.close();
  }
}

/**
 * The most of a recording a command that must hold it whole may load (replay, the first recording of
 * `diff`): what it holds is a few times the recorded bytes, and every command keeps within 300 MiB.
 * `use` names the command in the refusal, `fix` what to do instead.
 */
export interface MemoryLimit {
  items: number;
  bytes: number;
  use: string;
  fix: string;
}

/**
 * The limit in force: `ACP_INSPECT_HOLD_MAX_ITEMS` (a test and diagnosis knob, like
 * ACP_INSPECT_SQLITE_MAX_PAGE_COUNT) lowers the items a command may hold, so that the refusals are
 * tested on small recordings.
 */
export function holdLimit(limit: MemoryLimit): MemoryLimit {
  const knob = process.env.ACP_INSPECT_HOLD_MAX_ITEMS;
  return knob && /^\d+$/.test(knob) ? { ...limit, items: Math.min(limit.items, Number(knob)) } : limit;
}

/** A recording a command would have to hold whole, past its MemoryLimit: one line, exit 2. */
export class RecordingTooBig extends Error {
  readonly code = 'E_TOO_BIG';
  readonly exitCode = 2;
}

const mib = (n: number) => `${(n / 1048576).toFixed(0)} MiB`;

function tooBig(what: string, size: string, limit: MemoryLimit): RecordingTooBig {
  return new RecordingTooBig(`${what} is too big for ${limit.use} (${size}; it holds the recording in memory, at most ${limit.items.toLocaleString('en-US')} items and ${mib(limit.bytes)} of frames); ${limit.fix}`);
}

/** Throws RecordingTooBig when stored recording `id` is past `limit` (reading at most limit.items rows). */
export function checkStoredSize(store: Store, id: number, limit: MemoryLimit): void {
  const items = store.getRecording(id)?.items ?? 0;
  if (items > limit.items) throw tooBig(`recording ${id}`, `${items.toLocaleString('en-US')} items`, limit);
  const bytes = (store.db.prepare(`SELECT SUM(length(CAST(raw AS BLOB))) AS b FROM (SELECT raw FROM items WHERE recording_id = ? ORDER BY seq LIMIT ?)`)
    .get(id, limit.items + 1) as { b: number | null }).b ?? 0;
  if (bytes > limit.bytes) throw tooBig(`recording ${id}`, `${mib(bytes)} of frames`, limit);
}

/**
 * Reads transcript `file` into memory, refusing it (RecordingTooBig) as soon as it is past `limit`:
 * before reading it when its size says so, else at the item that takes it past.
 */
function readFileWithin(file: string, limit: MemoryLimit): Recording {
  let size = 0;
  try { size = statSync(file).size; } catch { /* the reader names the problem */ }
  // A transcript line adds its JSON around the frame and escapes its quotes: about 1.1 to 1.3 times the frame.
  if (size > limit.bytes * 1.5) throw tooBig(file, `${mib(size)}`, limit);
  const src = transcriptFileStream(file);
  const items: Item[] = [];
  let bytes = 0;
  for (const it of src.items) {
    items.push(it);
    if (it.dir === 'c2a' || it.dir === 'a2c') bytes += (it as Frame).size;
    if (items.length > limit.items) throw tooBig(file, `more than ${limit.items.toLocaleString('en-US')} items`, limit);
    if (bytes > limit.bytes) throw tooBig(file, `more than ${mib(limit.bytes)} of frames`, limit);
  }
  const notes = src.notes();
  return notes.length ? { header: src.header, items, notes } : { header: src.header, items };
}

/**
 * Loads `<id|latest|FILE.jsonl>`; `framesOnly`: from the database, only the protocol frames (for
 * comparing). With `limit`, a recording past it is refused (RecordingTooBig) before it is read.
 */
export function loadRecordingRef(ref: string, dbPath?: string, opts: { framesOnly?: boolean; limit?: MemoryLimit } = {}): LoadedRecording {
  const limit = opts.limit && holdLimit(opts.limit);
  if (looksLikeFile(ref)) {
    return { recording: limit ? readFileWithin(ref, limit) : readTranscriptFile(ref), file: ref };
  }
  return withStoredRef(ref, dbPath, (store, id) => {
    if (limit) checkStoredSize(store, id, limit);
    return { recording: opts.framesOnly ? loadFramesOf(store, id) : store.loadRecording(id), id };
  });
}

/**
 * Hands `fn` the frames of `<id|latest|FILE.jsonl>` in order: from the database one at a time, read
 * from a cursor while `fn` runs (so they need not all be in memory at once).
 */
export function withFramesOf<T>(ref: string, dbPath: string | undefined, fn: (frames: Iterable<Frame>) => T): T {
  if (looksLikeFile(ref)) return fn(framesOf(readTranscriptItems(ref)));
  return withStoredRef(ref, dbPath, (store, id) => fn(iterateFrames(store, id)));
}

/**
 * A recording read as it is needed, never whole: its header, its items (once, in seq order), and its
 * notes (complete once the items were read: a transcript file has them at its end).
 */
export interface RecordingStream {
  header: TranscriptHeader;
  items: Iterable<Item>;
  notes: () => TranscriptNote[];
  /**
   * Set when the recording came from a file: the chunk kind (Checker.step's `chunk`) of the item
   * `items` yielded last (see readTranscriptItems).
   */
  lastChunk?: () => number;
  /**
   * Set when the recording came from a file and the caller asked for it (transcriptFileStream's
   * `rawBytes`): the raw text of the item `items` yielded last as UTF-8 bytes, when it was read so
   * (see readTranscriptItems), else null.
   */
  lastRaw?: () => Buffer | null;
  /** The items read again from the start, as often as asked (for readers that need two passes). */
  reread: () => Iterable<Item>;
  /** Set when the recording came from the database (then `store` is open on it while `fn` runs). */
  id?: number;
  store?: Store;
  /** Set when the recording came from a file. */
  file?: string;
}

/**
 * The items of a transcript file as a RecordingStream (the header is read before this returns).
 * `textless`: as readTranscriptItems takes it (text chunk frames the caller passes over, made without their text).
 * `rawBytes`: set `lastRaw` (for a reader that stores the raw text as it is: import).
 */
export function transcriptFileStream(file: string, textless?: (seq: number) => boolean, rawBytes = false): RecordingStream {
  const reader = new TranscriptLineReader();
  const last: { chunk: number; raw?: Buffer | null } = rawBytes ? { chunk: -1, raw: null } : { chunk: -1 };
  const rest = readTranscriptItems(file, reader, last, textless);
  const first = rest.next(); // reads up to the first item: the header, when there is one
  const items = (function* () {
    try {
      if (first.done) return;
      yield first.value;
      yield* rest;
    } finally {
      rest.return(undefined); // a reader that stops early closes the file
    }
  })();
  return {
    header: reader.header,
    items,
    notes: () => {
      checkNotes(reader.notes, reader.seq);
      return sortNotes(reader.notes);
    },
    lastChunk: () => last.chunk,
    ...(rawBytes ? { lastRaw: () => last.raw ?? null } : {}),
    reread: () => readTranscriptItems(file),
    file,
  };
}

/**
 * Runs `fn` on `<id|latest|FILE.jsonl>` streamed (see RecordingStream): a stored recording's items
 * are read a page at a time, a file's a read at a time. The database is closed when `fn` is done.
 */
export async function withRecordingStream<T>(ref: string, dbPath: string | undefined, fn: (r: RecordingStream) => T | Promise<T>, opts: { json?: boolean; rawJson?: boolean } = {}): Promise<T> {
  if (looksLikeFile(ref)) return fn(transcriptFileStream(ref));
  const { store, id } = openStoredRef(ref, dbPath);
  try {
    const header = store.headerOf(id);
    const notes = store.readNotes(id).map(toTranscriptNote);
    // `json` false: `items` gives a stored recording's frames without their JSON parsed (see redactItems);
    // `rawJson`: as RawJsonFrame, for a reader that writes their transcript lines.
    const items = store.pagedItems(id, 0, Number.MAX_SAFE_INTEGER, 1000, { json: opts.json, rawJson: opts.rawJson });
    return await fn({ header, items, notes: () => notes, reread: () => store.pagedItems(id), id, store });
  } finally {
    store.close();
  }
}

function* framesOf(items: Iterable<Item>): Generator<Frame> {
  for (const it of items) if (isFrame(it)) yield it;
}

export { StoreError, TranscriptError };
