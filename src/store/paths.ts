import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$ACP_INSPECT_DB`, else `${XDG_DATA_HOME:-~/.local/share}/acp-inspect/recordings.sqlite`. */
export function defaultDbPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ACP_INSPECT_DB) return env.ACP_INSPECT_DB;
  const base = env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  return join(base, 'acp-inspect', 'recordings.sqlite');
}

/**
 * The folder of capture logs beside database `dbPath` (on its disk, never tmpfs): one file per
 * recording whose bytes are not all indexed yet (see src/tap/capture-log.ts).
 */
export function capturesDir(dbPath: string): string {
  return `${dbPath}-captures`;
}

/** Name ending of a capture log. */
export const CAPTURE_EXT = '.capture';

/**
 * Name ending of a capture log that is all indexed, left by a tap for another process to remove (see
 * Store.captureIndexed): removing a large file costs the last process that holds it open.
 */
export const DONE_EXT = `${CAPTURE_EXT}.done`;

/** The indexed capture logs beside `dbPath` that wait to be removed. */
export function listDoneCaptureLogs(dbPath: string): string[] {
  return filesEnding(dbPath, DONE_EXT);
}

/** The capture logs beside `dbPath`, oldest first (none when there is no folder). */
export function listCaptureLogs(dbPath: string): string[] {
  return filesEnding(dbPath, CAPTURE_EXT).sort();
}

/** The names in `dbPath`'s capture folder that end with `ext` (none when there is no folder). */
function filesEnding(dbPath: string, ext: string): string[] {
  try {
    return readdirSync(capturesDir(dbPath)).filter((f) => f.endsWith(ext));
  } catch {
    return [];
  }
}
