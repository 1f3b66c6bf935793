import { Option, type Command } from 'commander';
import { DB_OPTION } from '../options.js';

export function registerIndex(program: Command): void {
  program
    .command('index')
    .description('finish indexing what taps left in capture logs (killed taps, or taps that exited before their recording was all indexed), and copy SQLite\'s log into the database; started on its own when needed')
    .option(...DB_OPTION)
    .option('--log-only', 'only copy SQLite\'s log into the database, indexing nothing (what a tap starts after a flood)')
    // Given by a tap that hands its capture log on as it exits cleanly (see detached-indexer.ts).
    .addOption(new Option('--handed-on <log>').hideHelp())
    .addOption(new Option('--handed-on-exit <json>').hideHelp())
    .action(async (opts: { db?: string; logOnly?: boolean; handedOn?: string; handedOnExit?: string }) => {
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
        const n = await finishCaptures(path, (msg) => process.stderr.write(`${msg}\n`), handedOnExit(opts.handedOn, opts.handedOnExit));
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

/** The log and exit a tap handed on (--handed-on, --handed-on-exit), null when not given or not readable. */
function handedOnExit(log: string | undefined, json: string | undefined): { log: string; exit: import('../../tap/messages.js').HandedOnExit } | null {
  if (!log || !json) return null;
  try {
    const e = JSON.parse(json) as { endedAt?: unknown; exitCode?: unknown; exitSignal?: unknown };
    if (typeof e.endedAt !== 'string') return null;
    return {
      log,
      exit: { endedAt: e.endedAt, exitCode: typeof e.exitCode === 'number' ? e.exitCode : null, exitSignal: typeof e.exitSignal === 'string' ? e.exitSignal : null },
    };
  } catch {
    return null;
  }
}
