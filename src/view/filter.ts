/**
 * The timeline's filter language, parsed once into terms that two back ends evaluate the same way:
 * SQL over the store (server/filter.ts) and a predicate over items in memory (this file, used by the
 * HTML report and the static viewer).
 *
 *   method:session/update   exact method; `*` is a wildcard (method:fs/*); commas mean "any of"
 *   dir:c2a|a2c|stderr|event (aliases: client = c2a, agent = a2c)
 *   kind:request|notification|result|error|invalid   (for events: the event type)
 *   session:ID   id:7   seq:100-200   turn:SEQ (the prompt turn started by that request)
 *   is:error (JSON-RPC errors, invalid lines and items with error findings)   has:finding
 *   severity:error|warning|info   rule:RULE-ID
 *   any other word or "quoted phrase": free text in the raw line (case-insensitive for ASCII)
 *   a leading `-` negates a term: -method:session/update (items without a method stay shown)
 *
 * Pure: no database, no Node built-in.
 */

export class FilterError extends Error {}

const KEYS = new Set(['method', 'dir', 'kind', 'session', 'id', 'seq', 'turn', 'is', 'has', 'severity', 'rule', 'text']);
const DIR_ALIASES: Record<string, string> = { c2a: 'c2a', a2c: 'a2c', client: 'c2a', agent: 'a2c', stderr: 'stderr', event: 'event', events: 'event', in: 'c2a', out: 'a2c' };
const IS_VALUES = ['error', 'request', 'notification', 'result', 'invalid', 'response', 'frame', 'slow'] as const;
const HAS_VALUES = ['finding', 'session', 'latency'] as const;

/** One term of a filter, checked and normalized. */
export type FilterTerm = { tok: string; neg: boolean } & (
  | { key: 'text'; value: string }
  /** Exact method names, or LIKE-style patterns (`*` any run of characters). */
  | { key: 'method'; values: { exact?: string; pattern?: string }[] }
  | { key: 'dir' | 'kind' | 'session' | 'rule'; values: string[] }
  /** JSON text of the JSON-RPC ids, as the store keeps them. */
  | { key: 'id'; values: string[] }
  | { key: 'severity'; values: ('error' | 'warning' | 'info')[] }
  | { key: 'seq'; from?: number; to?: number }
  | { key: 'turn'; seq: number }
  | { key: 'is'; what: (typeof IS_VALUES)[number] }
  | { key: 'has'; what: (typeof HAS_VALUES)[number] }
);

/** Splits a filter string into terms, keeping "quoted phrases" (and key:"quoted values") together. */
export function tokenize(q: string): string[] {
  const out: string[] = [];
  const re = /(-?[a-zA-Z]+:"[^"]*"?|-?"[^"]*"?|\S+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(q)) !== null) out.push(m[1]!);
  return out;
}

function unquote(s: string): string {
  if (s.startsWith('"')) s = s.slice(1);
  if (s.endsWith('"')) s = s.slice(0, -1);
  return s;
}

/** Parses `q`; throws FilterError naming the bad term and what would be accepted. */
export function parseFilter(q: string | undefined | null): FilterTerm[] {
  if ((q ?? '').length > 2000) throw new FilterError('the filter is longer than 2000 characters; shorten it');
  const terms: FilterTerm[] = [];
  for (const tok of tokenize(q ?? '')) {
    let neg = false;
    let t = tok;
    if (t.startsWith('-') && t.length > 1) { neg = true; t = t.slice(1); }
    const colon = t.indexOf(':');
    let key = 'text';
    let value = t;
    if (colon > 0 && !t.startsWith('"') && KEYS.has(t.slice(0, colon).toLowerCase())) {
      key = t.slice(0, colon).toLowerCase();
      value = t.slice(colon + 1);
    }
    value = unquote(value);
    if (value === '') {
      if (key === 'text') continue;
      throw new FilterError(`"${tok}" has no value; write ${key}:VALUE`);
    }
    terms.push(parseTerm(key, value, tok, neg));
  }
  return terms;
}

function parseTerm(key: string, value: string, tok: string, neg: boolean): FilterTerm {
  const values = value.split(',').filter((v) => v !== '');
  if (key !== 'text' && values.length === 0) throw new FilterError(`"${tok}" has no value; write ${key}:VALUE`);
  switch (key) {
    case 'text':
      return { tok, neg, key, value };
    case 'method':
      return { tok, neg, key, values: values.map((v) => (v.includes('*') ? { pattern: v } : { exact: v })) };
    case 'dir':
      return {
        tok, neg, key, values: values.map((v) => {
          const d = DIR_ALIASES[v.toLowerCase()];
          if (!d) throw new FilterError(`unknown direction in "${tok}"; use dir:c2a, dir:a2c, dir:stderr or dir:event`);
          return d;
        }),
      };
    case 'kind':
      return { tok, neg, key, values: values.map((v) => v.toLowerCase()) };
    case 'session':
    case 'rule':
      return { tok, neg, key, values };
    case 'id':
      return { tok, neg, key, values: values.map((v) => (/^-?\d+$/.test(v) ? v : JSON.stringify(v))) };
    case 'seq': {
      const m = /^(\d*)(?:-|\.\.)(\d*)$/.exec(value) ?? /^(\d+)$/.exec(value);
      if (!m) throw new FilterError(`bad range in "${tok}"; write seq:N, seq:FROM-TO, seq:FROM- or seq:-TO`);
      if (m.length === 2) return { tok, neg, key, from: Number(m[1]), to: Number(m[1]) };
      return { tok, neg, key, ...(m[1] ? { from: Number(m[1]) } : {}), ...(m[2] ? { to: Number(m[2]) } : {}) };
    }
    case 'turn':
      if (!/^\d+$/.test(value)) throw new FilterError(`"${tok}" needs the seq of a session/prompt request, e.g. turn:12`);
      return { tok, neg, key, seq: Number(value) };
    case 'is': {
      const what = value === 'errors' ? 'error' : value;
      if (!(IS_VALUES as readonly string[]).includes(what)) {
        throw new FilterError(`unknown "${tok}"; use is:error, is:request, is:response, is:notification, is:invalid, is:frame or is:slow`);
      }
      return { tok, neg, key, what: what as (typeof IS_VALUES)[number] };
    }
    case 'has': {
      const what = value === 'findings' ? 'finding' : value;
      if (!(HAS_VALUES as readonly string[]).includes(what)) throw new FilterError(`unknown "${tok}"; use has:finding, has:session or has:latency`);
      return { tok, neg, key, what: what as (typeof HAS_VALUES)[number] };
    }
    case 'severity':
      return {
        tok, neg, key, values: values.map((v) => {
          if (v !== 'error' && v !== 'warning' && v !== 'info') throw new FilterError(`unknown severity in "${tok}"; use error, warning or info`);
          return v;
        }),
      };
    default:
      throw new FilterError(`unknown filter key in "${tok}"`);
  }
}

