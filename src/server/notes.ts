/**
 * The notes API: list, create, update and delete a recording's notes (marks are notes with empty
 * text). JSON in and out; the live stream tells every open page (`{"type":"notes"}`) when they change.
 *
 *   GET    /api/recordings/:id/notes               [{id, recordingId, seq, text, createdAt, updatedAt}]
 *   POST   /api/recordings/:id/notes  {seq, text}  201 the note
 *   PATCH  /api/recordings/:id/notes/:noteId {text}   the note (PUT too)
 *   DELETE /api/recordings/:id/notes/:noteId       {deleted: noteId}
 */
import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { MAX_NOTE_CHARS, type Store } from '../store/store.js';
import type { LiveBus } from './live.js';

export interface NoteRoutesContext {
  store: Store;
  live: LiveBus;
  /** The recording id of the request (404 when there is none). */
  recId: (c: Context) => number;
}

/** A JSON answer `{error}` with a status, for the app's error handler. */
export class NotesHttpError extends Error {
  constructor(readonly status: 400 | 404 | 413, message: string) {
    super(message);
  }
}

async function body(c: Context): Promise<Record<string, unknown>> {
  let v: unknown;
  try {
    v = await c.req.json();
  } catch {
    throw new NotesHttpError(400, 'the body must be a JSON object like {"seq": 12, "text": "why so slow?"}');
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new NotesHttpError(400, 'the body must be a JSON object like {"seq": 12, "text": "why so slow?"}');
  return v as Record<string, unknown>;
}

function text(v: unknown): string {
  if (v === undefined) return '';
  if (typeof v !== 'string') throw new NotesHttpError(400, '"text" must be a string ("" for a bare mark)');
  return v;
}

function noteId(c: Context): number {
  const v = c.req.param('noteId') ?? '';
  if (!/^\d+$/.test(v)) throw new NotesHttpError(404, `no note with id ${v}`);
  return Number(v);
}

export function registerNoteRoutes(app: Hono, { store, live, recId }: NoteRoutesContext): void {
  const limit = bodyLimit({
    maxSize: MAX_NOTE_CHARS * 4 + 1024,
    onError: (c) => c.json({ error: `the note is too long; a note holds at most ${MAX_NOTE_CHARS} characters` }, 413),
  });
  app.get('/api/recordings/:id/notes', (c) => c.json(store.readNotes(recId(c))));
  app.post('/api/recordings/:id/notes', limit, async (c) => {
    const id = recId(c);
    const b = await body(c);
    if (typeof b.seq !== 'number' || !Number.isSafeInteger(b.seq)) throw new NotesHttpError(400, '"seq" must be the whole number of the item the note is on');
    const note = store.addNote(id, b.seq, text(b.text));
    live.poke();
    return c.json(note, 201);
  });
  const update = async (c: Context) => {
    const id = recId(c);
    const b = await body(c);
    if (b.text === undefined) throw new NotesHttpError(400, 'send {"text": "..."} with the new text');
    const note = store.updateNote(id, noteId(c), text(b.text));
    live.poke();
    return c.json(note);
  };
  app.patch('/api/recordings/:id/notes/:noteId', limit, update);
  app.put('/api/recordings/:id/notes/:noteId', limit, update);
  app.delete('/api/recordings/:id/notes/:noteId', (c) => {
    const id = recId(c);
    const nid = noteId(c);
    store.deleteNotes(id, [nid]);
    live.poke();
    return c.json({ deleted: nid });
  });
}
