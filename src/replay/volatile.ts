/**
 * Volatile values: identifiers that change from run to run (session ids, tool call ids, terminal
 * ids, ...) and the working directory with the absolute paths under it. A `VolatileMap` learns, from
 * pairs of frames that were matched, which recorded value stands for which live value, and rewrites
 * values in either direction. Pure: no IO.
 *
 * Ids are mapped only where they appear under a known key (so an option id "allow" is not replaced
 * inside prose); paths are replaced as a prefix anywhere in a string (also inside text and URIs),
 * only at a path boundary, so `/a/b` does not rewrite `/a/bc`.
 */

/** Keys whose string values are per-run identifiers (spec 2.2, 2.9, 4.1, 4.2). */
export const VOLATILE_ID_KEYS: ReadonlySet<string> = new Set([
  'sessionId',
  'toolCallId',
  'terminalId',
  'elicitationId',
  'optionId',
  'messageId',
  'connectionId',
  'compactionId',
]);

/** Keys whose values are absolute working-directory paths (spec 2.1). */
export const CWD_KEYS: ReadonlySet<string> = new Set(['cwd']);

/** A clash: a recorded value already stands for another live value (or the reverse). */
export interface MapConflict {
  key: string;
  recorded: string;
  live: string;
  /** The live value the recorded one was already bound to, or the recorded value the live one was bound to. */
  boundTo: string;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

const PATH_CHAR = /[A-Za-z0-9_.\-]/;

/** Replaces `from` by `to` in `s` where `from` is followed by a path boundary (end, `/`, or a non-name character). */
export function replacePathPrefix(s: string, from: string, to: string): string {
  if (from === to || from.length < 2 || !s.includes(from)) return s;
  let out = '';
  let i = 0;
  for (;;) {
    const j = s.indexOf(from, i);
    if (j < 0) break;
    const next = s[j + from.length];
    const prev = j > 0 ? s[j - 1] : undefined;
    const after2 = s[j + from.length + 1];
    // A dot ending a sentence ("… in /a/b.") is a boundary; "/a/b.txt" is not.
    const boundaryAfter = next === undefined || !PATH_CHAR.test(next) || (next === '.' && (after2 === undefined || !PATH_CHAR.test(after2)));
    const boundaryBefore = prev === undefined || !PATH_CHAR.test(prev) || prev === '/';
    if (boundaryAfter && boundaryBefore) {
      out += s.slice(i, j) + to;
    } else {
      out += s.slice(i, j + from.length);
    }
    i = j + from.length;
  }
  return out + s.slice(i);
}

function stripSlash(p: string): string {
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}

export class VolatileMap {
  private rec2live = new Map<string, string>();
  private live2rec = new Map<string, string>();
  private paths: Array<{ recorded: string; live: string }> = [];

  /** Binds a recorded id to a live id. Returns a conflict when either side is already bound elsewhere. */
  learnId(key: string, recorded: string, live: string): MapConflict | undefined {
    const r = this.rec2live.get(recorded);
    if (r !== undefined) return r === live ? undefined : { key, recorded, live, boundTo: r };
    const l = this.live2rec.get(live);
    if (l !== undefined) return l === recorded ? undefined : { key, recorded, live, boundTo: l };
    this.rec2live.set(recorded, live);
    this.live2rec.set(live, recorded);
    return undefined;
  }

  /** Declares that the recorded directory `recorded` is `live` in this run. */
  learnPath(recorded: string, live: string): void {
    recorded = stripSlash(recorded);
    live = stripSlash(live);
    if (recorded.length < 2 || live.length < 2) return;
    if (this.paths.some((p) => p.recorded === recorded)) return;
    this.paths.push({ recorded, live });
    // Longest first, so a nested directory wins over its parent.
    this.paths.sort((a, b) => b.recorded.length - a.recorded.length);
  }

  liveId(recorded: string): string | undefined {
    return this.rec2live.get(recorded);
  }
  recordedId(live: string): string | undefined {
    return this.live2rec.get(live);
  }

  /** Would `recorded`/`live` at a volatile key be consistent with what is known (equal after mapping, or both unbound)? */
  idsAgree(recorded: string, live: string): boolean {
    const r = this.rec2live.get(recorded);
    if (r !== undefined) return r === live;
    const l = this.live2rec.get(live);
    if (l !== undefined) return l === recorded;
    return true;
  }

  /** Would recorded directory `recorded` and live directory `live` be consistent with the paths known? */
  pathAgrees(recorded: string, live: string): boolean {
    recorded = stripSlash(recorded);
    live = stripSlash(live);
    const r = this.paths.find((p) => p.recorded === recorded);
    if (r) return r.live === live;
    const l = this.paths.find((p) => p.live === live);
    if (l) return l.recorded === recorded;
    // Under a known directory: must map onto the recorded one. A new, unrelated directory can still be learned.
    const mapped = this.mapPathString(live, false);
    return mapped !== live ? mapped === recorded : true;
  }

  /** Walks a matched pair of values in parallel and learns every id and cwd they disagree on. */
  learnFrom(recorded: unknown, live: unknown): MapConflict[] {
    const conflicts: MapConflict[] = [];
    const walk = (r: unknown, l: unknown, key: string | undefined): void => {
      if (key !== undefined && typeof r === 'string' && typeof l === 'string') {
        if (VOLATILE_ID_KEYS.has(key)) {
          const c = this.learnId(key, r, l);
          if (c) conflicts.push(c);
        } else if (CWD_KEYS.has(key) && r.startsWith('/') && l.startsWith('/')) {
          this.learnPath(r, l);
        }
        return;
      }
      if (Array.isArray(r) && Array.isArray(l)) {
        const n = Math.min(r.length, l.length);
        for (let i = 0; i < n; i++) walk(r[i], l[i], key);
        return;
      }
      if (isObj(r) && isObj(l)) {
        for (const k of Object.keys(r)) if (k in l) walk(r[k], l[k], k);
      }
    };
    walk(recorded, live, undefined);
    return conflicts;
  }

  /** Rewrites a recorded value into the live run's ids and paths (deep copy). */
  toLive(v: unknown): unknown {
    return this.rewrite(v, this.rec2live, true);
  }
  /** Rewrites a live value into the recording's ids and paths (deep copy). */
  toRecorded(v: unknown): unknown {
    return this.rewrite(v, this.live2rec, false);
  }

  /** Maps the paths inside one string. */
  mapPathString(s: string, toLive: boolean): string {
    for (const p of this.paths) {
      s = toLive ? replacePathPrefix(s, p.recorded, p.live) : replacePathPrefix(s, p.live, p.recorded);
    }
    return s;
  }

  private rewrite(v: unknown, ids: Map<string, string>, toLive: boolean, key?: string): unknown {
    if (typeof v === 'string') {
      if (key !== undefined && VOLATILE_ID_KEYS.has(key)) {
        const m = ids.get(v);
        if (m !== undefined) return m;
      }
      return this.paths.length ? this.mapPathString(v, toLive) : v;
    }
    if (Array.isArray(v)) return v.map((x) => this.rewrite(x, ids, toLive, key));
    if (isObj(v)) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = this.rewrite(x, ids, toLive, k);
      return out;
    }
    return v;
  }
}
