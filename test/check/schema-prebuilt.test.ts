/**
 * The schema validators `check` uses (generated at build time into dist/, and the run-time ones with
 * the `x-acp-unknown` keyword compiled into their code) accept, reject and describe exactly what the
 * previous validators did: the reference below is the previous implementation (a keyword calling a
 * function with ajv's per-call context), kept here verbatim. Compared on every params and result of
 * every recording in recordings/, on those values against other methods' schemas, and on mutated
 * frames (seeded).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { FORMATS, addStatedFormats, describeErrors, installPrebuiltValidators, methodDefs, relaxUnions, validateMethod, type PrebuiltFactory, type SchemaResult, type SchemaRole, type UnknownValue } from '../../src/spec/schema.js';
import { pointerToPath } from '../../src/spec/schema-path.js';
import { STABLE_SCHEMA, UNSTABLE_SCHEMA } from '../../src/spec/schema-data.js';
import { parseTranscript } from '../../src/transcript/format.js';
import { isFrame } from '../../src/wire/frame.js';
import { seededRandom } from '../helpers.js';

const ROOT = resolve(__dirname, '../..');

// ---- the previous implementation (reference) ----------------------------------------------------
let collector: UnknownValue[] = [];
interface Flavor { ajv: Ajv2020; defs: Map<string, string>; compiled: Record<SchemaRole, Map<string, ValidateFunction | null>> }
function makeFlavor(schema: Record<string, unknown>): Flavor {
  const relaxed = relaxUnions(addStatedFormats(structuredClone(schema))) as Record<string, unknown>;
  const ajv = new Ajv2020({ strict: false, allErrors: false, logger: false, discriminator: true, code: { optimize: false } });
  for (const f of ['int64', 'uint32', 'double', 'uint64', 'uint16', 'int32', 'float', 'uint8', 'int8', 'int16', 'uint']) ajv.addFormat(f, true);
  ajv.addFormat('uri', (v: string) => URL.canParse(v));
  ajv.addFormat('base64', FORMATS.base64);
  ajv.addFormat('iso-4217', FORMATS['iso-4217']);
  ajv.addKeyword({
    keyword: 'x-acp-unknown',
    schemaType: 'object',
    errors: false,
    validate: (sch: { field?: string; known: string[]; kind: 'variant' | 'value' }, data: unknown, _p: unknown, cxt?: { instancePath: string }) => {
      const v = sch.field !== undefined && data && typeof data === 'object' ? (data as Record<string, unknown>)[sch.field] : data;
      if (typeof v === 'string' && !sch.known.includes(v)) {
        const path = (cxt?.instancePath ?? '') + (sch.field !== undefined ? `/${sch.field}` : '');
        collector.push({ path, value: v, kind: sch.kind, known: sch.known });
      }
      return true;
    },
  });
  delete relaxed.anyOf;
  ajv.addSchema(relaxed, 'acp');
  return { ajv, defs: methodDefs(relaxed), compiled: { params: new Map(), result: new Map() } };
}
const refStable = makeFlavor(STABLE_SCHEMA);
const refUnstable = makeFlavor(UNSTABLE_SCHEMA);
function refValidator(f: Flavor, method: string, role: SchemaRole): ValidateFunction | null {
  let v = f.compiled[role].get(method);
  if (v !== undefined) return v;
  const def = f.defs.get(`${method} ${role}`);
  v = null;
  if (def) {
    try {
      v = f.ajv.getSchema(`acp#/$defs/${def}`) ?? null;
    } catch {
      v = null;
    }
  }
  f.compiled[role].set(method, v);
  return v;
}
const OK: SchemaResult = { ok: true, problems: [], errors: [], unknowns: [] };
function refRun(v: ValidateFunction | null, data: unknown): SchemaResult | undefined {
  if (!v) return undefined;
  collector = [];
  let ok: boolean;
  try {
    ok = v(data) as boolean;
  } catch {
    return undefined;
  }
  const unknowns: UnknownValue[] = [];
  for (const u of collector) {
    const path = pointerToPath(u.path, '');
    if (!unknowns.some((x) => x.path === path && x.value === u.value)) unknowns.push({ ...u, path });
  }
  collector = [];
  if (ok) return unknowns.length ? { ok: true, problems: [], errors: [], unknowns } : OK;
  return { ok: false, problems: [], errors: (v.errors ?? []).slice(0, 50), unknowns };
}
function refValidateMethod(method: string, role: SchemaRole, data: unknown): SchemaResult {
  const first = refRun(refValidator(refStable, method, role), data);
  if (first === undefined) {
    const r = refRun(refValidator(refUnstable, method, role), data);
    if (r && !r.ok) r.problems = describeErrors(r.errors, role);
    return r ?? OK;
  }
  if (first.ok && first.unknowns.length === 0) return first;
  if (first.ok) {
    const again = refRun(refValidator(refUnstable, method, role), data);
    if (!again || again.ok) return again ?? first;
    return { ...first, unknowns: first.unknowns.filter((u) => again.unknowns.some((v) => v.path === u.path && v.value === u.value)) };
  }
  const second = refRun(refValidator(refUnstable, method, role), data);
  if (second?.ok) return second;
  first.problems = describeErrors(first.errors, role);
  return first;
}

// ---- the cases ------------------------------------------------------------------------------------
type Case = [method: string, role: SchemaRole, data: unknown];

function jsonlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...jsonlFiles(p));
    else if (p.endsWith('.jsonl')) out.push(p);
  }
  return out;
}

/** Every params and result in the repository's recordings, as the checker validates them. */
function recordedCases(): Case[] {
  const cases: Case[] = [];
  for (const file of jsonlFiles(join(ROOT, 'recordings'))) {
    for (const item of parseTranscript(readFileSync(file, 'utf8')).items) {
      if (!isFrame(item) || item.method === undefined || !item.json || typeof item.json !== 'object') continue;
      const msg = item.json as Record<string, unknown>;
      if (item.kind === 'request' || item.kind === 'notification') cases.push([item.method, 'params', msg.params ?? {}]);
      else if (item.kind === 'result') cases.push([item.method, 'result', msg.result === null ? {} : msg.result]);
    }
  }
  return cases;
}


