/**
 * The user-facing error: one line for the user and an exit code. Thrown anywhere (the tap's flag
 * parser, the checker's report, the MCP server, the commands), printed in one place: the command
 * line's reportFatal, or the MCP server's tool error.
 */
export class CliError extends Error {
  constructor(message: string, readonly exitCode = 2) {
    super(message);
  }
}
