/**
 * The file duties of a client, kept inside one folder: where a path the agent names really is (through
 * symlinks), and the part of a text file `fs/read_text_file` asks for.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';

/**
 * The real location of absolute path `p` when it is inside folder `root` (itself a real path), else
 * null. A path that does not exist yet is placed by its nearest existing ancestor, so a symlink in
 * the folder pointing out of it does not let a write escape.
 */
export function insideFolder(root: string, p: unknown): string | null {
  if (typeof p !== 'string' || !isAbsolute(p) || p.includes('\0')) return null;
  let probe = resolve(p);
  const rest: string[] = [];
  for (;;) {
    let real: string | null = null;
    try {
      real = realpathSync(probe);
    } catch {
      const parent = dirname(probe);
      if (parent === probe) return null;
      rest.unshift(basename(probe));
      probe = parent;
      continue;
    }
    const full = rest.length ? join(real, ...rest) : real;
    const rel = relative(root, full);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel)) ? full : null;
  }
}

/** Lines `line` (1-based; 0 or absent: from the first) onwards of `text`, at most `limit` of them. */
export function textLines(text: string, line: unknown, limit: unknown): string {
  if (typeof line !== 'number' && typeof limit !== 'number') return text;
  const from = typeof line === 'number' ? Math.max(0, line - 1) : 0;
  const lines = text.split('\n');
  return lines.slice(from, typeof limit === 'number' ? from + Math.max(0, limit) : undefined).join('\n');
}
