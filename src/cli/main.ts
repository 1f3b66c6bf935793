/**
 * Entry point. `acp-inspect [tap options] -- <agent command>` takes a fast path that loads only the
 * tap (start-up cost matters: editors launch it for every agent); everything else goes through
 * commander, whose command actions lazy-load their implementations.
 */
import { CliError } from './errors.js';

/** The tap's start-up path as one file (in a variable: tsc does not know the file). */
const TAP_BUNDLE = '../tap/run.bundle.js';

/** Subcommand names; a first argument among these is never the tap. */
export const SUBCOMMANDS = new Set([
  'tap', 'list', 'ls', 'show', 'export', 'import', 'rm', 'check', 'serve', 'replay', 'diff', 'prune', 'doctor', 'mcp', 'note', 'help',
]);

export function main(argv: string[]): void {
  const dashdash = argv.indexOf('--');
  const isTap = dashdash !== -1 && !SUBCOMMANDS.has(argv[0] ?? '') && argv.slice(0, dashdash).every((a) => a.startsWith('-') || !SUBCOMMANDS.has(a));
  if (isTap) {
    // One bundled file where the build made it (scripts/bundle-tap.js), else the modules as compiled.
    (import(TAP_BUNDLE) as Promise<typeof import('../tap/run.js')>)
      .catch(() => import('../tap/run.js'))
      .then((m) => m.runTapCli(argv))
      .catch(reportFatal);
    return;
  }
  import('./program.js')
    .then((m) => m.runProgram(argv))
    .catch(reportFatal);
}

/** Prints a tool error as one line and exits; anything unexpected gets one line too, never a stack. */
export function reportFatal(e: unknown): never {
  const err = e as { message?: string; exitCode?: number; code?: string };
  const msg = err?.message ?? String(e);
  process.stderr.write(`acp-inspect: ${msg.split('\n')[0]}\n`);
  if (process.env.ACP_INSPECT_DEBUG && e instanceof Error) process.stderr.write(`${e.stack}\n`);
  process.exit(e instanceof CliError ? e.exitCode : typeof err?.exitCode === 'number' ? err.exitCode : 2);
}
