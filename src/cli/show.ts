/** `acp-inspect show`: a terminal timeline of a recording, optionally following a live one. */
import { formatItem } from '../text/item-line.js';
import { looksLikeFile, transcriptFileStream } from '../source.js';
import { writeLinesToStdout } from '../transcript/write-file.js';
import { endQuietlyWhenStdoutCloses } from './stdout.js';
import { Store } from '../store/store.js';
import { colorFor } from './color.js';

/** The notes on one item, a line each under it (a bare mark shows as "marked"). */
function noteLines(notes: { text: string; id?: number }[] | undefined, color: boolean): string {
  if (!notes?.length) return '';
  const c = (s: string) => (color ? `\x1b[35m${s}\x1b[0m` : s);
  return notes.map((n) => `\n${' '.repeat(17)}${c(`✎ ${n.id !== undefined ? `note ${n.id}: ` : ''}${n.text ? n.text.replace(/\n/g, ' ⏎ ') : 'marked'}`)}`).join('');
}

function bySeq<T extends { seq: number }>(notes: T[] | undefined): Map<number, T[]> {
  const m = new Map<number, T[]>();
  for (const n of notes ?? []) m.set(n.seq, [...(m.get(n.seq) ?? []), n]);
  return m;
}

/** The rows whose text a line of `show` without --raw does not use: frames whose size is a column (see formatItem). */
const TEXT_NOT_SHOWN = "dir IN ('c2a', 'a2c') AND size IS NOT NULL";

export async function showRecording(ref: string, given: { db?: string; follow?: boolean; raw?: boolean; color?: boolean }): Promise<void> {
  endQuietlyWhenStdoutCloses();
  const color = colorFor(process.stdout, given);
  const opts = { ...given, color };
  const bold = (s: string) => (color ? `\x1b[1m${s}\x1b[0m` : s);
  if (looksLikeFile(ref)) {
    // Streamed: a note is known only at the end of the file, so notes are shown after the items they follow.
    const src = transcriptFileStream(ref);
    await writeLinesToStdout((function* () {
      for (const it of src.items) yield formatItem(it, opts);
      const notes = src.notes();
      if (notes.length) yield bold('notes:');
      for (const n of notes) yield `${String(n.seq).padStart(6)}${noteLines([n], color)}`;
    })());
    return;
  }
  const store = Store.open(opts.db, { mustExist: true });
  try {
    try { store.markInterrupted(); } catch { /* locked */ }
    const id = store.resolveIndexedRef(ref);
    const summary = store.getRecording(id)!;
    process.stdout.write(bold(`recording ${id}${summary.name ? ` "${summary.name}"` : ''} — ${summary.command?.join(' ') ?? ''} (${summary.status})`) + '\n');
    let last = 0;
    const notes = bySeq(store.readNotes(id));
    // A page of rows at a time, written as fast as stdout takes them (a pipe to a slow reader holds no more).
    // A frame's line is its columns (seq, time, direction, kind, method, id, latency, size): without
    // --raw its text is not read at all (decoding a long recording's non-ASCII text, and parsing its
    // escapes, cost more than the rest of show together).
    const pageOpts = opts.raw ? {} : { blankRawWhen: TEXT_NOT_SHOWN };
    const flush = () => writeLinesToStdout((function* () {
      for (const it of store.pagedItems(id, last, Number.MAX_SAFE_INTEGER, 1000, pageOpts)) {
        yield formatItem(it, opts) + noteLines(notes.get(it.seq), color);
        last = it.seq;
      }
    })());
    await flush();
    if (!opts.follow) return;
    await new Promise<void>((resolve) => {
      let busy = false;
      const timer = setInterval(() => {
        if (busy) return;
        busy = true;
        void flush().then(async () => {
          const s = store.getRecording(id);
          if (!s || s.status !== 'running') {
            await flush();
            clearInterval(timer);
            resolve();
          }
          busy = false;
        });
      }, 200);
      process.once('SIGINT', () => { clearInterval(timer); resolve(); });
    });
  } finally {
    store.close();
  }
}
