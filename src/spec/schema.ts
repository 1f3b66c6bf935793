/**
 * Per-method JSON Schema validation against the ACP SDK's schemas (generated into schema-data.ts).
 * Each method's params and result `$def` is found by its `x-method` and compiled lazily, once.
 *
 * Unions are relaxed before compiling: a discriminated union (by `type`, `mode`, `action`,
 * `sessionUpdate`, `outcome`, ...) accepts an unknown discriminator value, and a closed string enum
 * accepts an unknown string, because spec 2.1 and 9 rule 6 reserve such values for extensions (leading
 * `_`) and future versions. Such values are reported back as `unknowns` instead of failing. A value
 * that fails the stable schema but passes the unstable one is accepted (UNSTABLE features are never
 * errors by themselves, 9 rule 5). Never throws.
 */
import { Ajv2020, _, Name, stringify, type KeywordCxt } from 'ajv/dist/2020.js';
import type { ErrorObject, Options, ValidateFunction } from 'ajv';
import { STABLE_SCHEMA, UNSTABLE_SCHEMA } from './schema-data.js';
import { pointerToPath } from './schema-path.js';
import { discriminatorOf, methodDefs, type SchemaRole } from './schema-defs.js';
import type { FieldNote } from './fields.js';

export { pointerToPath, methodDefs, type SchemaRole };

/** An unknown union variant or enum value met while validating. */
export interface UnknownValue {
  /** Where, e.g. `params.update.sessionUpdate`. */
  path: string;
  value: string;
  /** `variant`: discriminator of a union; `value`: a closed enum. */
  kind: 'variant' | 'value';
  known: string[];
}

export interface SchemaResult {
  ok: boolean;
  /** One readable line per problem (at most 3), when not ok. */
  problems: string[];
  /** The raw ajv errors, when not ok. */
  errors: ErrorObject[];
  unknowns: UnknownValue[];
  /** Field names the schema does not know or knows as UNSTABLE (set by the checker, see fields.ts). */
  fields?: FieldNote[];
}

/** The validating functions of one schema (stable or UNSTABLE), by `$def` name, as ajv's standalone code makes them. */
export type PrebuiltValidators = Record<string, ValidateFunction>;

/**
 * A module of validators generated at build time (scripts/gen-validators.js writes it from this
 * file's own `newAjv` and relaxed schemas): its default export, called with the function that
 * notes unknown values, returns both schemas' validators.
 */
export type PrebuiltFactory = (note: typeof noteUnknown) => { stable: PrebuiltValidators; unstable: PrebuiltValidators };

interface Flavor {
  schema: Record<string, unknown>;
  /** `${method} ${role}` → $def name */
  defs: Map<string, string>;
  compiled: Record<SchemaRole, Map<string, ValidateFunction | null>>;
  /** Made on the first validator that was not prebuilt. */
  ajv?: Ajv2020;
  prebuilt?: PrebuiltValidators;
}

const UNKNOWN_KEYWORD = 'x-acp-unknown';
/** The unknown values noted by the validator running now (emptied before and after each run). */
const collector: UnknownValue[] = [];

/** Called by the validators (run time or prebuilt) for each unknown discriminator or enum value; `path` is a JSON pointer. */
export function noteUnknown(path: string, value: string, kind: 'variant' | 'value', known: string[]): void {
  collector.push({ path, value, kind, known });
}

/** Formats that are not ignored (the integer formats are already bounded by minimum/maximum); the prebuilt module embeds their source. */
export const FORMATS = {
  /** Elicitation URLs must parse as a URL. */
  uri: (v: string) => URL.canParse(v),
  /**
   * Base64 (RFC 4648 section 4, the standard alphabet): `=` padding to a multiple of 4, or none (an
   * unpadded length is never 1 more than a multiple of 4). No whitespace, no `data:` prefix, not the
   * URL-safe alphabet. A loop, not a regular expression: image data runs to megabytes.
   */
  base64: (v: string) => {
    let n = v.length;
    if (n > 0 && v.charCodeAt(n - 1) === 61) {
      if (n % 4 !== 0) return false;
      n--;
      if (v.charCodeAt(n - 1) === 61) n--;
    } else if (n % 4 === 1) return false;
    for (let i = 0; i < n; i++) {
      const c = v.charCodeAt(i);
      if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 47 && c <= 57) || c === 43)) return false;
    }
    return true;
  },
  /** An ISO 4217 currency code: three capital letters. */
  'iso-4217': (v: string) => v.length === 3 && /^[A-Z]{3}$/.test(v),
};

