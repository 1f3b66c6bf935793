import type { Command } from 'commander';

/** `acp-inspect tap [options] -- <agent command>`: the same as `acp-inspect [options] -- <agent command>`. */
export function registerTap(program: Command): void {
  program
    .command('tap')
    .description('spawn an agent and record its ACP traffic (same as: acp-inspect [options] -- <agent command>)')
    .usage('[--db FILE] [--name LABEL] [--ui[=PORT]] [--redact] [--max-frame-bytes N] [--no-check] [--otlp [URL]] [--otel-content] [--header "Name: value"]... -- <agent command> [args...] | <http(s):// or ws(s):// URL>')
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .helpOption(false)
    .action(async (_opts: unknown, cmd: Command) => {
      const { runTapCli } = await import('../../tap/run.js');
      const argv = process.argv.slice(2);
      const i = argv.indexOf('tap');
      // `tap --help` (before the --, as commander drops it from cmd.args): its usage, not "no agent command".
      const dd = argv.indexOf('--');
      if (argv.slice(i + 1, dd === -1 ? undefined : dd).some((a) => a === '--help' || a === '-h')) {
        cmd.outputHelp();
        return;
      }
      // Before `tap` there can only be global options (`acp-inspect --db FILE tap -- agent`).
      await runTapCli(i === -1 ? cmd.args : [...argv.slice(0, i), ...argv.slice(i + 1)]);
    });
}
