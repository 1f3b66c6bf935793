import type { Command } from 'commander';
import { DB_OPTION } from '../options.js';

export function registerRm(program: Command): void {
  program
    .command('rm')
    .description('delete recordings')
    .argument('<id...>', 'recording ids (or latest)')
    .option(...DB_OPTION)
    .action(async (ids: string[], opts: { db?: string }) => {
      const { Store, stillRecording } = await import('../../store/store.js');
      const store = Store.open(opts.db, { mustExist: true });
      try {
        const resolved = ids.map((r) => store.resolveRef(r)); // all or nothing: check every id first
        try { store.markInterrupted(); } catch { /* locked: a running one is refused below anyway */ }
        const live = resolved.find((id) => { const r = store.getRecording(id); return r !== undefined && stillRecording(r); });
        if (live !== undefined) {
          const { CliError } = await import('../../errors.js');
          throw new CliError(`recording ${live} is still being recorded; stop its tap (end the agent session) first, then rm it`);
        }
        for (const id of resolved) store.deleteRecording(id);
        process.stderr.write(`deleted ${resolved.length === 1 ? `recording ${resolved[0]}` : `recordings ${resolved.join(', ')}`}\n`);
      } finally {
        store.close();
      }
    });
}
