/**
 * Notes: the notes of the selected item in the detail pane (with a form to write, edit and delete
 * them where the source can write: serve), and the Notes panel listing every note of the recording.
 * The report and the viewer show them read-only.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { serverApi, type NoteView } from './api.js';
import { recId, notes, notesBySeq, loadNotes, jumpTo, detailOpen, noteFocusWanted } from './model.js';
import { fmtDate } from './format.js';

function when(n: NoteView): string {
  if (!n.createdAt) return '';
  return `${fmtDate(n.createdAt)}${n.updatedAt ? ` · edited ${fmtDate(n.updatedAt)}` : ''}`;
}

/** Runs a write, then rereads the notes (the live event does too; this is for a page without the stream). */
function useWrite(): [string | null, (w: () => Promise<unknown>) => Promise<boolean>] {
  const [error, setError] = useState<string | null>(null);
  const run = async (w: () => Promise<unknown>) => {
    try {
      await w();
      setError(null);
      loadNotes();
      return true;
    } catch (e) {
      setError((e as Error).message);
      return false;
    }
  };
  return [error, run];
}

function NoteItem({ note }: { note: NoteView }) {
  const api = serverApi();
  const [editing, setEditing] = useState<string | null>(null);
  const [error, run] = useWrite();
  const id = recId.value;
  if (editing !== null && api && id !== null) {
    return (
      <li class="note">
        <form onSubmit={(e) => { e.preventDefault(); void run(() => api.updateNote(id, note.id, editing)).then((ok) => { if (ok) setEditing(null); }); }}>
          <textarea aria-label={`Edit note on #${note.seq}`} value={editing} rows={3} onInput={(e) => setEditing((e.currentTarget as HTMLTextAreaElement).value)} />
          <div class="note-actions"><button type="submit">Save</button> <button type="button" onClick={() => setEditing(null)}>Cancel</button></div>
          {error && <p class="bad" role="alert">{error}</p>}
        </form>
      </li>
    );
  }
  return (
    <li class="note">
      <div class="note-text">{note.text || <span class="muted">(mark)</span>}</div>
      <div class="muted small-note">
        {when(note)}
        {api && id !== null && <>
          {' '}<button type="button" class="link" onClick={() => setEditing(note.text)}>edit</button>
          {' '}<button type="button" class="link" onClick={() => void run(() => api.deleteNote(id, note.id))}>delete</button>
        </>}
      </div>
      {error && <p class="bad" role="alert">{error}</p>}
    </li>
  );
}

/** The notes on one item, and (in serve) the form to add one. */
export function ItemNotes({ seq }: { seq: number }) {
  const api = serverApi();
  const list = notesBySeq.value.get(seq) ?? [];
  const [text, setText] = useState('');
  const [error, run] = useWrite();
  const id = recId.value;
  const box = useRef<HTMLTextAreaElement>(null);
  // `n` asked for the box: it takes the focus once it is rendered (see noteFocusWanted).
  const wanted = noteFocusWanted.value;
  useEffect(() => {
    if (!wanted || !box.current) return;
    box.current.focus();
    noteFocusWanted.value = false;
  });
  if (!api && list.length === 0) return null;
  return (
    <section class="item-notes" aria-label={`Notes on #${seq}`}>
      <h3>Notes{list.length ? ` (${list.length})` : ''}</h3>
      {list.length > 0 && <ul class="note-list">{list.map((n) => <NoteItem key={n.id} note={n} />)}</ul>}
      {api && id !== null && (
        <form class="note-form" onSubmit={(e) => { e.preventDefault(); void run(() => api.addNote(id, seq, text.trim())).then((ok) => { if (ok) setText(''); }); }}>
          <textarea id="note-input" ref={box} aria-label={`Write a note on #${seq}`} placeholder="Write a note on this item (n); empty marks it" rows={2} value={text}
            onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
            onKeyDown={(e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); (e.currentTarget as HTMLTextAreaElement).form?.requestSubmit(); } }} />
          <button type="submit">{text.trim() ? 'Add note' : 'Mark'}</button>
          {error && <p class="bad" role="alert">{error}</p>}
        </form>
      )}
    </section>
  );
}

/** Every note of the recording, in seq order; a click goes to its item. */
export function NotesPanel() {
  const all = notes.value;
  if (all === null) return <div class="panel"><p class="muted">Loading notes…</p></div>;
  if (all.length === 0) {
    return <div class="panel"><p class="muted">No notes yet. {serverApi() ? 'Select an item in the timeline and press n (or use the form in its detail) to write one.' : 'Notes written in acp-inspect serve travel with the exported transcript.'}</p></div>;
  }
  return (
    <div class="panel notes-panel">
      <ul class="note-list">
        {all.map((n) => (
          <li key={n.id} class="note">
            <button type="button" class="link" onClick={() => { detailOpen.value = true; void jumpTo(n.seq); }}>#{n.seq}</button>{' '}
            <span class="note-text">{n.text || <span class="muted">(mark)</span>}</span>
            {n.createdAt && <span class="muted small-note"> · {when(n)}</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}
