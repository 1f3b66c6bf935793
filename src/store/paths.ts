import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$ACP_INSPECT_DB`, else `${XDG_DATA_HOME:-~/.local/share}/acp-inspect/recordings.sqlite`. */
export function defaultDbPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ACP_INSPECT_DB) return env.ACP_INSPECT_DB;
  const base = env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  return join(base, 'acp-inspect', 'recordings.sqlite');
}