/** ASCII-only lower case, as SQLite's LIKE compares. */
export function lowerAscii(s: string): string {
  return s.replace(/[A-Z]+/g, (c) => c.toLowerCase());
}

/** A LIKE-style pattern (`*` any run of characters, case-insensitive for ASCII) as a RegExp. */
function patternRegExp(p: string): RegExp {
  const src = p.split('*').map((part) => lowerAscii(part).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]*');
  return new RegExp(`^${src}$`);
}

/** What the in-memory predicate reads of one item: the store's columns. */
export interface FilterRow {
  seq: number;
  dir: string;
  kind: string | null;
  method: string | null;
  /** JSON text of the JSON-RPC id (frames only). */
  rpcId: string | null;
  sessionId: string | null;
  latency: number | null;
  raw: string;
}

/** What the predicate asks of the recording around an item (findings, turns). */
export interface FilterContext {
  /** Severities and rules of the findings at a seq. */
  findingsAt(seq: number): readonly { severity: string; rule: string }[];
  /** seq of the response to the request at `seq`, if any. */
  responseOf(seq: number): number | null;
  /** The session id of the item at `seq`, if any. */
  sessionOf(seq: number): string | null;
}

/** A predicate over items in memory that keeps exactly what the SQL of the same filter keeps. */
export function compileMatcher(terms: FilterTerm[], ctx: FilterContext): (row: FilterRow) => boolean {
  const preds = terms.map((t) => {
    const p = termPredicate(t, ctx);
    return t.neg ? (r: FilterRow) => !p(r) : p;
  });
  if (preds.length === 0) return () => true;
  return (r) => {
    for (let i = 0; i < preds.length; i++) if (!preds[i]!(r)) return false;
    return true;
  };
}

function termPredicate(t: FilterTerm, ctx: FilterContext): (r: FilterRow) => boolean {
  switch (t.key) {
    case 'text': {
      const needle = lowerAscii(t.value);
      return (r) => r.raw.includes(t.value) || lowerAscii(r.raw).includes(needle);
    }
    case 'method': {
      const exact = new Set(t.values.flatMap((v) => (v.exact !== undefined ? [v.exact] : [])));
      const res = t.values.flatMap((v) => (v.pattern !== undefined ? [patternRegExp(v.pattern)] : []));
      return (r) => r.method !== null && (exact.has(r.method) || res.some((re) => re.test(lowerAscii(r.method!))));
    }
    case 'dir': { const s = new Set(t.values); return (r) => s.has(r.dir); }
    case 'kind': { const s = new Set(t.values); return (r) => r.kind !== null && s.has(r.kind); }
    case 'session': { const s = new Set(t.values); return (r) => r.sessionId !== null && s.has(r.sessionId); }
    case 'id': { const s = new Set(t.values); return (r) => r.rpcId !== null && s.has(r.rpcId) && (r.dir === 'c2a' || r.dir === 'a2c'); }
    case 'seq': return (r) => (t.from === undefined || r.seq >= t.from) && (t.to === undefined || r.seq <= t.to);
    case 'turn': {
      const end = ctx.responseOf(t.seq) ?? Number.MAX_VALUE;
      const sid = ctx.sessionOf(t.seq);
      return (r) => r.seq >= t.seq && r.seq <= end && (r.sessionId === null || (sid !== null && r.sessionId === sid) || r.seq === t.seq);
    }
    case 'is':
      switch (t.what) {
        case 'error': return (r) => r.kind === 'error' || r.kind === 'invalid' || ctx.findingsAt(r.seq).some((f) => f.severity === 'error');
        case 'response': return (r) => r.kind === 'result' || r.kind === 'error';
        case 'frame': return (r) => r.dir === 'c2a' || r.dir === 'a2c';
        case 'slow': return (r) => r.latency !== null && r.latency >= 1000;
        default: { const w = t.what; return (r) => r.kind === w; }
      }
    case 'has':
      if (t.what === 'finding') return (r) => ctx.findingsAt(r.seq).length > 0;
      if (t.what === 'session') return (r) => r.sessionId !== null;
      return (r) => r.latency !== null;
    case 'severity': { const s = new Set<string>(t.values); return (r) => ctx.findingsAt(r.seq).some((f) => s.has(f.severity)); }
    case 'rule': { const s = new Set(t.values); return (r) => ctx.findingsAt(r.seq).some((f) => s.has(f.rule)); }
  }
}
