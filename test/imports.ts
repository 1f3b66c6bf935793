/**
 * A small reader of the project's import graph, for the tests that hold its shape (the pure core,
 * the layering): the source files of a folder and what each one imports, with type-only imports
 * told apart (they are erased when compiled, so they load nothing).
 */
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Every .ts/.tsx file under `dir`. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (/\.tsx?$/.test(p) && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

export interface ImportRef {
  spec: string;
  /** `import type`, `export type`, `import { type A, type B }` or a `typeof import('…')` type. */
  typeOnly: boolean;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(type\s+)?([^'";]*?)\s*from\s+['"]([^'"]+)['"]|(typeof\s+)?import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g;

/** Every module a file names: static imports and re-exports, side-effect imports, `import('literal')`. */
export function importsOf(source: string): ImportRef[] {
  const refs: ImportRef[] = [];
  for (const m of source.matchAll(IMPORT)) {
    if (m[3] !== undefined) {
      const names = /^\{([^}]*)\}$/.exec(m[2]!.trim())?.[1]?.split(',').map((s) => s.trim()).filter(Boolean);
      const allTypes = names !== undefined && names.length > 0 && names.every((n) => n.startsWith('type '));
      refs.push({ spec: m[3], typeOnly: Boolean(m[1]) || allTypes });
    } else if (m[5] !== undefined) refs.push({ spec: m[5], typeOnly: Boolean(m[4]) });
    else if (m[6] !== undefined) refs.push({ spec: m[6], typeOnly: false });
  }
  return refs;
}

/** The file a relative specifier names (`./a.js` → `/…/a.ts` or `/…/a.tsx`), or undefined for a package. */
export function resolveImport(fromFile: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const p = resolve(dirname(fromFile), spec);
  if (/\.tsx?$/.test(p)) return p;
  const base = p.replace(/\.js$/, '');
  try {
    if (statSync(`${base}.tsx`).isFile()) return `${base}.tsx`;
  } catch { /* not a .tsx */ }
  return `${base}.ts`;
}
