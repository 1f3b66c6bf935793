import type { Command } from 'commander';
import { DB_OPTION } from '../options.js';

export function registerIndex(program: Command): void {
  program
    .command('index')
    .description('finish indexing what taps left in capture logs (killed taps, or taps that exited before their recording was all indexed), and copy SQLite\'s log into the database; started on its own when needed')
    .option(...DB_OPTION)
    .option('--log-only', 'only copy SQLite\'s log into the database, indexing nothing (what a tap starts after a flood)')
    .action(async (opts: { db?: string; logOnly?: boolean }) => {
      const { existsSync } = await import('node:fs');
      const { defaultDbPath, listCaptureLogs } = await import('../../store/paths.js');
      const path = opts.db ?? defaultDbPath();
      const { forgetIndexer } = await import('../../store/indexer-pids.js');
      try {
        if (!existsSync(path) && listCaptureLogs(path).length === 0) return;
        const { copyLeftLog } = await import('../../store/store.js');
        if (opts.logOnly) {
          copyLeftLog(path);
          return;
        }
        const { finishCaptures, removeDoneCaptures } = await import('../../tap/recover.js');
        const n = await finishCaptures(path, (msg) => process.stderr.write(`${msg}\n`));
        // A tap that exited right after catching up with a burst leaves SQLite's log uncopied (its exit
        // does not wait on that): copy it now, so that the next command does not. And the indexed logs
        // taps left to remove go.
        copyLeftLog(path);
        await removeDoneCaptures(path);
        if (process.stdout.isTTY) process.stdout.write(`${n === 0 ? 'nothing to index' : `${n} recording${n === 1 ? '' : 's'} indexed`}\n`);
      } finally {
        // Started detached, this process is named in the capture folder (see indexer-pids.ts): it is done.
        forgetIndexer(path);
      }
    });
}
