/** `acp-inspect show`: a terminal timeline of a recording, optionally following a live one. */
import { formatItem } from '../text/item-line.js';
import { looksLikeFile, readTranscriptFile } from '../source.js';
import { Store } from '../store/store.js';

const useColor = process.stdout.isTTY && !process.env.NO_COLOR;
const bold = (s: string) => (useColor ? `\x1b[1m${s}\x1b[0m` : s);

/** The notes on one item, a line each under it (a bare mark shows as "marked"). */
function noteLines(notes: { text: string; id?: number }[] | undefined, color = useColor): string {
  if (!notes?.length) return '';
  const c = (s: string) => (color ? `\x1b[35m${s}\x1b[0m` : s);
  return notes.map((n) => `\n${' '.repeat(17)}${c(`✎ ${n.id !== undefined ? `note ${n.id}: ` : ''}${n.text ? n.text.replace(/\n/g, ' ⏎ ') : 'marked'}`)}`).join('');
}

function bySeq<T extends { seq: number }>(notes: T[] | undefined): Map<number, T[]> {
  const m = new Map<number, T[]>();
  for (const n of notes ?? []) m.set(n.seq, [...(m.get(n.seq) ?? []), n]);
  return m;
}

export async function showRecording(ref: string, opts: { db?: string; follow?: boolean; raw?: boolean }): Promise<void> {
  if (looksLikeFile(ref)) {
    const rec = readTranscriptFile(ref);
    const notes = bySeq(rec.notes);
    for (const it of rec.items) process.stdout.write(formatItem(it, opts) + noteLines(notes.get(it.seq)) + '\n');
    return;
  }
  const store = Store.open(opts.db, { mustExist: true });
  try {
    try { store.markInterrupted(); } catch { /* locked */ }
    const id = store.resolveRef(ref);
    const summary = store.getRecording(id)!;
    process.stdout.write(bold(`recording ${id}${summary.name ? ` "${summary.name}"` : ''} — ${summary.command?.join(' ') ?? ''} (${summary.status})`) + '\n');
    let last = 0;
    const notes = bySeq(store.readNotes(id));
    const flush = () => {
      for (const it of store.iterateItems(id, last)) {
        process.stdout.write(formatItem(it, opts) + noteLines(notes.get(it.seq)) + '\n');
        last = it.seq;
      }
    };
    flush();
    if (!opts.follow) return;
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        flush();
        const s = store.getRecording(id);
        if (!s || s.status !== 'running') {
          flush();
          clearInterval(timer);
          resolve();
        }
      }, 200);
      process.once('SIGINT', () => { clearInterval(timer); resolve(); });
    });
  } finally {
    store.close();
  }
}
