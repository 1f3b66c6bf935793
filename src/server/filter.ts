/**
 * The timeline's filter language (parsed in view/filter.ts) compiled to a SQL condition over `items`
 * (alias `i`). The in-memory predicate of view/filter.ts keeps exactly the same items.
 *
 * Pure: no database access; the caller runs the SQL.
 */
import { FilterError, parseFilter, tokenize, type FilterTerm } from '../view/filter.js';

export { FilterError, tokenize };

export interface CompiledFilter {
  /** SQL boolean expression over `items i` (always valid; `1` for an empty filter). */
  where: string;
  params: (string | number)[];
  /** Terms in a normal form, for display. */
  terms: string[];
}

function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Compiles `q`; throws FilterError naming the bad term and what would be accepted. */
export function compileFilter(q: string | undefined | null): CompiledFilter {
  const conds: string[] = [];
  const params: (string | number)[] = [];
  const terms: string[] = [];
  for (const term of parseFilter(q)) {
    const c = compileTerm(term, params);
    // Two-valued: a negated term keeps the items it says nothing about (-method:x keeps stderr lines).
    conds.push(term.neg ? `NOT COALESCE((${c}), 0)` : `(${c})`);
    terms.push(term.tok);
  }
  return { where: conds.length ? conds.join(' AND ') : '1', params, terms };
}

function anyOf<T>(values: T[], one: (v: T) => string): string {
  return values.length === 1 ? one(values[0]!) : values.map((v) => `(${one(v)})`).join(' OR ');
}

const finding = (cond: string) => `EXISTS (SELECT 1 FROM findings f WHERE f.recording_id = i.recording_id AND f.seq = i.seq${cond})`;

function compileTerm(t: FilterTerm, params: (string | number)[]): string {
  switch (t.key) {
    case 'text':
      params.push(`%${likeEscape(t.value)}%`);
      return `i.raw LIKE ? ESCAPE '\\'`;
    case 'method':
      return anyOf(t.values, (v) => {
        if (v.pattern !== undefined) {
          params.push(likeEscape(v.pattern).replace(/\*/g, '%'));
          return `i.method LIKE ? ESCAPE '\\'`;
        }
        params.push(v.exact!);
        return `i.method = ?`;
      });
    case 'dir':
      return anyOf(t.values, (v) => { params.push(v); return `i.dir = ?`; });
    case 'kind':
      return anyOf(t.values, (v) => { params.push(v); return `i.kind = ?`; });
    case 'session':
      return anyOf(t.values, (v) => { params.push(v); return `i.session_id = ?`; });
    case 'id':
      return anyOf(t.values, (v) => { params.push(v); return `i.rpc_id = ? AND i.dir IN ('c2a','a2c')`; });
    case 'seq': {
      const parts: string[] = [];
      if (t.from !== undefined && t.from === t.to) { params.push(t.from); return `i.seq = ?`; }
      if (t.from !== undefined) { params.push(t.from); parts.push(`i.seq >= ?`); }
      if (t.to !== undefined) { params.push(t.to); parts.push(`i.seq <= ?`); }
      return parts.length ? parts.join(' AND ') : '1';
    }
    case 'turn': {
      const s = t.seq;
      params.push(s, s, s, s);
      // From the prompt request to its response (or the end while it runs), same session or none.
      return `i.seq >= ? AND i.seq <= COALESCE((SELECT r.seq FROM items r WHERE r.recording_id = i.recording_id AND r.reply_to = ?), 9e18)
        AND (i.session_id IS NULL OR i.session_id = (SELECT p.session_id FROM items p WHERE p.recording_id = i.recording_id AND p.seq = ?) OR i.seq = ?)`;
    }
    case 'is':
      switch (t.what) {
        case 'error': return `i.kind IN ('error','invalid') OR ${finding(` AND f.severity = 'error'`)}`;
        case 'response': return `i.kind IN ('result','error')`;
        case 'frame': return `i.dir IN ('c2a','a2c')`;
        case 'slow': return `i.latency >= 1000`;
        default: params.push(t.what); return `i.kind = ?`;
      }
    case 'has':
      if (t.what === 'finding') return finding('');
      if (t.what === 'session') return `i.session_id IS NOT NULL`;
      return `i.latency IS NOT NULL`;
    case 'severity':
      return anyOf(t.values, (v) => { params.push(v); return finding(' AND f.severity = ?'); });
    case 'rule':
      return anyOf(t.values, (v) => { params.push(v); return finding(' AND f.rule = ?'); });
  }
}
