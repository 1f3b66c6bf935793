import type { Command } from 'commander';
import { CliError } from '../errors.js';

/** Placeholder until its issue lands: registered so the command table is complete. */
export function registerCheck(program: Command): void {
  program
    .command('check')
    .description('(not implemented yet)')
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => {
      throw new CliError('acp-inspect check is not implemented yet', 2);
    });
}
