/**
 * The commander program: one file per command under commands/, each a thin layer that parses flags
 * and calls into the engine; the options several commands share are in options.ts, a leaf they import. Tool errors (StoreError, TranscriptError, CliError) become one line on
 * stderr and a non-zero exit in `reportFatal`.
 */
import { Command, CommanderError } from 'commander';
import { reportFatal } from './fatal.js';
import { endQuietlyWhenStdoutCloses } from './stdout.js';
import { hoistGlobalOptions, missingCommand } from './global-options.js';
import { missingDashDash } from './missing-dashdash.js';
import { CliError } from '../errors.js';
import { registerTap } from './commands/tap.js';
import { registerList } from './commands/list.js';
import { registerShow } from './commands/show.js';
import { registerExport } from './commands/export.js';
import { registerImport } from './commands/import.js';
import { registerRm } from './commands/rm.js';
import { registerCheck } from './commands/check.js';
import { registerServe } from './commands/serve.js';
import { registerConsole } from './commands/console.js';
import { registerReplay } from './commands/replay.js';
import { registerDiff } from './commands/diff.js';
import { registerPrune } from './commands/prune.js';
import { registerDoctor } from './commands/doctor.js';
import { registerMcp } from './commands/mcp.js';
import { registerNote } from './commands/note.js';
import { registerIndex } from './commands/index-captures.js';
import { onOrphanedCaptures } from '../store/orphans.js';
import { startDetachedIndexer } from '../tap/detached-indexer.js';
import { registerProbe } from './commands/probe.js';
import { registerProxy } from './commands/proxy.js';

export function buildProgram(): Command {
  const program = new Command('acp-inspect')
    .description('Record, inspect, check and replay Agent Client Protocol (ACP) sessions.\n\n' +
      'Tap an agent:  acp-inspect [--db FILE] [--name LABEL] [--ui[=PORT]] -- <agent command> [args...]')
    .version(process.env.npm_package_version ?? '0.1.0')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput(usageErrors('acp-inspect'));
  for (const register of [registerTap, registerList, registerShow, registerExport, registerImport, registerRm,
    registerCheck, registerServe, registerConsole, registerReplay, registerDiff, registerPrune, registerDoctor, registerMcp, registerNote, registerProbe, registerIndex, registerProxy]) {
    register(program);
  }
  // Every command takes --no-color (docs/cli.md): those that colour honour it, the others print none.
  const noColor = (cmd: Command): void => {
    for (const sub of cmd.commands) {
      if (sub.commands.length) noColor(sub);
      // (A group without options of its own, such as probe, leaves them to its subcommands.)
      if (sub.name() === 'tap' || (sub.commands.length && !sub.options.length)) continue;
      if (!sub.options.some((o) => o.long === '--no-color')) sub.option('--no-color', 'no colour (this command prints none)');
    }
  };
  noColor(program);
  // A usage error points at the help of the command it is about (`see acp-inspect note list --help`).
  const point = (cmd: Command, path: string): void => {
    for (const sub of cmd.commands) {
      sub.configureOutput(usageErrors(`${path} ${sub.name()}`));
      point(sub, `${path} ${sub.name()}`);
    }
  };
  point(program, 'acp-inspect');
  return program;
}

/** Commander's output settings: a usage error as one line naming the help to read. */
function usageErrors(path: string) {
  return {
    writeErr: (s: string) => process.stderr.write(s),
    outputError: (s: string, write: (s: string) => void) => write(`acp-inspect: ${s.replace(/^error: /, '').trim()}; see ${path} --help\n`),
  };
}

export async function runProgram(argv: string[]): Promise<void> {
  const program = buildProgram();
  // Options every command has may come before the command (`acp-inspect --db FILE list`).
  const args = hoistGlobalOptions(argv, program);
  // A command that opens a database with capture logs nobody indexes starts an indexer for them.
  if (args[0] !== 'index') onOrphanedCaptures(startDetachedIndexer);
  const missing = missingCommand(argv, program);
  // Not for the tap or the client probe, whose stdout is the client's: when the client stops reading
  // the tap keeps recording and the probe still writes its report.
  if (args[0] !== 'tap' && !(args[0] === 'probe' && args[1] === 'client' && !args.includes('--list'))) endQuietlyWhenStdoutCloses();
  if (argv.length === 0) {
    program.outputHelp();
    process.exitCode = 0;
    return;
  }
  try {
    const tap = missingDashDash(argv, (w) => w === 'help' || program.commands.some((c) => c.name() === w || c.aliases().includes(w)));
    if (tap) throw new CliError(tap, 2);
    if (missing) throw new CliError(`${missing}; see acp-inspect --help`, 2);
    await program.parseAsync(args, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      // commander already printed its one-line message; help and version exit 0.
      process.exit(e.exitCode === 0 ? 0 : 2);
    }
    reportFatal(e);
  }
}
