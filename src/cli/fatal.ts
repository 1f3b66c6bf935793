/** The one place a tool error reaches the user: one line on stderr and an exit code (main.ts and program.ts both end here). */
import { CliError } from '../errors.js';

/** Prints a tool error as one line and exits; anything unexpected gets one line too, never a stack. */
export function reportFatal(e: unknown): never {
  const err = e as { message?: string; exitCode?: number; code?: string };
  const msg = err?.message ?? String(e);
  process.stderr.write(`acp-inspect: ${msg.split('\n')[0]}\n`);
  if (process.env.ACP_INSPECT_DEBUG && e instanceof Error) process.stderr.write(`${e.stack}\n`);
  process.exit(e instanceof CliError ? e.exitCode : typeof err?.exitCode === 'number' ? err.exitCode : 2);
}
