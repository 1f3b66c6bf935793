/**
 * The pure core (wire framing, the spec tables, the checker's fold and rules, the transcript format)
 * runs in the browser too: it may import only itself and browser-safe packages. This walks the
 * import graph from each pure folder and fails on a Node built-in or an edge module.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { builtinModules } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { importsOf, resolveImport, sourceFiles } from '../imports.js';

const ROOT = resolve(__dirname, '../..');
const PURE = ['src/wire', 'src/spec', 'src/check', 'src/trace', 'src/view'];
const PURE_FILES = ['src/transcript/format.ts', 'src/transcript/slice.ts'];
/** Packages the pure core may use (they run in a browser). */
const ALLOWED_PACKAGES = ['ajv'];
const EDGE = ['src/store', 'src/tap', 'src/cli', 'src/server', 'src/check-run', 'src/replay', 'src/otel'];
const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

function walk(start: string[]): Map<string, string[]> {
  const problems = new Map<string, string[]>();
  const seen = new Set<string>();
  const queue = [...start];
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const rel = relative(ROOT, file);
    for (const { spec } of importsOf(readFileSync(file, 'utf8')).filter((i) => !i.typeOnly)) {
      const target = resolveImport(file, spec);
      if (target) {
        const trel = relative(ROOT, target);
        if (EDGE.some((e) => trel === e || trel.startsWith(e + '/'))) {
          problems.set(rel, [...(problems.get(rel) ?? []), spec]);
        } else queue.push(target);
      } else {
        const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        if (BUILTINS.has(spec) || BUILTINS.has(pkg) || !ALLOWED_PACKAGES.includes(pkg)) {
          problems.set(rel, [...(problems.get(rel) ?? []), spec]);
        }
      }
    }
  }
  return problems;
}

describe('the pure core', () => {
  it('imports no Node built-in, no store and no other edge module, directly or through another file', () => {
    const start = [...PURE.flatMap((d) => sourceFiles(join(ROOT, d))), ...PURE_FILES.map((f) => join(ROOT, f))];
    expect(start.length).toBeGreaterThan(20);
    expect(Object.fromEntries(walk(start))).toEqual({});
  });

  it('notices an edge import (the walker can fail)', () => {
    expect(importsOf("import { x } from 'node:fs';\nimport type { Y } from '../store/store.js';\nconst z = await import('./a.js');").filter((i) => !i.typeOnly).map((i) => i.spec))
      .toEqual(['node:fs', './a.js']);
    const dir = mkdtempSync(join(tmpdir(), 'pure-'));
    const bad = join(dir, 'bad.ts');
    writeFileSync(bad, "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n");
    expect([...walk([bad]).values()]).toEqual([['node:fs']]);
    rmSync(dir, { recursive: true });
  });
});
