/**
 * Resolves what a user names on the command line — a recording id, `latest`, or a transcript file —
 * into an in-memory Recording. Shared by export, check, replay, diff and the fixtures API.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { checkNotes, parseTranscript, sortNotes, type Recording, type TranscriptHeader, type TranscriptNote, TranscriptError, TranscriptLineReader } from './transcript/format.js';
import { readTranscriptItems } from './transcript/read-file.js';
import type { Item } from './wire/frame.js';
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
  return /\.(jsonl|json|ndjson)$/i.test(ref) || ref.includes('/') || (!/^\d+$/.test(ref) && ref !== 'latest' && existsSync(ref));
}

/** Reads and parses a transcript file; errors name the file. */
export function readTranscriptFile(file: string): Recording {
  if (!existsSync(file)) throw new TranscriptError(`file ${file} does not exist; check the path`);
  if (statSync(file).isDirectory()) throw new TranscriptError(`${file} is a folder, not a transcript (.jsonl) file`);
  const text = readFileSync(file, 'utf8');
  try {
    return parseTranscript(text);
  } catch (e) {
    if (e instanceof TranscriptError) throw new TranscriptError(`${file}: ${e.message}; see the transcript format in the README`);
    throw e;
  }
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
    return { store, id: store.resolveRef(ref) };
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

/** Loads `<id|latest|FILE.jsonl>`; `framesOnly`: from the database, only the protocol frames (for comparing). */
export function loadRecordingRef(ref: string, dbPath?: string, opts: { framesOnly?: boolean } = {}): LoadedRecording {
  if (looksLikeFile(ref)) return { recording: readTranscriptFile(ref), file: ref };
  return withStoredRef(ref, dbPath, (store, id) => ({ recording: opts.framesOnly ? loadFramesOf(store, id) : store.loadRecording(id), id }));
}

/**
 * Hands `fn` the frames of `<id|latest|FILE.jsonl>` in order: from the database one at a time, read
 * from a cursor while `fn` runs (so they need not all be in memory at once).
 */
export function withFramesOf<T>(ref: string, dbPath: string | undefined, fn: (frames: Iterable<Frame>) => T): T {
  if (looksLikeFile(ref)) return fn(readTranscriptFile(ref).items.filter(isFrame));
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
  /** Set when the recording came from the database (then `store` is open on it while `fn` runs). */
  id?: number;
  store?: Store;
  /** Set when the recording came from a file. */
  file?: string;
}

/** The items of a transcript file as a RecordingStream (the header is read before this returns). */
export function transcriptFileStream(file: string): RecordingStream {
  const reader = new TranscriptLineReader();
  const rest = readTranscriptItems(file, reader);
  const first = rest.next(); // reads up to the first item: the header, when there is one
  const items = (function* () {
    if (first.done) return;
    yield first.value;
    yield* rest;
  })();
  return {
    header: reader.header,
    items,
    notes: () => {
      checkNotes(reader.notes, reader.seq);
      return sortNotes(reader.notes);
    },
    file,
  };
}

/**
 * Runs `fn` on `<id|latest|FILE.jsonl>` streamed (see RecordingStream): a stored recording's items
 * are read a page at a time, a file's a read at a time. The database is closed when `fn` is done.
 */
export async function withRecordingStream<T>(ref: string, dbPath: string | undefined, fn: (r: RecordingStream) => T | Promise<T>): Promise<T> {
  if (looksLikeFile(ref)) return fn(transcriptFileStream(ref));
  const { store, id } = openStoredRef(ref, dbPath);
  try {
    const header = store.headerOf(id);
    const notes = store.readNotes(id).map(toTranscriptNote);
    return await fn({ header, items: store.pagedItems(id), notes: () => notes, id, store });
  } finally {
    store.close();
  }
}

export { StoreError, TranscriptError };