/**
 * Formats the spec states for fields the SDK's schemas leave as plain strings ($def, property, format,
 * spec section): relaxedSchema adds them, so the validators check them at the frame.
 */
export const STATED_FORMATS: readonly (readonly [def: string, prop: string, format: keyof typeof FORMATS, spec: string])[] = [
  ['ImageContent', 'data', 'base64', '2.6'],
  ['AudioContent', 'data', 'base64', '2.6'],
  ['BlobResourceContents', 'blob', 'base64', '2.6'],
  ['Cost', 'currency', 'iso-4217', '2.7'],
];

/** Adds STATED_FORMATS to a schema's definitions (in place); returns it. */
export function addStatedFormats(schema: Record<string, unknown>): Record<string, unknown> {
  const defs = (schema.$defs ?? {}) as Record<string, { properties?: Record<string, Record<string, unknown>> }>;
  for (const [def, prop, format] of STATED_FORMATS) {
    const p = defs[def]?.properties?.[prop];
    if (p && p.format === undefined) p.format = format;
  }
  return schema;
}

const INSTANCE_PATH = new Name('instancePath');

interface UnknownSchema {
  field?: string;
  known: string[];
  kind: 'variant' | 'value';
}

/**
 * The ajv instance every validator is made by, at run time or at build time (`source`: keep the
 * generated code, for the standalone module). The `x-acp-unknown` keyword is compiled into the
 * validator's code: a string outside `known` (at `field` of an object, or the value itself) is passed
 * to `noteUnknown` with its JSON pointer; the keyword never fails.
 */
export function newAjv(source = false): Ajv2020 {
  // No optimizing pass over the generated code at run time: it made compiling the session/update
  // schema (every update and content variant, compiled on the first update) a third slower and
  // validating no faster. (The prebuilt module is made with it: there compiling costs nothing.)
  const code: Options['code'] = source ? { source: true, optimize: true, formats: _`formats` } : { optimize: false };
  const ajv = new Ajv2020({ strict: false, allErrors: false, logger: false, discriminator: true, code });
  for (const f of ['int64', 'uint32', 'double', 'uint64', 'uint16', 'int32', 'float', 'uint8', 'int8', 'int16', 'uint']) ajv.addFormat(f, true);
  for (const [name, f] of Object.entries(FORMATS)) ajv.addFormat(name, f);
  ajv.addKeyword({
    keyword: UNKNOWN_KEYWORD,
    schemaType: 'object',
    errors: false,
    code(cxt: KeywordCxt) {
      const { gen, data, it } = cxt;
      const sch = cxt.schema as UnknownSchema;
      const note = gen.scopeValue('keyword', { ref: noteUnknown, code: _`note` });
      // As it always was: a value that is not an object is itself the discriminator's value.
      const v = gen.const('u', sch.field !== undefined ? _`${data} && typeof ${data} == "object" ? ${data}[${sch.field}] : ${data}` : data);
      let unknown = _`typeof ${v} == "string"`;
      for (const k of sch.known) unknown = _`${unknown} && ${v} !== ${k}`;
      const path = sch.field !== undefined ? _`${INSTANCE_PATH} + ${it.errorPath} + ${`/${sch.field}`}` : _`${INSTANCE_PATH} + ${it.errorPath}`;
      gen.if(unknown, () => gen.code(_`${note}(${path}, ${v}, ${sch.kind}, ${stringify(sch.known)})`));
    },
  });
  return ajv;
}

/** A schema with the formats the spec states added, its unions relaxed (see relaxUnions), its root union removed: what `newAjv` gets as `acp`. */
export function relaxedSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const relaxed = relaxUnions(addStatedFormats(structuredClone(schema))) as Record<string, unknown>;
  delete relaxed.anyOf;
  return relaxed;
}

const stable: Flavor = { schema: STABLE_SCHEMA, defs: methodDefs(STABLE_SCHEMA), compiled: { params: new Map(), result: new Map() } };
const unstable: Flavor = { schema: UNSTABLE_SCHEMA, defs: methodDefs(UNSTABLE_SCHEMA), compiled: { params: new Map(), result: new Map() } };

