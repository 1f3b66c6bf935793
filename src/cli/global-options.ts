/**
 * Options that every command has (or every command that can use them) may come before the command
 * name, as in git, npm or docker: `acp-inspect --db FILE list` is `acp-inspect list --db FILE`.
 * The leading ones are moved to just after the command (and its subcommand: `note list`), where
 * the command's own options are parsed; nothing else is touched, so an option the command does
 * not have still gets commander's "unknown option" and `--` ends the moving.
 */

/** Global options that take a value (`--db FILE` or `--db=FILE`). */
const WITH_VALUE = new Set(['--db']);
/** Global flags: output and help. */
const FLAGS = new Set(['--json', '--no-color', '--help', '-h']);

/** The option names this module moves, for the help text and the tests. */
export const GLOBAL_OPTIONS: readonly string[] = [...WITH_VALUE, ...FLAGS];

/** What hoistGlobalOptions needs of a command: its names and its subcommands (commander's Command fits). */
export interface CommandNode {
  name(): string;
  aliases(): string[];
  readonly commands: readonly CommandNode[];
}

function find(commands: readonly CommandNode[], word: string | undefined): CommandNode | undefined {
  if (word === undefined) return undefined;
  return commands.find((c) => c.name() === word || c.aliases().includes(word));
}

/**
 * `argv` (the words after the program name) with global options that come before the command name
 * moved to just after the command path. Unchanged when there are none or no known command follows
 * them (then commander reports what is wrong).
 */
export function hoistGlobalOptions(argv: readonly string[], program: CommandNode): string[] {
  const i = leadingGlobalOptions(argv);
  const moved = argv.slice(0, i);
  let cmd = find(program.commands, argv[i]);
  if (moved.length === 0 || cmd === undefined) return [...argv];
  let end = i + 1;
  for (let sub = find(cmd.commands, argv[end]); sub !== undefined; sub = find(cmd.commands, argv[end])) {
    cmd = sub;
    end++;
  }
  return [...argv.slice(i, end), ...moved, ...argv.slice(end)];
}

/** How many of `argv`'s first words are global options and their values. */
export function leadingGlobalOptions(argv: readonly string[]): number {
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    const name = a.startsWith('--') ? a.split('=', 1)[0]! : a;
    if (WITH_VALUE.has(name)) {
      if (name === a && i + 1 < argv.length) i++;
    } else if (!FLAGS.has(a)) {
      break;
    }
  }
  return i;
}

/**
 * What is wrong with a command line that starts with global options but names no known command
 * after them (undefined when it does not start with one): a one-line message for the user.
 */
export function missingCommand(argv: readonly string[], program: CommandNode): string | undefined {
  const i = leadingGlobalOptions(argv);
  if (i === 0 || argv.includes('--') || argv.slice(0, i).some((a) => a === '--help' || a === '-h')) return undefined;
  const word = argv[i];
  if (word === undefined) return `${argv.slice(0, i).join(' ')} goes with a command, e.g. acp-inspect --db FILE list, or the tap: acp-inspect --db FILE -- <agent command>`;
  if (word.startsWith('-') || find(program.commands, word)) return undefined;
  return `unknown command "${word}"`;
}
