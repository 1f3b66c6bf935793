/** A tool failure: one line for the user and an exit code. Thrown anywhere, printed in one place. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode = 2) {
    super(message);
  }
}
