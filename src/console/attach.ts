/**
 * Prompt attachments from the console's folder: the files an `@` in the composer may pick (found
 * inside the folder only: a symlink is listed only when it resolves to a file inside, and never
 * followed into a directory; the walk is bounded), and the content block a picked file becomes:
 * a resource link, an embedded resource, or an image or audio block with its base64 data.
 */
import { opendir, readFile, stat } from 'node:fs/promises';
import { basename, extname, isAbsolute, join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { insideFolder } from './files.js';
import { ConsoleError } from './session.js';

/** How many directory entries one listing looks at, at most, and how many matches it returns. */
export const LIST_SCAN_LIMIT = 20_000;
export const LIST_MATCH_LIMIT = 50;
/** Directories a listing does not walk into (their files are rarely what a prompt wants, and they are big). */
const SKIPPED_DIRS = new Set(['.git', 'node_modules']);
/** The largest file embedded in a prompt as text or a blob, and as an image or audio block. */
export const EMBED_LIMIT = 1024 * 1024;
export const MEDIA_LIMIT = 5 * 1024 * 1024;

const MIME: Record<string, string> = {
  '.txt': 'text/plain', '.md': 'text/markdown', '.json': 'application/json', '.js': 'text/javascript', '.mjs': 'text/javascript', '.cjs': 'text/javascript',
  '.ts': 'text/x-typescript', '.tsx': 'text/x-typescript', '.jsx': 'text/javascript', '.py': 'text/x-python', '.rs': 'text/x-rust', '.go': 'text/x-go',
  '.html': 'text/html', '.css': 'text/css', '.csv': 'text/csv', '.xml': 'application/xml', '.yaml': 'application/yaml', '.yml': 'application/yaml',
  '.toml': 'application/toml', '.sh': 'text/x-shellscript', '.c': 'text/x-c', '.h': 'text/x-c', '.java': 'text/x-java', '.rb': 'text/x-ruby',
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp', '.svg': 'image/svg+xml',
  '.wav': 'audio/wav', '.mp3': 'audio/mpeg', '.ogg': 'audio/ogg', '.flac': 'audio/flac', '.m4a': 'audio/mp4', '.pdf': 'application/pdf',
};

export function mimeOf(path: string): string | null {
  return MIME[extname(path).toLowerCase()] ?? null;
}

export interface ListedFile {
  /** The path relative to the folder, with `/` between its parts. */
  path: string;
  size: number;
  mimeType: string | null;
}

export interface FileList {
  files: ListedFile[];
  /** The walk stopped at LIST_SCAN_LIMIT entries: a file not listed may still match. */
  truncated: boolean;
}

const slash = (p: string) => (sep === '/' ? p : p.split(sep).join('/'));

/**
 * Files inside `root` (a real path) whose relative path contains `query` (case-insensitive),
 * breadth first, those whose name starts with the query first. Symlinks count only when they
 * resolve to a regular file inside `root`; directories behind a symlink are never entered. At most
 * `scanLimit` entries are looked at.
 */
export async function listFiles(root: string, query: string, scanLimit = LIST_SCAN_LIMIT): Promise<FileList> {
  const q = query.toLowerCase();
  const found: ListedFile[] = [];
  const queue = [root];
  let seen = 0;
  let truncated = false;
  walk: while (queue.length) {
    const dir = queue.shift()!;
    let handle;
    try { handle = await opendir(dir); } catch { continue; }
    for await (const d of handle) {
      if (++seen > scanLimit) { truncated = true; break walk; } // leaving the loop closes the handle
      const full = join(dir, d.name);
      if (d.isDirectory()) {
        if (!SKIPPED_DIRS.has(d.name)) queue.push(full);
        continue;
      }
      if (!d.isFile() && !d.isSymbolicLink()) continue;
      const rel = slash(relative(root, full));
      if (q && !rel.toLowerCase().includes(q)) continue;
      let real = full;
      if (d.isSymbolicLink()) {
        const inside = insideFolder(root, full);
        if (!inside) continue;
        real = inside;
      }
      try {
        const st = await stat(real);
        if (st.isFile()) found.push({ path: rel, size: st.size, mimeType: mimeOf(rel) });
      } catch { /* gone, or a broken link */ }
    }
  }
  const rank = (f: ListedFile) => (q && basename(f.path).toLowerCase().startsWith(q) ? 0 : 1);
  found.sort((a, b) => rank(a) - rank(b) || a.path.length - b.path.length || (a.path < b.path ? -1 : 1));
  return { files: found.slice(0, LIST_MATCH_LIMIT), truncated: truncated || found.length > LIST_MATCH_LIMIT };
}

export type AttachAs = 'link' | 'embedded' | 'image' | 'audio';


/**
 * The content block for file `rel` (relative to `root`) as `as`: a `resource_link` (its file: URI,
 * name, mime type and size), an embedded `resource` (text when it is UTF-8, else a base64 blob), or
 * an `image`/`audio` block. Refused outside `root`, over the size limits, or for a type that does not fit.
 */
export async function attachment(root: string, rel: unknown, as: unknown): Promise<Record<string, unknown>> {
  if (typeof rel !== 'string' || rel === '' || isAbsolute(rel)) throw new ConsoleError(400, 'an attachment names "path", a file relative to the console\'s folder');
  if (as !== 'link' && as !== 'embedded' && as !== 'image' && as !== 'audio') throw new ConsoleError(400, 'an attachment is "as": "link", "embedded", "image" or "audio"');
  const path = insideFolder(root, join(root, rel));
  if (!path) throw new ConsoleError(400, `${rel} is not inside the console's folder ${root}`);
  let st;
  try { st = await stat(path); } catch { throw new ConsoleError(404, `${rel} does not exist in the console's folder`); }
  if (!st.isFile()) throw new ConsoleError(400, `${rel} is not a file`);
  const mimeType = mimeOf(path);
  const uri = pathToFileURL(path).href;
  if (as === 'link') return { type: 'resource_link', uri, name: basename(path), title: rel, ...(mimeType ? { mimeType } : {}), size: st.size };
  const limit = as === 'embedded' ? EMBED_LIMIT : MEDIA_LIMIT;
  if (st.size > limit) throw new ConsoleError(413, `${rel} is ${st.size} bytes; the console ${as === 'embedded' ? 'embeds' : 'attaches'} at most ${limit} (attach it as a resource link instead)`);
  if ((as === 'image' || as === 'audio') && !mimeType?.startsWith(`${as}/`)) throw new ConsoleError(400, `${rel} is not a known ${as} type (by its extension)`);
  const bytes = await readFile(path);
  if (as !== 'embedded') return { type: as, data: bytes.toString('base64'), mimeType };
  const text = new TextDecoder('utf-8', { fatal: true });
  try {
    return { type: 'resource', resource: { uri, text: text.decode(bytes), ...(mimeType ? { mimeType } : {}) } };
  } catch {
    return { type: 'resource', resource: { uri, blob: bytes.toString('base64'), ...(mimeType ? { mimeType } : {}) } };
  }
}
