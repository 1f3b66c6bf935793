import type { Command } from 'commander';
import { DB_OPTION } from '../options.js';

export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description('a read-only Model Context Protocol server over stdio, for AI coding agents (list, summarize, check, explain recordings)')
    .option(...DB_OPTION)
    .option('--no-redact', 'keep secrets (env values, headers, tokens) in answers instead of <redacted>')
    .action(async (opts: { db?: string; redact: boolean }) => {
      const { runMcpServer } = await import('../../mcp/index.js');
      await runMcpServer({ dbPath: opts.db, noRedact: !opts.redact });
    });
}
