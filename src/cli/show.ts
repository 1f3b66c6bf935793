/** `acp-inspect show`: a terminal timeline of a recording, optionally following a live one. */
import { formatBytes, formatDuration } from './format.js';
import { arrow, isFrame, type Item } from '../wire/frame.js';
import { looksLikeFile, readTranscriptFile } from '../source.js';
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
  if (looksLikeFile(ref)) {
    const rec = readTranscriptFile(ref);
    const notes = bySeq(rec.notes);
    for (const it of rec.items) process.stdout.write(formatItem(it, opts) + noteLines(notes.get(it.seq)) + '\n');
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