/**
 * Uses validators generated at build time instead of compiling the schemas at run time (compiling
 * the session/update schema alone takes a few hundred milliseconds). The edges that check many
 * frames install them (check-run/validators.ts); without them every validator is compiled on first use.
 */
export function installPrebuiltValidators(factory: PrebuiltFactory): void {
  const made = factory(noteUnknown);
  for (const [f, v] of [[stable, made.stable], [unstable, made.unstable]] as const) {
    f.prebuilt = v;
    f.compiled.params.clear();
    f.compiled.result.clear();
  }
}

function validatorFor(f: Flavor, method: string, role: SchemaRole): ValidateFunction | null {
  let v = f.compiled[role].get(method);
  if (v !== undefined) return v;
  const def = f.defs.get(`${method} ${role}`);
  v = null;
  if (def) {
    v = f.prebuilt?.[def] ?? null;
    if (!v) {
      try {
        if (!f.ajv) {
          f.ajv = newAjv();
          f.ajv.addSchema(relaxedSchema(f.schema), 'acp');
        }
        v = f.ajv.getSchema(`acp#/$defs/${def}`) ?? null;
      } catch {
        v = null;
      }
    }
  }
  f.compiled[role].set(method, v);
  return v;
}

/** True when either schema has a definition for this method's params or result. */
export function hasSchema(method: string, role: SchemaRole): boolean {
  return stable.defs.has(`${method} ${role}`) || unstable.defs.has(`${method} ${role}`);
}

const OK: SchemaResult = { ok: true, problems: [], errors: [], unknowns: [] };

/**
 * Validates `data` as the params or result of `method`. Unknown methods validate as ok.
 * `prefix` names the value in messages (`params` or `result`).
 */
export function validateMethod(method: string, role: SchemaRole, data: unknown): SchemaResult {
  const v1 = validatorFor(stable, method, role);
  const first = run(v1, data);
  if (first === undefined) {
    const r = run(validatorFor(unstable, method, role), data);
    if (r && !r.ok) r.problems = describeErrors(r.errors, role);
    return r ?? OK;
  }
  if (first.ok && first.unknowns.length === 0) return first;
  if (first.ok) {
    // A value unknown to the stable schema may be an UNSTABLE variant (plan_update, ...).
    // If the UNSTABLE shape is off too, that is still not an error (9 rule 5): keep only the
    // values unknown to both schemas.
    const again = run(validatorFor(unstable, method, role), data);
    if (!again || again.ok) return again ?? first;
    return { ...first, unknowns: first.unknowns.filter((u) => again.unknowns.some((v) => v.path === u.path && v.value === u.value)) };
  }
  const second = run(validatorFor(unstable, method, role), data);
  if (second?.ok) return second;
  first.problems = describeErrors(first.errors, role);
  return first;
}

function run(v: ValidateFunction | null, data: unknown): SchemaResult | undefined {
  if (!v) return undefined;
  if (collector.length !== 0) collector.length = 0; // (setting the length costs a call into V8, even to 0 from 0)
  let ok: boolean;
  try {
    ok = v(data) as boolean;
  } catch {
    return undefined;
  }
  let unknowns: UnknownValue[] | undefined;
  if (collector.length) {
    unknowns = [];
    for (const u of collector) {
      const path = pointerToPath(u.path, '');
      if (!unknowns.some((x) => x.path === path && x.value === u.value)) unknowns.push({ ...u, path });
    }
    collector.length = 0;
  }
  if (ok) return unknowns ? { ok: true, problems: [], errors: [], unknowns } : OK;
  return { ok: false, problems: [], errors: (v.errors ?? []).slice(0, 50), unknowns: unknowns ?? [] };
}

const BRANCH_KEYWORDS = new Set(['anyOf', 'oneOf', 'not', 'if', 'then', 'else', UNKNOWN_KEYWORD]);

/**
 * Picks the errors worth showing: drops the union branches whose discriminator did not match, then
 * prefers the deepest remaining errors.
 */