const ODD = ['', '_ext', 'unknown_kind', 'text', 'image', 'agent_message_chunk', 'tool_call', 'plan', 'pending', 'completed', 'end_turn', 'x:/not a url', 'https://example.com/a', 'assistant'];

/** `data` with one random change somewhere in it (a copy). */
function mutate(data: unknown, r: () => number): unknown {
  const copy = structuredClone(data);
  const nodes: Array<{ parent: Record<string, unknown> | unknown[]; key: string | number }> = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach((x, i) => (nodes.push({ parent: v, key: i }), walk(x)));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) (nodes.push({ parent: v as Record<string, unknown>, key: k }), walk(x));
  };
  walk(copy);
  if (!nodes.length) return r() < 0.5 ? null : { x: 1 };
  const { parent, key } = nodes[Math.floor(r() * nodes.length)]!;
  const set = (v: unknown) => ((parent as Record<string | number, unknown>)[key] = v);
  const old = (parent as Record<string | number, unknown>)[key];
  switch (Math.floor(r() * 10)) {
    case 0: if (Array.isArray(parent)) parent.splice(key as number, 1); else delete parent[key as string]; break;
    case 1: set(ODD[Math.floor(r() * ODD.length)]); break;
    case 2: set(typeof old === 'number' ? -1 - Math.floor(r() * 5) : Math.floor(r() * 7) - 3); break;
    case 3: set(null); break;
    case 4: set(typeof old === 'string' ? [old] : String(old)); break;
    case 5: set({}); break;
    case 6: set(r() < 0.5 ? true : 1.5); break;
    case 7: if (!Array.isArray(parent)) parent[`extra${Math.floor(r() * 3)}`] = ODD[Math.floor(r() * ODD.length)]; else parent.push(structuredClone(old)); break;
    case 8: set(old && typeof old === 'object' ? (Array.isArray(old) ? { ...old } : Object.values(old)) : { type: ODD[Math.floor(r() * ODD.length)] }); break;
    default: set(mutate(old, r)); break;
  }
  return copy;
}

function compareAll(cases: Case[]): number {
  let n = 0;
  for (const [m, role, data] of cases) {
    const want = JSON.stringify(refValidateMethod(m, role, data));
    const got = JSON.stringify(validateMethod(m, role, data));
    if (got !== want) expect({ m, role, data, got: JSON.parse(got) }).toEqual({ m, role, data, got: JSON.parse(want) });
    n++;
  }
  return n;
}

const recorded = recordedCases();
const methods = [...new Set([...methodDefs(UNSTABLE_SCHEMA).keys()])].map((k) => k.split(' ') as [string, SchemaRole]);

function casesFor(seed: number): Case[] {
  const r = seededRandom(seed);
  const cases: Case[] = [...recorded];
  // Each recorded value against a few other methods' schemas: mostly failures, so error paths and messages are compared.
  for (const [, , data] of recorded) {
    for (let k = 0; k < 3; k++) {
      const [m, role] = methods[Math.floor(r() * methods.length)]!;
      cases.push([m, role, data]);
    }
  }
  // Mutated values, once, twice and three times over (SCHEMA_FUZZ=N for a longer run).
  for (let i = 0; i < Number(process.env.SCHEMA_FUZZ ?? 12_000); i++) {
    const [m, role, data] = recorded[Math.floor(r() * recorded.length)]!;
    let d = data;
    for (let k = 1 + Math.floor(r() * 3); k > 0; k--) d = mutate(d, r);
    cases.push([m, role, d]);
  }
  return cases;
}

describe('schema validators', () => {
  it('has recorded cases of many methods and update kinds', () => {
    expect(recorded.length).toBeGreaterThan(500);
    expect(new Set(recorded.map(([m]) => m)).size).toBeGreaterThan(20);
  });

  it('compiled at run time, they give what the previous validators gave', () => {
    expect(compareAll(casesFor(1))).toBeGreaterThan(10_000);
  });

  it('prebuilt at build time (dist/), they give what the previous validators gave', async () => {
    const mod = (await import(pathToFileURL(join(ROOT, 'dist/src/spec/schema-validators.js')).href)) as { default: PrebuiltFactory };
    installPrebuiltValidators(mod.default);
    expect(compareAll(casesFor(2))).toBeGreaterThan(10_000);
    expect(compareAll(casesFor(3))).toBeGreaterThan(10_000);
  });
});
