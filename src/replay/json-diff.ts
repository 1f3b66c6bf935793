/**
 * Path-level comparison of two JSON values (a recorded frame and a live one), aware of volatile
 * values: ids under volatile keys are equal when they agree with (or can still be added to) the
 * `VolatileMap`; strings are compared after mapping live paths back to recorded ones; paths a user
 * declared volatile (`--ignore`) are skipped. Pure and total: never throws.
 */
import { CWD_KEYS, VOLATILE_ID_KEYS, type VolatileMap } from './volatile.js';

export interface PathDiff {
  /** Readable path, e.g. `params.update.content.text` or `params.options[1].optionId`. */
  path: string;
  /** `changed`: both have a different value; `missing`: only the recording has it; `added`: only the live frame has it. */
  op: 'changed' | 'missing' | 'added';
  recorded?: unknown;
  live?: unknown;
}

/** Compiled `--ignore` patterns. A pattern is a dotted path (`params.update.content.text`), `*` matches one segment,
 * `**` any number; `[n]` and `.n` both address array items; a pattern also covers everything below it. */
export class IgnoreSet {
  private patterns: string[][];
  constructor(patterns: readonly string[] = []) {
    this.patterns = patterns.map(splitPath).filter((p) => p.length > 0);
  }
  get size(): number {
    return this.patterns.length;
  }
  matches(path: readonly string[]): boolean {
    return this.patterns.some((p) => prefixMatch(p, 0, path, 0));
  }
}

export function splitPath(p: string): string[] {
  return p.replace(/\[(\d+|\*)\]/g, '.$1').split('.').filter((s) => s !== '');
}

function prefixMatch(pat: string[], i: number, path: readonly string[], j: number): boolean {
  if (i === pat.length) return true; // pattern exhausted: covers this node and everything below
  if (pat[i] === '**') {
    for (let k = j; k <= path.length; k++) if (prefixMatch(pat, i + 1, path, k)) return true;
    return false;
  }
  if (j === path.length) return false;
  return (pat[i] === '*' || pat[i] === path[j]) && prefixMatch(pat, i + 1, path, j + 1);
}

/** Formats path segments: `a.b[2].c`. */
export function formatPath(segs: readonly string[]): string {
  let out = '';
  for (const s of segs) out += /^\d+$/.test(s) ? `[${s}]` : out === '' ? s : `.${s}`;
  return out === '' ? '(whole frame)' : out;
}

export interface DiffOptions {
  map?: VolatileMap;
  ignore?: IgnoreSet;
  /** Top-level keys never compared (default: the JSON-RPC `id`, which is mapped separately). */
  skipTopLevel?: readonly string[];
  /** Stop after this many differences (default 50). */
  limit?: number;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

const SKIP_ID: ReadonlySet<string> = new Set(['id']);
const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** Lists the differences between a recorded and a live JSON value. */
export function diffJson(recorded: unknown, live: unknown, opts: DiffOptions = {}): PathDiff[] {
  const out: PathDiff[] = [];
  const limit = opts.limit ?? 50;
  const skip = opts.skipTopLevel ? new Set(opts.skipTopLevel) : SKIP_ID;
  const map = opts.map;
  const ignore = opts.ignore && opts.ignore.size > 0 ? opts.ignore : undefined;
  // One path stack for the whole walk (segments pushed and popped around each child), copied only
  // into a reported difference: most frames are equal and allocate nothing per node.
  const path: string[] = [];
  const ignored = (): boolean => ignore !== undefined && ignore.matches(path);
  const child = (r: unknown, l: unknown, seg: string, key: string | undefined, rHas: boolean, lHas: boolean): void => {
    path.push(seg);
    if (!lHas) {
      if (!ignored()) out.push({ path: formatPath(path), op: 'missing', recorded: r });
    } else if (!rHas) {
      if (!ignored()) out.push({ path: formatPath(path), op: 'added', live: l });
    } else {
      walk(r, l, key);
    }
    path.pop();
  };
  const walk = (r: unknown, l: unknown, key: string | undefined): void => {
    if (out.length >= limit) return;
    if (path.length > 0 && ignored()) return;
    if (typeof r === 'string' && typeof l === 'string') {
      if (r === l) return;
      if (key !== undefined && VOLATILE_ID_KEYS.has(key)) {
        if (!map || map.idsAgree(r, l)) return;
      } else if (key !== undefined && CWD_KEYS.has(key) && r.startsWith('/') && l.startsWith('/')) {
        if (!map || map.pathAgrees(r, l)) return;
      } else if (map && map.mapPathString(l, false) === r) {
        return;
      }
      out.push({ path: formatPath(path), op: 'changed', recorded: r, live: l });
      return;
    }
    if (Array.isArray(r) && Array.isArray(l)) {
      const n = Math.max(r.length, l.length);
      for (let i = 0; i < n; i++) {
        child(r[i], l[i], String(i), key, i < r.length, i < l.length);
        if (out.length >= limit) return;
      }
      return;
    }
    if (isObj(r) && isObj(l)) {
      const top = path.length === 0;
      // The keys of r in order, then those only l has (as a union of both key lists would give).
      for (const k of Object.keys(r)) {
        if (top && skip.has(k)) continue;
        child(r[k], l[k], k, k, true, k in l);
        if (out.length >= limit) return;
      }
      for (const k of Object.keys(l)) {
        if (hasOwn(r, k) || (top && skip.has(k))) continue;
        child(r[k], l[k], k, k, k in r, true);
        if (out.length >= limit) return;
      }
      return;
    }
    if (r === l) return;
    if (typeof r === 'number' && typeof l === 'number' && Number.isNaN(r) && Number.isNaN(l)) return;
    out.push({ path: formatPath(path), op: 'changed', recorded: r, live: l });
  };
  walk(recorded, live, undefined);
  return out;
}

/** One value on one line, shortened for messages. */
export function brief(v: unknown, max = 80): string {
  let s: string;
  try {
    s = v === undefined ? 'undefined' : JSON.stringify(v) ?? String(v);
  } catch {
    s = String(v);
  }
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** `params.update.content.text: recorded "a", live "b"` lines; `labels` renames the two sides (e.g. a/b for `diff`). */
export function describeDiffs(diffs: readonly PathDiff[], labels: { recorded?: string; live?: string } = {}): string[] {
  const r = labels.recorded ?? 'recorded';
  const l = labels.live ?? 'live';
  return diffs.map((d) =>
    d.op === 'changed' ? `${d.path}: ${r} ${brief(d.recorded)}, ${l} ${brief(d.live)}`
      : d.op === 'missing' ? `${d.path}: ${r} ${brief(d.recorded)}, ${l} has none`
        : `${d.path}: ${l} ${brief(d.live)}, not in ${r === 'recorded' ? 'the recording' : r}`);
}
