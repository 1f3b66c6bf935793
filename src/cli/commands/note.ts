/**
 * `acp-inspect note`: notes and marks on items of a stored recording.
 *
 *   note <ref> <seq> [text...]    write a note on item #seq (no text: a bare mark; "-": the text from stdin)
 *   note list [ref] [--json]      the notes of a recording (of every recording without ref)
 *   note edit <ref> <id> <text>   replace a note's text
 *   note rm <ref> [id...]         delete notes by id, or --seq N (every note on an item), or --all
 *
 * Writing a note is one short transaction, so it is safe while the tap is still recording.
 */
import type { Command } from 'commander';
import { DB_OPTION, parseCount } from '../options.js';
import { CliError } from '../../errors.js';
import type { Store, StoredNote } from '../../store/store.js';

async function openStore(db: string | undefined, ref: string): Promise<{ store: Store; id: number }> {
  const { looksLikeFile } = await import('../../source.js');
  if (looksLikeFile(ref)) {
    throw new CliError(`notes are kept in the database, not in transcript files; import ${ref} first (acp-inspect import ${ref}) and note the recording it prints`);
  }
  const { Store } = await import('../../store/store.js');
  const store = Store.open(db, { mustExist: true });
  try {
    try { store.markInterrupted(); } catch { /* locked: notes still work */ }
    return { store, id: store.resolveRef(ref) };
  } catch (e) {
    store.close();
    throw e;
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

async function textOf(words: string[]): Promise<string> {
  if (words.length === 1 && words[0] === '-') return readStdin();
  return words.join(' ');
}

/** What item #seq is, in a few words (for listings and confirmations). */
async function describeItem(store: Store, recordingId: number, seq: number): Promise<string> {
  const item = store.readItems(recordingId, seq - 1, 1)[0];
  if (!item || item.seq !== seq) return 'item gone';
  if (item.dir === 'stderr') return 'stderr line';
  if (item.dir === 'event') return `event ${item.type}`;
  const { describeFrame } = await import('../../replay/aligner.js');
  return `${item.dir === 'c2a' ? '→' : '←'} ${describeFrame(item)}`;
}

const noteId = (v: string): number => {
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v)) || Number(v) < 1) throw new CliError(`"${v}" is not a note id; use a number from \`acp-inspect note list\``);
  return Number(v);
};

