/** `acp-inspect show`: a terminal timeline of a recording, optionally following a live one. */
import { endQuietlyWhenStdoutCloses, formatBytes, formatDuration } from './format.js';
import { arrow, isFrame, type Item } from '../wire/frame.js';
import { looksLikeFile, transcriptFileStream } from '../source.js';
import { writeLinesToStdout } from '../transcript/write-file.js';
import { Store } from '../store/store.js';

const useColor = process.stdout.isTTY && !process.env.NO_COLOR;
const bold = (s: string) => (useColor ? `\x1b[1m${s}\x1b[0m` : s);

/** One line describing an item (coloured when stdout is a terminal, unless `color` says otherwise). */
export function formatItem(item: Item, opts: { raw?: boolean; color?: boolean } = {}): string {
  const color = opts.color ?? useColor;
  const c = (code: string, s: string) => (color ? `\x1b[${code}m${s}\x1b[0m` : s);
  const time = `${(item.t / 1000).toFixed(3).padStart(9)}s`;
  const seq = String(item.seq).padStart(6);
  if (item.dir === 'stderr') return `${seq} ${time} ${c('2', 'stderr')}  ${c('2', item.raw)}`;
  if (item.dir === 'event') return `${seq} ${time} ${c('36', '• ' + item.type)}  ${c('2', JSON.stringify(item.data))}`;
  if (!isFrame(item)) return '';
  const dir = item.dir === 'c2a' ? c('34', `C${arrow('c2a')}A`) : c('32', `C${arrow('a2c')}A`);
  const kind = item.kind.padEnd(12);
  const kindC = item.kind === 'invalid' || item.kind === 'error' ? c('31', kind) : kind;
  const parts = [time, dir, kindC, (item.method ?? (item.parseError ? `(${item.parseError})` : '')).padEnd(28)];
  if (item.id !== undefined) parts.push(`#${JSON.stringify(item.id)}`);
  if (item.latency !== undefined) parts.push(c('33', formatDuration(item.latency)));
  parts.push(c('2', formatBytes(item.size)));
  let line = `${seq} ${parts.join(' ')}`;
  if (opts.raw) line += `\n         ${item.raw}`;
  return line;
}

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
  endQuietlyWhenStdoutCloses();
  if (looksLikeFile(ref)) {
    // Streamed: a note is known only at the end of the file, so notes are shown after the items they follow.
    const src = transcriptFileStream(ref);
    await writeLinesToStdout((function* () {
      for (const it of src.items) yield formatItem(it, opts);
      const notes = src.notes();
      if (notes.length) yield bold('notes:');
      for (const n of notes) yield `${String(n.seq).padStart(6)}${noteLines([n])}`;
    })());
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
    // A page of rows at a time, written as fast as stdout takes them (a pipe to a slow reader holds no more).
    const flush = () => writeLinesToStdout((function* () {
      for (const it of store.pagedItems(id, last)) {
        yield formatItem(it, opts) + noteLines(notes.get(it.seq));
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
