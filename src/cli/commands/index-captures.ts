import { Option, type Command } from 'commander';
import { DB_OPTION } from '../options.js';
import type { Finished, LogLeft } from '../../tap/recover.js';

export function registerIndex(program: Command): void {
  program
    .command('index')
    .description('finish indexing what taps left in capture logs (killed taps, or taps that exited before their recording was all indexed), and copy SQLite\'s log into the database; started on its own when needed')
    .option(...DB_OPTION)
    .option('--log-only', 'only copy SQLite\'s log into the database, indexing nothing (what a tap starts after a flood)')
    // Given by a tap that hands its capture log on as it exits cleanly (see detached-indexer.ts).
    .addOption(new Option('--handed-on <log>').hideHelp())
    .addOption(new Option('--handed-on-exit <json>').hideHelp())
    // Given to every detached indexer: nobody reads its exit, so it does not wait on other indexers' logs.
    .addOption(new Option('--detached').hideHelp())
    .action(async (opts: { db?: string; logOnly?: boolean; handedOn?: string; handedOnExit?: string; detached?: boolean }) => {
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
        const done = await finishCaptures(path, (msg) => process.stderr.write(`${msg}\n`), handedOnExit(opts.handedOn, opts.handedOnExit), !opts.detached);
        // Never a silent partial answer: each log left unfinished is one line, and the exit is 2.
        // (Logs live taps write are theirs to index: not this command's, and not a failure.)
        const again = `run \`acp-inspect index${path === defaultDbPath() ? '' : ` --db ${path}`}\` again`;
        const { mib } = await import('../../store/disk.js');
        for (const l of done.left) process.stderr.write(`${leftLine(l, mib, again)}\n`);
        if (done.left.length > 0) process.exitCode = 2;
        // A tap that exited right after catching up with a burst leaves SQLite's log uncopied (its exit
        // does not wait on that): copy it now, so that the next command does not. And the indexed logs
        // taps left to remove go.
        copyLeftLog(path);
        await removeDoneCaptures(path);
        if (process.stdout.isTTY) process.stdout.write(`${summary(done)}\n`);
      } finally {
        // Started detached, this process is named in the capture folder (see indexer-pids.ts): it is done.
        forgetIndexer(path);
      }
    });
}

/**
 * `recording 3: indexing stopped: cannot write to … (…); 2.1 MiB of 4.6 MiB indexed, the rest kept in
 * its capture log …; raise …, then run `acp-inspect index --db FILE` again`.
 */
function leftLine(l: LogLeft, mib: (n: number) => string, again: string): string {
  const what = l.recordingId === null ? `capture log ${l.log}` : `recording ${l.recordingId}`;
  const where = l.recordingId === null ? 'the rest kept in it' : `the rest kept in its capture log ${l.log}`;
  return `acp-inspect: ${what}: ${l.why}; ${mib(l.indexed)} of ${mib(l.total)} indexed, ${where}; ${l.fix ? `${l.fix}, then ` : ''}${again}`;
}

/** What a terminal is told: `2 recordings indexed, 1 left (see above), 1 being recorded by a live tap`. */
function summary(done: Finished): string {
  const parts = [done.indexed === 0 && done.left.length === 0 ? 'nothing to index' : `${done.indexed} recording${done.indexed === 1 ? '' : 's'} indexed`];
  if (done.left.length > 0) parts.push(`${done.left.length} left (see above)`);
  if (done.live > 0) parts.push(`${done.live} being recorded by a live tap`);
  return parts.join(', ');
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
