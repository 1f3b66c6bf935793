import type { Command } from 'commander';
import { DB_OPTION, parseCount } from '../options.js';
import { CliError } from '../../errors.js';

/** `acp-inspect prune --older-than 7d | --keep N [--db FILE] [--dry-run]` */
export function registerPrune(program: Command): void {
  program
    .command('prune')
    .description('delete old recordings: those older than an age, or all but the newest N (running ones are kept); --auto: as the store\'s retention settings say (see `doctor`)')
    .option('--older-than <age>', 'delete recordings started longer ago than this (7d, 12h, 30m, 2w, 90s)')
    .option('--keep <n>', 'keep only the newest n recordings', parseCount('--keep'))
    .option(...DB_OPTION)
    .option('--dry-run', 'print what would be deleted, delete nothing')
    .option('--auto', 'delete as the retention settings say (maximum store size, free space to keep, maximum age; what a tap starts)')
    .action(async (opts: { olderThan?: string; keep?: number; db?: string; dryRun?: boolean; auto?: boolean }) => {
      if (opts.auto) return pruneAuto(opts.db, !!opts.dryRun);
      if (opts.olderThan === undefined && opts.keep === undefined) {
        throw new CliError('prune needs --older-than <age> (like 7d), --keep <n> or --auto; nothing was deleted');
      }
      const { parseAge, selectPrune, deleteRecordings } = await import('../../store/prune.js');
      let olderThanMs: number | undefined;
      if (opts.olderThan !== undefined) {
        try {
          olderThanMs = parseAge(opts.olderThan);
        } catch (e) {
          throw new CliError(`--older-than: ${(e as Error).message}`);
        }
      }
      const { Store } = await import('../../store/store.js');
      const store = Store.open(opts.db, { mustExist: true });
      try {
        try { store.markInterrupted(); } catch { /* locked: running ones are skipped anyway */ }
        const doomed = selectPrune(store.listRecordings(), { olderThanMs, keep: opts.keep });
        const ids = doomed.map((r) => r.id);
        const what = ids.length === 1 ? `1 recording (${ids[0]})` : `${ids.length} recordings${ids.length ? ` (${ids.join(', ')})` : ''}`;
        if (opts.dryRun) {
          process.stdout.write(`would delete ${what}\n`);
          return;
        }
        if (ids.length) deleteRecordings(store, ids);
        process.stdout.write(`deleted ${what}\n`);
        if (ids.length) {
          // Give the space back to the file system; another process holding the database only delays that.
          try {
            store.db.exec('VACUUM');
          } catch {
            process.stderr.write('acp-inspect: the database is in use, so its file was not compacted; the freed space will be reused\n');
          }
        }
      } finally {
        store.close();
      }
    });
}

/** `prune --auto`: the retention settings applied (store/retention.ts), oldest first, protected ones kept. */
async function pruneAuto(db: string | undefined, dryRun: boolean): Promise<void> {
  const { Store } = await import('../../store/store.js');
  const { defaultDbPath } = await import('../../store/paths.js');
  const { retentionSettings, selectRetention, storeUsage } = await import('../../store/retention.js');
  const path = db ?? defaultDbPath();
  let settings;
  try {
    settings = retentionSettings(path);
  } catch (e) {
    throw new CliError(`${(e as Error).message}; nothing was deleted`);
  }
  const store = Store.open(path, { mustExist: true });
  try {
    try { store.markInterrupted(); } catch { /* locked: running ones are skipped anyway */ }
    const noted = new Set(store.readAllNotes().map((n) => n.recordingId));
    const ids = selectRetention(store.listRecordings(), storeUsage(store), settings, noted).map((r) => r.id);
    const what = ids.length === 1 ? `1 recording (${ids[0]})` : `${ids.length} recordings${ids.length ? ` (${ids.join(', ')})` : ''}`;
    if (dryRun) {
      process.stdout.write(`would delete ${what}\n`);
      return;
    }
    // One at a time, each its own transaction: a store being trimmed stays usable meanwhile.
    for (const id of ids) store.deleteRecording(id);
    process.stdout.write(`deleted ${what}\n`);
  } finally {
    store.close();
  }
}
