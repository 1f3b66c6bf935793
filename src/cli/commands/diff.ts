import type { Command } from 'commander';
import { DB_OPTION } from '../options.js';

export function registerDiff(program: Command): void {
  program
    .command('diff')
    .description('compare two recordings frame by frame, volatile ids and paths normalised (exit 0 same, 1 different)')
    .argument('<a>', 'first recording: id, "latest", or a transcript file (.jsonl)')
    .argument('<b>', 'second recording: id, "latest", or a transcript file (.jsonl)')
    .option(...DB_OPTION)
    .option('--ignore <path>', 'a field to ignore, e.g. params.update.content.text (repeatable; * = one segment, ** = any)', (v: string, p: string[] = []) => [...p, v])
    .option('--merge-chunks', 'compare streamed message chunks as whole messages (other chunking of the same text is no difference)')
    .option('--json', 'print the differences as JSON')
    .option('--no-color', 'no colour (default: colour only on a TTY)')
    .action(async (a: string, b: string, opts: { db?: string; ignore?: string[]; json?: boolean; color?: boolean; mergeChunks?: boolean }) => {
      const { runDiffCli } = await import('../diff-run.js');
      runDiffCli(a, b, opts);
    });
}
