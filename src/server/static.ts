/**
 * The built UI (vite output in dist/ui), read once into memory. Serving from a fixed in-memory map
 * means no request path ever reaches the file system (no traversal, no other files).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface StaticFile {
  body: Uint8Array;
  type: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.json': 'application/json', '.woff2': 'font/woff2',
  '.map': 'application/json',
};

/** Where the built UI lives: dist/ui next to the compiled server, or under the repo when run from sources. */
export function findUiDir(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const c of [resolve(here, '../../dist/ui'), resolve(here, '../../ui')]) {
    if (existsSync(join(c, 'index.html')) && existsSync(join(c, 'assets'))) return c;
  }
  return undefined;
}

/** Where the built static viewer lives (dist/viewer), if built. */
export function findViewerDir(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const c of [resolve(here, '../../dist/viewer'), resolve(here, '../../viewer')]) {
    if (existsSync(join(c, 'index.html')) && existsSync(join(c, 'assets'))) return c;
  }
  return undefined;
}

export function loadStatic(dir: string | undefined = findUiDir()): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  if (!dir) return files;
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else files.set(`/${relative(dir, p).split(sep).join('/')}`, { body: readFileSync(p), type: TYPES[extname(p)] ?? 'application/octet-stream' });
    }
  };
  walk(dir);
  return files;
}
