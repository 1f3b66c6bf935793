/**
 * The floors of the building stay where they are: the command line (src/cli/) is the top floor,
 * which only the binary enters, so nothing in src/ or ui/ imports it (what it shares lives below:
 * text/, errors.ts, replay/diff-report.ts); the view contract lives beside the DataSource in
 * src/view/, which the server implements, so the views and the UI import nothing from src/server/,
 * and they reach nothing of src/store/ either, not even a type through another module (the contract
 * owns the shapes it shows; the store answers with them);
 * and no module loads itself back through another (an import cycle), type-only imports aside.
 * This reads the import statements of every source file, so a layering slip fails here by name.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { posix, relative, sep } from 'node:path';
import { ROOT } from './helpers.js';
import { importsOf, sourceFiles } from './imports.js';

/** Folders whose files may import src/cli/ (only the command line itself; bin/ loads the compiled main). */
const CLI = 'src/cli/';
/** Who may not import the server: the contract they read is src/view/contract.ts. */
const NOT_SERVER = ['src/view/', 'ui/'];
/** Who may not reach the store, not even for a type: the view contract owns the shapes they show. */
const NOT_STORE = ['src/view/', 'ui/'];

type Graph = Map<string, { target: string; spec: string; typeOnly: boolean }[]>;

/** The relative imports of each file (paths relative to the repository, with `/`), resolved within `files`. */
function graphOf(files: Map<string, string>): Graph {
  const graph: Graph = new Map();
  for (const [file, source] of files) {
    const edges = [];
    for (const { spec, typeOnly } of importsOf(source)) {
      if (!spec.startsWith('.')) continue;
      const p = posix.normalize(posix.join(posix.dirname(file), spec));
      const base = p.replace(/\.js$/, '');
      const target = files.has(p) ? p : files.has(`${base}.tsx`) ? `${base}.tsx` : `${base}.ts`;
      edges.push({ target, spec, typeOnly });
    }
    graph.set(file, edges);
  }
  return graph;
}

/** The shortest import path from `file` to a module of src/store/ (type-only imports count), or null. */
function storePath(graph: Graph, file: string): string[] | null {
  const from = new Map<string, string | null>([[file, null]]);
  const queue = [file];
  while (queue.length) {
    const v = queue.shift()!;
    if (v.startsWith('src/store/')) {
      const path = [v];
      for (let p = from.get(v); p; p = from.get(p)) path.unshift(p);
      return path;
    }
    for (const { target } of graph.get(v) ?? []) {
      if (!from.has(target)) { from.set(target, v); queue.push(target); }
    }
  }
  return null;
}

/** Every import that breaks a rule, as "file imports spec (why)". */
function layeringProblems(files: Map<string, string>): string[] {
  const graph = graphOf(files);
  const problems: string[] = [];
  for (const [file, edges] of graph) {
    for (const { target, spec } of edges) {
      if (target.startsWith(CLI) && !file.startsWith(CLI)) problems.push(`${file} imports ${spec} (only the command line imports src/cli/)`);
      if (target.startsWith('src/server/') && NOT_SERVER.some((d) => file.startsWith(d))) problems.push(`${file} imports ${spec} (the view contract is src/view/contract.ts)`);
    }
  }
  // The views and the UI reach no store module, directly or through another, type-only imports included.
  for (const file of graph.keys()) {
    if (!NOT_STORE.some((d) => file.startsWith(d))) continue;
    const path = storePath(graph, file);
    if (path) problems.push(`${path.join(' → ')} (the views own their types in src/view/contract.ts, not the store)`);
  }
  // Cycles through imports that load something (Tarjan's strongly connected components).
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const { target: w, typeOnly } of graph.get(v) ?? []) {
      if (typeOnly || !graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      const selfImport = (graph.get(v) ?? []).some((e) => e.target === v && !e.typeOnly);
      if (component.length > 1 || selfImport) problems.push(`import cycle: ${component.sort().join(' → ')}`);
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return problems;
}

function projectFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const dir of ['src', 'ui/src']) {
    for (const f of sourceFiles(`${ROOT}/${dir}`)) files.set(relative(ROOT, f).split(sep).join('/'), readFileSync(f, 'utf8'));
  }
  return files;
}

describe('the layering of src/ and ui/', () => {
  it('nothing but the command line imports src/cli/, the views import no server or store module, and no import cycle', () => {
    const files = projectFiles();
    expect(files.size).toBeGreaterThan(150);
    expect(layeringProblems(files)).toEqual([]);
  });

  it('names each kind of slip (the check can fail)', () => {
    const files = new Map([
      ['src/mcp/tools.ts', "import { formatItem } from '../cli/show.js';\nimport type { X } from '../cli/types.js';"],
      ['src/cli/show.ts', "import { formatDuration } from './format.js';"],
      ['src/cli/format.ts', "export const x = 1;\nconst p = await import('./show.js');"],
      ['src/cli/types.ts', "import type { Y } from './format.js';"],
      ['src/view/source.ts', "import type {\n  TimelinePage,\n} from '../server/types.js';"],
      ['ui/src/api.ts', "import { type A, type B } from '../../src/server/types.js';"],
      ['src/server/types.ts', "import type { Z } from '../view/source.js';\nexport type Z = typeof import('./types.js');"],
      ['ui/src/probe-view.tsx', "import type { R } from '../../src/store/probe-runs.js';"],
      ['src/view/summary.ts', "import type { S } from '../probe/report.js';"],
      ['src/probe/report.ts', "import type { T } from '../store/store.js';"],
    ]);
    expect(layeringProblems(files)).toEqual([
      'src/mcp/tools.ts imports ../cli/show.js (only the command line imports src/cli/)',
      'src/mcp/tools.ts imports ../cli/types.js (only the command line imports src/cli/)',
      'src/view/source.ts imports ../server/types.js (the view contract is src/view/contract.ts)',
      'ui/src/api.ts imports ../../src/server/types.js (the view contract is src/view/contract.ts)',
      'ui/src/probe-view.tsx → src/store/probe-runs.ts (the views own their types in src/view/contract.ts, not the store)',
      'src/view/summary.ts → src/probe/report.ts → src/store/store.ts (the views own their types in src/view/contract.ts, not the store)',
      'import cycle: src/cli/format.ts → src/cli/show.ts',
    ]);
  });
});
