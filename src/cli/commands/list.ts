import type { Command } from 'commander';
import { DB_OPTION } from '../options.js';

export function registerList(program: Command): void {
  program
    .command('list')
    .alias('ls')
    .description('list recordings (newest first)')
    .option(...DB_OPTION)
    .option('--json', 'print a JSON array of recordings')
    .option('--search <text>', 'only recordings whose name, agent, client or command contains text')
    .action(async (opts: { db?: string; json?: boolean; search?: string }) => {
      const { Store } = await import('../../store/store.js');
      const { formatDuration, formatTable } = await import('../../text/format.js');
      const { indexingText } = await import('../../view/indexing.js');
      const { existsSync } = await import('node:fs');
      const { defaultDbPath, listCaptureLogs } = await import('../../store/paths.js');
      const path = opts.db ?? defaultDbPath();
      if (!existsSync(path) && listCaptureLogs(path).length === 0) {
        // Nothing recorded yet is not an error.
        if (opts.json) process.stdout.write('[]\n');
        else process.stdout.write(`no recordings yet (${path} does not exist); record one with: acp-inspect -- <agent command>\n`);
        return;
      }
      const store = Store.open(path, { mustExist: true });
      try {
        try { store.markInterrupted(); } catch { /* locked: list anyway */ }
        const rows = store.listRecordings({ search: opts.search });
        if (opts.json) {
          process.stdout.write(JSON.stringify(rows.map((r) => ({
            id: r.id, name: r.name, agent: r.agent.name, agentVersion: r.agent.version, client: r.client.name,
            clientVersion: r.client.version, protocolVersion: r.protocolVersion, startedAt: r.startedAt, endedAt: r.endedAt,
            durationMs: r.durationMs, frames: r.frames, items: r.items, status: r.status, incomplete: r.incomplete,
            exitCode: r.exitCode, exitSignal: r.exitSignal, errors: r.errors, warnings: r.warnings, command: r.command,
            ...(r.indexing ? { indexing: r.indexing } : {}),
            ...(r.incompleteReason ? { incompleteReason: r.incompleteReason } : {}),
          })), null, 2) + '\n');
          return;
        }
        // Sessions captured but not in the store yet: their disk is full (never a silent partial list).
        const unlisted = store.unlistedWhileFull();
        const unlistedText = unlisted && `warning: ${unlisted.logs === 1 ? '1 session is' : `${unlisted.logs} sessions are`} not listed yet: indexing blocked: disk full (${(unlisted.bytes / 1048576).toFixed(1)} MiB waiting in ${unlisted.logs === 1 ? 'its capture log' : 'their capture logs'}); free space on it, or pass --db FILE on another disk for the next sessions\n`;
        if (rows.length === 0) {
          process.stdout.write(`no recordings in ${store.path}; record one with: acp-inspect -- <agent command>\n${unlistedText ?? ''}`);
          return;
        }
        process.stdout.write(formatTable(
          ['ID', 'NAME', 'AGENT', 'CLIENT', 'STARTED', 'DURATION', 'FRAMES', 'ERR', 'WARN', 'STATUS'],
          rows.map((r) => [
            String(r.id), r.name ?? '', [r.agent.name, r.agent.version].filter(Boolean).join(' ') || (r.command?.join(' ') ?? ''),
            [r.client.name, r.client.version].filter(Boolean).join(' '), r.startedAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
            r.durationMs === null ? '' : formatDuration(r.durationMs), String(r.frames), String(r.errors), String(r.warnings),
            r.status + (r.incomplete && r.status !== 'incomplete' && r.status !== 'interrupted' ? ' (incomplete)' : '')
              + (r.indexing ? `, ${indexingText(r.indexing)}` : ''),
          ]),
        ));
        // The store's size and its disk's free space, against the retention settings (see `doctor`).
        const retention = await import('../../store/retention.js');
        const usage = retention.storeUsage(store);
        let settings;
        try {
          settings = retention.retentionSettings(store.path);
        } catch (e) {
          process.stdout.write(`\n${retention.storeUsageText(usage, null)}\nwarning: ${(e as Error).message}\n${unlistedText ?? ''}`);
          return;
        }
        process.stdout.write(`\n${retention.storeUsageText(usage, settings)}\n`);
        for (const w of retention.retentionWarnings(usage, settings)) process.stdout.write(`warning: ${w}\n`);
        if (unlistedText) process.stdout.write(unlistedText);
      } finally {
        store.close();
      }
    });
}
