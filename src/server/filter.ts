/**
 * The timeline's filter language, compiled to a SQL condition over `items` (alias `i`).
 *
 *   method:session/update   exact method; `*` is a wildcard (method:fs/*); commas mean "any of"
 *   dir:c2a|a2c|stderr|event (aliases: client = c2a, agent = a2c)
 *   kind:request|notification|result|error|invalid   (for events: the event type)
 *   session:ID   id:7   seq:100-200   turn:SEQ (the prompt turn started by that request)
 *   is:error (JSON-RPC errors, invalid lines and items with error findings)   has:finding
 *   severity:error|warning|info   rule:RULE-ID
 *   any other word or "quoted phrase": free text in the raw line (case-insensitive for ASCII)
 *   a leading `-` negates a term: -method:session/update
 *
 * Pure: no database access; the caller runs the SQL.
 */

export interface CompiledFilter {
  /** SQL boolean expression over `items i` (always valid; `1` for an empty filter). */
  where: string;
  params: (string | number)[];
  /** Terms in a normal form, for display. */
  terms: string[];
}

export class FilterError extends Error {}

const KEYS = new Set(['method', 'dir', 'kind', 'session', 'id', 'seq', 'turn', 'is', 'has', 'severity', 'rule', 'text']);
const DIR_ALIASES: Record<string, string> = { c2a: 'c2a', a2c: 'a2c', client: 'c2a', agent: 'a2c', stderr: 'stderr', event: 'event', events: 'event', in: 'c2a', out: 'a2c' };

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

function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Compiles `q`; throws FilterError naming the bad term and what would be accepted. */
export function compileFilter(q: string | undefined | null): CompiledFilter {
  if ((q ?? '').length > 2000) throw new FilterError('the filter is longer than 2000 characters; shorten it');
  const conds: string[] = [];
  const params: (string | number)[] = [];
  const terms: string[] = [];
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
    const c = compileTerm(key, value, params, tok);
    conds.push(neg ? `NOT (${c})` : `(${c})`);
    terms.push(tok);
  }
  return { where: conds.length ? conds.join(' AND ') : '1', params, terms };
}

function anyOf(values: string[], one: (v: string) => string): string {
  return values.length === 1 ? one(values[0]!) : values.map((v) => `(${one(v)})`).join(' OR ');
}

function compileTerm(key: string, value: string, params: (string | number)[], tok: string): string {
  const values = key === 'text' ? [value] : value.split(',').filter((v) => v !== '');
  switch (key) {
    case 'text':
      params.push(`%${likeEscape(value)}%`);
      return `i.raw LIKE ? ESCAPE '\\'`;
    case 'method':
      return anyOf(values, (v) => {
        if (v.includes('*')) {
          params.push(likeEscape(v).replace(/\*/g, '%'));
          return `i.method LIKE ? ESCAPE '\\'`;
        }
        params.push(v);
        return `i.method = ?`;
      });
    case 'dir':
      return anyOf(values, (v) => {
        const d = DIR_ALIASES[v.toLowerCase()];
        if (!d) throw new FilterError(`unknown direction in "${tok}"; use dir:c2a, dir:a2c, dir:stderr or dir:event`);
        params.push(d);
        return `i.dir = ?`;
      });
    case 'kind':
      return anyOf(values, (v) => { params.push(v.toLowerCase()); return `i.kind = ?`; });
    case 'session':
      return anyOf(values, (v) => { params.push(v); return `i.session_id = ?`; });
    case 'id':
      return anyOf(values, (v) => {
        params.push(/^-?\d+$/.test(v) ? v : JSON.stringify(v));
        return `i.rpc_id = ? AND i.dir IN ('c2a','a2c')`;
      });
    case 'seq': {
      const m = /^(\d*)(?:-|\.\.)(\d*)$/.exec(value) ?? /^(\d+)$/.exec(value);
      if (!m) throw new FilterError(`bad range in "${tok}"; write seq:N, seq:FROM-TO, seq:FROM- or seq:-TO`);
      if (m.length === 2) { params.push(Number(m[1])); return `i.seq = ?`; }
      const parts: string[] = [];
      if (m[1]) { params.push(Number(m[1])); parts.push(`i.seq >= ?`); }
      if (m[2]) { params.push(Number(m[2])); parts.push(`i.seq <= ?`); }
      return parts.length ? parts.join(' AND ') : '1';
    }
    case 'turn': {
      if (!/^\d+$/.test(value)) throw new FilterError(`"${tok}" needs the seq of a session/prompt request, e.g. turn:12`);
      const s = Number(value);
      params.push(s, s, s, s);
      // From the prompt request to its response (or the end while it runs), same session or none.
      return `i.seq >= ? AND i.seq <= COALESCE((SELECT r.seq FROM items r WHERE r.recording_id = i.recording_id AND r.reply_to = ?), 9e18)
        AND (i.session_id IS NULL OR i.session_id = (SELECT p.session_id FROM items p WHERE p.recording_id = i.recording_id AND p.seq = ?) OR i.seq = ?)`;
    }
    case 'is':
      if (value === 'error' || value === 'errors') {
        return `i.kind IN ('error','invalid') OR EXISTS (SELECT 1 FROM findings f WHERE f.recording_id = i.recording_id AND f.seq = i.seq AND f.severity = 'error')`;
      }
      if (value === 'request' || value === 'notification' || value === 'result' || value === 'invalid') { params.push(value); return `i.kind = ?`; }
      if (value === 'response') return `i.kind IN ('result','error')`;
      if (value === 'frame') return `i.dir IN ('c2a','a2c')`;
      if (value === 'slow') return `i.latency >= 1000`;
      throw new FilterError(`unknown "${tok}"; use is:error, is:request, is:response, is:notification, is:invalid, is:frame or is:slow`);
    case 'has':
      if (value === 'finding' || value === 'findings') return `EXISTS (SELECT 1 FROM findings f WHERE f.recording_id = i.recording_id AND f.seq = i.seq)`;
      if (value === 'session') return `i.session_id IS NOT NULL`;
      if (value === 'latency') return `i.latency IS NOT NULL`;
      throw new FilterError(`unknown "${tok}"; use has:finding, has:session or has:latency`);
    case 'severity':
      return anyOf(values, (v) => {
        if (!['error', 'warning', 'info'].includes(v)) throw new FilterError(`unknown severity in "${tok}"; use error, warning or info`);
        params.push(v);
        return `EXISTS (SELECT 1 FROM findings f WHERE f.recording_id = i.recording_id AND f.seq = i.seq AND f.severity = ?)`;
      });
    case 'rule':
      return anyOf(values, (v) => {
        params.push(v);
        return `EXISTS (SELECT 1 FROM findings f WHERE f.recording_id = i.recording_id AND f.seq = i.seq AND f.rule = ?)`;
      });
    default:
      throw new FilterError(`unknown filter key in "${tok}"`);
  }
}
