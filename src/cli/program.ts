/**
 * The commander program: one file per command under commands/, each a thin layer that parses flags
 * and calls into the engine. Tool errors (StoreError, TranscriptError, CliError) become one line on
 * stderr and a non-zero exit in `reportFatal`.
 */
import { Command, CommanderError } from 'commander';
import { reportFatal } from './main.js';
import { CliError } from './errors.js';
import { endQuietlyWhenStdoutCloses } from './format.js';
import { registerTap } from './commands/tap.js';
import { registerList } from './commands/list.js';
import { registerShow } from './commands/show.js';
import { registerExport } from './commands/export.js';
import { registerImport } from './commands/import.js';
import { registerRm } from './commands/rm.js';
import { registerCheck } from './commands/check.js';
import { registerServe } from './commands/serve.js';
import { registerReplay } from './commands/replay.js';
import { registerDiff } from './commands/diff.js';
import { registerPrune } from './commands/prune.js';
import { registerDoctor } from './commands/doctor.js';
import { registerMcp } from './commands/mcp.js';
import { registerNote } from './commands/note.js';
import { registerIndex } from './commands/index-captures.js';
import { onOrphanedCaptures } from '../store/orphans.js';
import { startDetachedIndexer } from '../tap/detached-indexer.js';

export function buildProgram(): Command {
  const program = new Command('acp-inspect')
    .description('Record, inspect, check and replay Agent Client Protocol (ACP) sessions.\n\n' +
      'Tap an agent:  acp-inspect [--db FILE] [--name LABEL] [--ui[=PORT]] -- <agent command> [args...]')
    .version(process.env.npm_package_version ?? '0.1.0')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeErr: (s) => process.stderr.write(s),
      outputError: (s, write) => write(`acp-inspect: ${s.replace(/^error: /, '').trim()}; see acp-inspect --help\n`),
    });
  for (const register of [registerTap, registerList, registerShow, registerExport, registerImport, registerRm,
    registerCheck, registerServe, registerReplay, registerDiff, registerPrune, registerDoctor, registerMcp, registerNote, registerIndex]) {
    register(program);
  }
  return program;
}

export async function runProgram(argv: string[]): Promise<void> {
  // Not for the tap, whose stdout is the client's: when the client stops reading it keeps recording.
  if (argv[0] !== 'tap') endQuietlyWhenStdoutCloses();
  // A command that opens a database with capture logs nobody indexes starts an indexer for them.
  if (argv[0] !== 'index') onOrphanedCaptures(startDetachedIndexer);
  const program = buildProgram();
  if (argv.length === 0) {
    program.outputHelp();
    process.exitCode = 0;
    return;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      // commander already printed its one-line message; help and version exit 0.
      process.exit(e.exitCode === 0 ? 0 : 2);
    }
    reportFatal(e);
  }
}

/** Common option: the database path. */
export const DB_OPTION = ['--db <file>', 'SQLite database (default: $ACP_INSPECT_DB or ~/.local/share/acp-inspect/recordings.sqlite)'] as const;

/** Parses a non-negative integer flag or throws a one-line error. */
export function parseCount(name: string) {
  return (v: string): number => {
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw new CliError(`${name} must be a whole number ≥ 0, got "${v}"`);
    return Number(v);
  };
}
