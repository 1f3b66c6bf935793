import type { Command } from 'commander';
import { DB_OPTION } from '../program.js';

export function registerImport(program: Command): void {
  program
    .command('import')
    .description('import a transcript (.jsonl) as a new recording; prints its id')
    .argument('<file>', 'transcript file')
    .option(...DB_OPTION)
    .option('--name <label>', 'name for the recording (default: the header name or the file name)')
    .action(async (file: string, opts: { db?: string; name?: string }) => {
      const { transcriptFileStream } = await import('../../source.js');
      const { Store } = await import('../../store/store.js');
      const { basename } = await import('node:path');
      const src = transcriptFileStream(file); // its header, read before touching the database
      const store = Store.open(opts.db);
      try {
        // Streamed in one transaction: a bad line further on leaves no recording behind.
        const { id, items } = store.importStream(src, opts.name ?? src.header.name ?? basename(file));
        const { checkStoredRecording } = await import('../../check-run/stored.js');
        checkStoredRecording(store, id);
        process.stdout.write(`${id}\n`);
        process.stderr.write(`imported ${items} items from ${file} as recording ${id}\n`);
      } finally {
        store.close();
      }
    });
}