const itemSeq = (v: string): number => {
  const s = v.replace(/^#/, '');
  if (!/^\d+$/.test(s) || !Number.isSafeInteger(Number(s)) || Number(s) < 1) {
    throw new CliError(`"${v}" is not an item seq; use the # number from \`acp-inspect show\` (1 or more)`);
  }
  return Number(s);
};

function indent(text: string): string {
  return text.split('\n').join('\n      ');
}

export function registerNote(program: Command): void {
  const note = program
    .command('note')
    .description('write a note on an item of a recording, or a bare mark without text; also note list, note edit, note rm')
    .argument('<ref>', 'recording id, or latest')
    .argument('<seq>', 'the item\'s # number (as in show and the UI)')
    .argument('[text...]', 'the note (words are joined with spaces; "-" reads it from stdin; none: a bare mark)')
    .option(...DB_OPTION)
    .action(async (ref: string, seqText: string, words: string[], opts: { db?: string }) => {
      const seq = itemSeq(seqText);
      const text = await textOf(words);
      const { store, id } = await openStore(opts.db, ref);
      try {
        const n = store.addNote(id, seq, text);
        process.stdout.write(`${n.id}\n`);
        process.stderr.write(`${text ? 'noted' : 'marked'} #${seq} (${await describeItem(store, id, seq)}) of recording ${id} as note ${n.id}\n`);
      } finally {
        store.close();
      }
    });

  note
    .command('list')
    .description('list the notes of a recording (of every recording without ref)')
    .argument('[ref]', 'recording id, or latest')
    .option(...DB_OPTION)
    .option('--json', 'print a JSON array of {id, recordingId, seq, text, createdAt, updatedAt, item}')
    .option('--seq <n>', 'only the notes on this item', parseCount('--seq'))
    .action(async (ref: string | undefined, own: { json?: boolean; seq?: number }, cmd: Command) => {
      const opts = cmd.optsWithGlobals() as { db?: string; json?: boolean; seq?: number };
      let store: Store;
      let notes: StoredNote[];
      if (ref === undefined) {
        const { Store } = await import('../../store/store.js');
        store = Store.open(opts.db, { mustExist: true });
        notes = store.readAllNotes();
      } else {
        const opened = await openStore(opts.db, ref);
        store = opened.store;
        notes = store.readNotes(opened.id);
      }
      try {
        if (opts.seq !== undefined) notes = notes.filter((n) => n.seq === opts.seq);
        const described = [];
        for (const n of notes) described.push({ ...n, item: await describeItem(store, n.recordingId, n.seq) });
        if (opts.json) {
          process.stdout.write(`${JSON.stringify(described, null, 2)}\n`);
          return;
        }
        if (described.length === 0) {
          process.stderr.write(`no notes${ref === undefined ? '' : ` in recording ${store.resolveRef(ref)}`}${opts.seq !== undefined ? ` on #${opts.seq}` : ''}; write one with \`acp-inspect note <ref> <seq> "text"\`\n`);
          return;
        }
        let last = -1;
        const out: string[] = [];
        for (const n of described) {
          if (n.recordingId !== last) {
            const r = store.getRecording(n.recordingId);
            out.push(`recording ${n.recordingId}${r?.name ? `  ${r.name}` : ''}`);
            last = n.recordingId;
          }
          const when = (n.updatedAt ?? n.createdAt).replace('T', ' ').slice(0, 16);
          out.push(`  note ${n.id}  #${n.seq}  ${n.item}  ${when}${n.updatedAt ? ' (edited)' : ''}`);
          out.push(`      ${n.text ? indent(n.text) : '(mark)'}`);
        }
        process.stdout.write(`${out.join('\n')}\n`);
      } finally {
        store.close();
      }
    });

  note
    .command('edit')
    .description('replace the text of a note')
    .argument('<ref>', 'recording id, or latest')
    .argument('<id>', 'note id (from note list)')
    .argument('[text...]', 'the new text ("-" reads it from stdin; none: the note becomes a bare mark)')
    .option(...DB_OPTION)
    .action(async (ref: string, idText: string, words: string[], own: object, cmd: Command) => {
      const opts = cmd.optsWithGlobals() as { db?: string };
      const nid = noteId(idText);
      const text = await textOf(words);
      const { store, id } = await openStore(opts.db, ref);
      try {
        const n = store.updateNote(id, nid, text);
        process.stderr.write(`note ${n.id} on #${n.seq} of recording ${id} ${text ? 'changed' : 'is now a bare mark'}\n`);
      } finally {
        store.close();
      }
    });

  note
    .command('rm')
    .description('delete notes of a recording: by id, every note on an item (--seq), or all (--all)')
    .argument('<ref>', 'recording id, or latest')
    .argument('[id...]', 'note ids (from note list)')
    .option(...DB_OPTION)
    .option('--seq <n>', 'delete every note on this item', parseCount('--seq'))
    .option('--all', 'delete every note of the recording')
    .action(async (ref: string, idTexts: string[], own: object, cmd: Command) => {
      const opts = cmd.optsWithGlobals() as { db?: string; seq?: number; all?: boolean };
      const ways = [idTexts.length > 0, opts.seq !== undefined, !!opts.all].filter(Boolean).length;
      if (ways !== 1) throw new CliError('note rm needs note ids, or --seq N, or --all (exactly one of them)');
      const ids = idTexts.map(noteId);
      const { store, id } = await openStore(opts.db, ref);
      try {
        const all = store.readNotes(id);
        const chosen = opts.all ? all.map((n) => n.id) : opts.seq !== undefined ? all.filter((n) => n.seq === opts.seq).map((n) => n.id) : ids;
        if (chosen.length === 0) {
          throw new CliError(`recording ${id} has no notes${opts.seq !== undefined ? ` on #${opts.seq}` : ''} to delete; see \`acp-inspect note list ${id}\``);
        }
        store.deleteNotes(id, chosen);
        process.stderr.write(`deleted ${chosen.length === 1 ? `note ${chosen[0]}` : `${chosen.length} notes (${chosen.join(', ')})`} of recording ${id}\n`);
      } finally {
        store.close();
      }
    });
}
