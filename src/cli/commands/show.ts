import type { Command } from 'commander';
import { DB_OPTION } from '../options.js';

export function registerShow(program: Command): void {
  program
    .command('show')
    .description('print a recording as a readable timeline (time, direction, kind, method, id, latency, size)')
    .argument('<ref>', 'recording id, latest, or a transcript file')
    .option(...DB_OPTION)
    .option('-f, --follow', 'keep printing new frames while the recording is live')
    .option('--raw', 'print the raw line of each frame after its summary')
    .option('--no-color', 'no colour (default: colour only on a terminal, and not with NO_COLOR set)')
    .action(async (ref: string, opts: { db?: string; follow?: boolean; raw?: boolean; color?: boolean }) => {
      const { showRecording } = await import('../show.js');
      await showRecording(ref, opts);
    });
}
