import type { Command } from 'commander';
import { CliError } from '../errors.js';

/** Placeholder until its issue lands: registered so the command table is complete. */
export function registerPrune(program: Command): void {
  program
    .command('prune')
    .description('(not implemented yet)')
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => {
      throw new CliError('acp-inspect prune is not implemented yet', 2);
    });
}
