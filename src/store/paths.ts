import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/**
 * Makes folder `dir` and the folders above it that are missing (mkdir -p), each with `mode`. Not
 * Node's `mkdirSync(…, { recursive: true })`: that loops forever, spinning, where a folder above
 * refuses new entries with ENOENT (/proc does); this throws mkdir's error there, as anywhere else.
 */
export function makeDirs(dir: string, mode = 0o777): void {
  const missing: string[] = [];
  for (let d = resolve(dir); !existsSync(d); d = dirname(d)) {
    missing.push(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d, { mode });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}

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
