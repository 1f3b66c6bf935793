import { defineRule } from '../rule.js';
import { isNegativeLimit } from './negative-value.js';
import { isStatedFormat } from './invalid-format.js';
import { SHAPE_DISPUTED, schemaSection } from './util.js';

/**
 * Reading: per-method shapes come from the SDK's v1 JSON Schema; where spec.md differs, spec.md wins.
 * The finding cites the part of the spec that defines the faulty value (2.6 content, 2.8 MCP servers,
 * 2.9 elicitation, ...), else the method table. UNSTABLE methods (9 rule 5) get a warning, never an
 * error; those whose schema and spec.md disagree (mcp/message: spec.md requires `connectionId`, the
 * schema `serverId` and `requestId`) only info. Methods without an SDK schema are checked for the
 * fields spec.md marks `req`.
 */
export const invalidParams = defineRule({
  id: 'invalid-params',
  severity: 'error',
  spec: '4.1',
  title: 'Params do not match the method',
  specText: "The 'Params' and 'Result' columns list fields by name; `req` means required; every params and result object also accepts `_meta`.",
  kinds: ['request', 'notification'],
  check(c) {
    const side = c.spec?.side;
    const fallback = side === 'client' ? '4.2' : side === 'protocol' ? '4.3' : '4.1';
    const unstable = c.spec?.unstable === true;
    const req = c.spec?.required?.params;
    if (req) {
      if (!c.msg) return;
      const p = c.params;
      const missing = req.filter((k) => p === undefined || p[k] === undefined || p[k] === null);
      if (missing.length) c.report(`${c.method} params: missing required ${missing.map((k) => JSON.stringify(k)).join(', ')} (UNSTABLE method: a warning)`, { spec: fallback, severity: 'warning' });
      const types = c.spec?.required?.types;
      for (const k in types) {
        const v = p?.[k];
        if (v === undefined || v === null || isOfType(v, types[k]!)) continue;
        c.report(`${c.method} params.${k} is ${JSON.stringify(v)}, not ${types[k] === 'int64' ? 'a 64-bit integer' : 'a string'} (UNSTABLE method: a warning)`, { spec: fallback, severity: 'warning' });
      }
      return;
    }
    const r = c.schema();
    if (!r || r.ok) return;
    if (r.errors.length && r.errors.every(isNegativeLimit)) return; // negative-value says it better
    if (r.errors.some(isStatedFormat)) return; // invalid-format says it better (a union's other branches add their own errors)
    const disputed = unstable && SHAPE_DISPUTED.has(c.method ?? '');
    c.report(`${c.method} params: ${r.problems.join('; ')}${disputed ? ' (UNSTABLE method whose SDK schema and spec differ: noted)' : unstable ? ' (UNSTABLE method: a warning, not an error)' : ''}`, {
      spec: schemaSection(c.method, r.problems[0], c.msg, fallback),
      ...(disputed ? { severity: 'info' as const } : unstable ? { severity: 'warning' as const } : {}),
    });
  },
});

const INT64 = 2 ** 63;

function isOfType(v: unknown, t: 'string' | 'int64'): boolean {
  return t === 'string' ? typeof v === 'string' : typeof v === 'number' && Number.isInteger(v) && v >= -INT64 && v < INT64;
}
