/** The version of the installed acp-inspect, from its package.json (found from this file upward). */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'acp-inspect' && pkg.version) return pkg.version;
    } catch { /* go up */ }
    dir = dirname(dir);
  }
  return '0.0.0';
}
