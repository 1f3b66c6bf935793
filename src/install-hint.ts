/**
 * What to run when a native part of the install is missing: npm 11 may skip the install scripts of
 * acp-inspect (the tap's native forwarder) and better-sqlite3 (the SQLite module) when they are not
 * covered by `allowScripts`, and `--ignore-scripts` skips them always. The fix depends on how the
 * package was installed: in a project, globally (`npm install -g`), or as a checkout.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type InstallKind = 'project' | 'global' | 'checkout';

/** This package's root folder (the one whose package.json is named acp-inspect), or null. */
export function packageRoot(from = fileURLToPath(import.meta.url)): string | null {
  for (let dir = dirname(from); dirname(dir) !== dir; dir = dirname(dir)) {
    try {
      if (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name === 'acp-inspect') return dir;
    } catch { /* not here */ }
  }
  return null;
}

/** How this copy was installed: under a project's node_modules, under a global prefix, or a checkout. */
export function installKind(root = packageRoot()): InstallKind {
  if (!root || basename(dirname(root)) !== 'node_modules') return 'checkout';
  // A project's node_modules sits beside its package.json; a global prefix's (PREFIX/lib) does not.
  return existsSync(join(dirname(dirname(root)), 'package.json')) ? 'project' : 'global';
}

/** True when an error from loading better-sqlite3 says its native module is missing or built for another Node. */
export function isSqliteBuildError(e: unknown): boolean {
  const msg = String((e as Error)?.message ?? e);
  return /Could not locate the bindings file|better_sqlite3\.node|NODE_MODULE_VERSION/.test(msg);
}

/** The first line of why better-sqlite3 did not load, shortened for a one-line message. */
export function sqliteBuildReason(e: unknown): string {
  const msg = String((e as Error)?.message ?? e);
  if (/Could not locate the bindings file/.test(msg)) return 'it was not built: npm skipped its install script';
  if (/NODE_MODULE_VERSION/.test(msg)) return 'it was built for another Node version';
  return msg.split('\n')[0]!.trim();
}

/** The command that builds the native parts npm skipped (`which`: both, or only the forwarder). */
export function nativeFixCommand(which: 'all' | 'forwarder', kind = installKind()): string {
  const pkgs = which === 'all' ? ['acp-inspect', 'better-sqlite3'] : ['acp-inspect'];
  switch (kind) {
    case 'project':
      return `npm install-scripts approve ${pkgs.join(' ')} && npm rebuild ${pkgs.join(' ')}`;
    case 'global':
      // Runs the skipped scripts in place, however the package came (a tarball or, once published, the registry).
      return `npm rebuild -g --allow-scripts=${pkgs.join(',')} ${pkgs.join(' ')}`;
    case 'checkout':
      return which === 'all' ? 'npm rebuild better-sqlite3 && npm run build:native' : 'npm run build:native';
  }
}