export function describeErrors(errors: ErrorObject[], prefix: string): string[] {
  const wrong: string[] = [];
  for (const e of errors) {
    if (e.keyword !== 'const' && e.keyword !== 'enum') continue;
    const m = /^(.*\/(?:anyOf|oneOf)\/\d+)\//.exec(e.schemaPath);
    if (!m) continue;
    const parent = e.instancePath.replace(/\/[^/]*$/, '');
    wrong.push(`${parent}|${m[1]}`);
  }
  const kept = errors.filter((e) => {
    if (BRANCH_KEYWORDS.has(e.keyword)) return false;
    // "must be null" from the `T | null` pattern only repeats that T failed.
    if (e.keyword === 'type' && (e.params as { type?: unknown }).type === 'null') return false;
    for (const w of wrong) {
      const [inst, schemaPrefix] = w.split('|') as [string, string];
      if ((e.instancePath === inst || e.instancePath.startsWith(inst + '/')) && e.schemaPath.startsWith(schemaPrefix + '/')) return false;
    }
    return true;
  });
  const pool = kept.length ? kept : errors;
  const depth = (e: ErrorObject) => e.instancePath.split('/').length;
  const sorted = [...pool].sort((a, b) => depth(b) - depth(a));
  const out: string[] = [];
  for (const e of sorted) {
    const where = pointerToPath(e.instancePath, prefix);
    let msg = e.message ?? e.keyword;
    if (e.keyword === 'additionalProperties') msg += ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})`;
    if (e.keyword === 'enum' || e.keyword === 'const') msg += ` (${JSON.stringify((e.params as { allowedValues?: unknown; allowedValue?: unknown }).allowedValues ?? (e.params as { allowedValue?: unknown }).allowedValue)})`;
    const line = `${where}: ${msg}`;
    if (!out.includes(line)) out.push(line);
    if (out.length >= 3) break;
  }
  return out;
}

type Json = Record<string, unknown>;

/**
 * Makes unions accept unknown variants (see the file comment) and turns discriminated unions into
 * `if`/`then` chains so that errors come only from the branch the discriminator selects. Exported for tests.
 */
export function relaxUnions(node: unknown): unknown {
  if (Array.isArray(node)) {
    for (const n of node) relaxUnions(n);
    return node;
  }
  if (!node || typeof node !== 'object') return node;
  const o = node as Json;
  for (const v of Object.values(o)) relaxUnions(v);
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = o[key];
    if (!Array.isArray(branches) || branches.length === 0) continue;
    const bs = branches as Json[];
    // A closed string enum: every branch is {type: string, const}. Accept any string, note unknown ones.
    if (bs.every((b) => typeof b.const === 'string')) {
      delete o[key];
      o.type = 'string';
      o[UNKNOWN_KEYWORD] = { known: bs.map((b) => b.const as string), kind: 'value' };
      continue;
    }
    const field = discriminatorOf(bs);
    if (field === undefined) continue;
    const known: string[] = [];
    const chain: Json[] = [];
    let fallback: Json | undefined;
    for (const b of bs) {
      const c = (b.properties as Record<string, Json> | undefined)?.[field]?.const;
      if (typeof c === 'string') {
        known.push(c);
        chain.push({ if: { properties: { [field]: { const: c } }, required: [field] }, then: b });
      } else if (!(b.properties as Record<string, Json> | undefined)?.[field]) {
        fallback ??= b; // the default kind, used when the discriminator is absent (stdio MCP server, agent auth method)
      }
    }
    delete o[key];
    delete o.discriminator;
    const all = (o.allOf as Json[] | undefined) ?? [];
    if (fallback) {
      chain.push({ if: { not: { required: [field] } }, then: fallback });
      o.allOf = [...all, ...chain];
    } else {
      // Known tag: ajv's discriminator picks the branch directly (one lookup instead of a chain of ifs).
      const tagged = bs.filter((b) => typeof (b.properties as Record<string, Json> | undefined)?.[field]?.const === 'string');
      o.allOf = [...all, { if: { properties: { [field]: { enum: known } }, required: [field] }, then: { discriminator: { propertyName: field }, oneOf: tagged } }];
    }
    if (o.type === undefined) o.type = 'object';
    if (!fallback) o.required = [...new Set([...((o.required as string[] | undefined) ?? []), field])];
    o[UNKNOWN_KEYWORD] = { field, known, kind: 'variant' };
  }
  return o;
}
