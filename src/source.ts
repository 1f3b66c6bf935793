/**
 * Resolves what a user names on the command line — a recording id, `latest`, or a transcript file —
 * into an in-memory Recording. Shared by export, check, replay, diff and the fixtures API.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseTranscript, type Recording, TranscriptError } from './transcript/format.js';
import { openCapture, pairFiles } from './transcript/open-capture.js';
import { Store } from './store/store.js';
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

/** Reads and parses a transcript file (or a capture of another tool's format: openCapture); errors name the file. */
export function readTranscriptFile(file: string): Recording {
  const opened = openCapture(file);
  const text = opened.kind === 'transcript' ? readFileSync(file, 'utf8') : opened.text;
  try {
    return parseTranscript(text);
  } catch (e) {
    throw e instanceof TranscriptError ? e.inFile(file) : e;
  }
}

/**
 * Runs `fn` on the database's recording `<id|latest>`, first marking recordings whose tap is gone as
 * interrupted where the database can be written (read-only or locked: reading still works).
 */
function withStoredRef<T>(ref: string, dbPath: string | undefined, fn: (store: Store, id: number) => T): T {
  const store = Store.open(dbPath, { mustExist: true });
  try {
    try {
      store.markInterrupted();
    } catch { /* read-only or locked: reading still works */ }
    return fn(store, store.resolveRef(ref));
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

export { StoreError, TranscriptError };
