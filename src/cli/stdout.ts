/** The command line's standard output: written through one place, and ended quietly when its reader goes. */

let quietEpipe = false;
/**
 * A reader that stops early (`acp-inspect check --json | head`) ends the command quietly, with the
 * exit code the command set so far (`diff` that found differences still exits 1), not with an
 * EPIPE stack trace. Every command but the tap (which keeps recording when its client goes) asks for it.
 */
export function endQuietlyWhenStdoutCloses(): void {
  if (quietEpipe) return;
  quietEpipe = true;
  process.stdout.on('error', (e: NodeJS.ErrnoException) => { if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0); else throw e; });
}

/** Writes a command's output to stdout (see endQuietlyWhenStdoutCloses). */
export function writeStdout(text: string): void {
  endQuietlyWhenStdoutCloses();
  process.stdout.write(text);
}
