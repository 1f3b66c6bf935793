import type { Command } from 'commander';
import { DB_OPTION } from '../options.js';
import { plural } from '../../text/format.js';

export function registerImport(program: Command): void {
  program
    .command('import')
    .description('import a transcript (.jsonl), or a capture of another tool (docs/formats.md), as a new recording; prints its id. acp-devtools\' captures database: every session, one id per line')
    .argument('<file>', 'transcript file')
    .option(...DB_OPTION)
    .option('--name <label>', 'name for the recording (default: the header name or the file name)')
    .action(async (file: string, opts: { db?: string; name?: string }) => {
      const { transcriptFileStream } = await import('../../source.js');
      const { Store } = await import('../../store/store.js');
      const { basename } = await import('node:path');
      const { existsSync, statSync } = await import('node:fs');
      const devtools = await import('../../transcript/acp-devtools-db.js');
      if (existsSync(file) && statSync(file).isFile() && devtools.isSqliteFile(file) && devtools.isAcpDevtoolsDb(file)) {
        // acp-devtools' captures database: every session, each a recording.
        const store = Store.open(opts.db);
        try {
          const { checkStoredRecording } = await import('../../check-run/stored.js');
          let n = 0;
          for (const { sessionId, recording } of devtools.acpDevtoolsSessions(file)) {
            const name = opts.name !== undefined ? `${opts.name} #${sessionId}` : recording.header.name ?? `acp-devtools session ${sessionId}`;
            const id = store.importRecording(recording, name);
            checkStoredRecording(store, id);
            process.stdout.write(`${id}\n`);
            process.stderr.write(`imported session ${sessionId} (${plural(recording.items.length, 'item')}) from ${file} as recording ${id}\n`);
            n++;
          }
          if (n === 0) process.stderr.write(`${file} holds no sessions; nothing imported\n`);
        } finally {
          store.close();
        }
        return;
      }
      const src = transcriptFileStream(file, undefined, true); // its header, read before touching the database
      // The schemas' validators as the build made them (as check does: compiling them costs a tenth of a second).
      await (await import('../../check-run/validators.js')).usePrebuiltValidators();
      const store = Store.open(opts.db);
      try {
        // Streamed in one transaction (a bad line further on leaves no recording behind), and
        // checked in the same reading.
        const { importChecked } = await import('../../check-run/stored.js');
        const { id, items } = importChecked(store, src, opts.name ?? src.header.name ?? basename(file));
        process.stdout.write(`${id}\n`);
        process.stderr.write(`imported ${plural(items, 'item')} from ${file} as recording ${id}\n`);
      } finally {
        store.close();
      }
    });
}
