/** The options several commands share (a leaf module: the command files import it, and it imports none of them). */
import { CliError } from '../errors.js';
import { defaultDbPath } from '../store/paths.js';

/** Common option: the database path; its help names the default this environment gives. */
export const DB_OPTION = ['--db <file>', `SQLite database (default: ${defaultDbPath()}, from $ACP_INSPECT_DB, else $XDG_DATA_HOME or ~/.local/share)`] as const;

/** Parses a non-negative integer flag or throws a one-line error. */
export function parseCount(name: string) {
  return (v: string): number => {
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw new CliError(`${name} must be a whole number ≥ 0, got "${v}"`);
    return Number(v);
  };
}
