/**
 * Entry point. `acp-inspect [tap options] -- <agent command>` takes a fast path that loads only the
 * tap (start-up cost matters: editors launch it for every agent); everything else goes through
 * commander, whose command actions lazy-load their implementations.
 *
 * The bin loads this module bundled with the tap's start-up path as one CommonJS file
 * (scripts/bundle-tap.js → main.bundle.cjs, in this folder): a tap then starts without Node's ES
 * module loader, which costs about 10 ms before the agent could be spawned, and reads one file
 * instead of ten. The rest of the command line stays ES modules, loaded through a variable.
 */
import { reportFatal } from './fatal.js';

/** Commander and the commands (in a variable: the bundle leaves it out). */
const PROGRAM = './program.js';

/** Subcommand names; a first argument among these is never the tap. */
export const SUBCOMMANDS = new Set([
  'tap', 'list', 'ls', 'show', 'export', 'import', 'rm', 'check', 'serve', 'console', 'replay', 'diff', 'prune', 'doctor', 'mcp', 'note', 'probe', 'index', 'proxy', 'help',
]);

export function main(argv: string[]): void {
  const dashdash = argv.indexOf('--');
  const isTap = dashdash !== -1 && !SUBCOMMANDS.has(argv[0] ?? '') && argv.slice(0, dashdash).every((a) => a.startsWith('-') || !SUBCOMMANDS.has(a));
  if (isTap) {
    import('../tap/run.js')
      .then((m) => m.runTapCli(argv))
      .catch(reportFatal);
    return;
  }
  (import(PROGRAM) as Promise<typeof import('./program.js')>)
    .then((m) => m.runProgram(argv))
    .catch(reportFatal);
}
