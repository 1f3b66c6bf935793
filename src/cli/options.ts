/** The options several commands share (a leaf module: the command files import it, and it imports none of them). */
import { CliError } from '../errors.js';

/** Common option: the database path. */
export const DB_OPTION = ['--db <file>', 'SQLite database (default: $ACP_INSPECT_DB or ~/.local/share/acp-inspect/recordings.sqlite)'] as const;

/** Parses a non-negative integer flag or throws a one-line error. */
export function parseCount(name: string) {
  return (v: string): number => {
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw new CliError(`${name} must be a whole number ≥ 0, got "${v}"`);
    return Number(v);
  };
}
