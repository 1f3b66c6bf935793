/**
 * Field names a frame carries that the protocol's published schema does not know (spec 9 rule 6:
 * "other unknown names are reserved for future versions"), and known fields that the schema marks
 * UNSTABLE (9 rule 5). The schema read is the SDK's UNSTABLE one (a superset of the stable one); a
 * field is UNSTABLE when its property carries the schema's UNSTABLE mark (scripts/gen-spec-schema.js
 * keeps it as `x-unstable`). `_meta` and names with a leading `_` are extensions, never reported.
 *
 * Each schema node becomes a Shape (its known names, merged through `$ref`, `allOf` and unions) the
 * first time a frame needs it; a discriminated union contributes the names of the variant the value
 * selects (an unknown variant is left alone: unknown-variant says so). Objects the schema leaves open
 * (`additionalProperties`, or no `properties` at all) are not looked into. Pure, never throws on data.
 */
import { UNSTABLE_SCHEMA } from './schema-data.js';
import { discriminatorOf, methodDefs, type SchemaRole } from './schema-defs.js';

/** One field met on a frame: its path (`params.update.extraThing`, arrays as `[]`) and whether the schema knows it as UNSTABLE. */
export interface FieldNote {
  path: string;
  /** true: a known field marked UNSTABLE; false: a name the schema does not have. */
  unstable: boolean;
}

type Json = Record<string, unknown>;

// Classes with every field set in the constructor: each kind of object keeps one hidden class, so
// the walk's loads stay monomorphic (objects given fields later measured a third slower).

class Prop {
  /** shapeOf(node), once asked for. */
  shape: Shape | undefined = undefined;
  constructor(
    readonly node: unknown,
    readonly unstable: boolean,
  ) {}
}

interface Union {
  field: string;
  variants: Map<string, Shape>;
  /** The branch that applies when the discriminator is absent (stdio MCP server, agent auth method). */
  fallback?: Shape;
}

class Shape {
  props: Map<string, Prop>;
  /** Any name is allowed (`additionalProperties` true or a schema). */
  open = false;
  /** The schema of `additionalProperties` values, when it is one. */
  values: unknown = undefined;
  items: unknown = undefined;
  itemShape: Shape | undefined = undefined;
  valueShape: Shape | undefined = undefined;
  unions: Union[] = [];
  /** The shape merged with the variants a value selects, by the variants' tags. */
  flat: Map<string, Shape> | undefined = undefined;
  /** The same for a shape with one union and no nested one (most): by the variant's shape, no key to build. */
  flat1: Map<Shape, Shape> | undefined = undefined;
  /** The last variant flat1 answered, and its shape (the same tag again costs one comparison). */
  lastTag: string | undefined = undefined;
  lastFlat: Shape | undefined = undefined;
  /** The keys of the last object walked with this shape, in order, and what each is (see walk). */
  seen: string[] = [];
  seenProps: (Prop | undefined)[] = [];

  constructor(props?: Map<string, Prop>) {
    this.props = props ? new Map(props) : new Map();
  }

  /** A copy to merge a variant into: the names, not the caches. */
  static flatOf(s: Shape): Shape {
    const f = new Shape(s.props);
    f.open = s.open;
    f.values = s.values;
    f.items = s.items;
    return f;
  }
}

/** Arrays: items beyond this many are not looked at (paths are the same for every item). */
const MAX_ITEMS = 64;
const MAX_DEPTH = 32;
const UNDERSCORE = 95;

const defs = (UNSTABLE_SCHEMA.$defs ?? {}) as Record<string, Json>;
/** The shape of each method's params and result (null: the schema has none), made on first use. */
let roots: Record<SchemaRole, Map<string, Shape | null>> | undefined;
const shapes = new WeakMap<object, Shape>();
const EMPTY = new Shape();
EMPTY.open = true;

function shapeOf(node: unknown): Shape {
  if (!node || typeof node !== 'object') return EMPTY;
  let s = shapes.get(node);
  if (s) return s;
  s = new Shape();
  shapes.set(node, s); // before filling it: a schema that refers to itself ends here
  fill(s, node as Json);
  return s;
}

function merge(into: Shape, from: Shape): void {
  for (const [k, p] of from.props) if (!into.props.has(k)) into.props.set(k, p);
  if (from.open) into.open = true;
  if (into.values === undefined) into.values = from.values;
  if (into.items === undefined) into.items = from.items;
  for (const u of from.unions) into.unions.push(u);
}

function fill(s: Shape, n: Json): void {
  if (typeof n.$ref === 'string' && n.$ref.startsWith('#/$defs/')) merge(s, shapeOf(defs[n.$ref.slice(8)]));
  const props = n.properties;
  if (props && typeof props === 'object') {
    for (const [k, v] of Object.entries(props as Json)) {
      if (!s.props.has(k)) s.props.set(k, new Prop(v, !!v && (v as Json)['x-unstable'] === true));
    }
  }
  const ap = n.additionalProperties;
  if (ap === true || (ap && typeof ap === 'object')) {
    s.open = true;
    if (ap !== true && Object.keys(ap).length && s.values === undefined) s.values = ap;
  }
  if (n.items && typeof n.items === 'object' && s.items === undefined) s.items = n.items;
  if (Array.isArray(n.allOf)) for (const a of n.allOf) merge(s, shapeOf(a));
  for (const key of ['oneOf', 'anyOf'] as const) {
    const bs = n[key];
    if (!Array.isArray(bs) || bs.length === 0) continue;
    const branches = bs.filter((b): b is Json => !!b && typeof b === 'object');
    const field = discriminatorOf(branches);
    if (field === undefined) {
      // Not discriminated (`T | null`, a string or an array, a result or an error): any branch's names are known.
      for (const b of branches) merge(s, shapeOf(b));
      continue;
    }
    const u: Union = { field, variants: new Map() };
    for (const b of branches) {
      const f = (b.properties as Record<string, Json> | undefined)?.[field];
      if (f && typeof f.const === 'string') u.variants.set(f.const, shapeOf(b));
      else if (!f) u.fallback ??= shapeOf(b);
    }
    s.unions.push(u);
  }
}

/** The tags of the variants `o` selects in `s`'s unions (nested ones too), or null when one is unknown. */
function tags(s: Shape, o: Json): string | null {
  let key = '';
  for (const u of s.unions) {
    const v = o[u.field];
    const b = v === undefined ? u.fallback : typeof v === 'string' ? u.variants.get(v) : undefined;
    if (!b) return null;
    key += v === undefined ? '\u0000' : v;
    if (b.unions.length) {
      const inner = tags(b, o);
      if (inner === null) return null;
      key += `(${inner})`;
    }
    key += '\u0001';
  }
  return key;
}

/** `o[field]`, with the usual fields read by name (a load by a computed key is slower on objects of many kinds). */
function tagOf(o: Json, field: string): unknown {
  return field === 'type' ? o.type : field === 'sessionUpdate' ? o.sessionUpdate : o[field];
}

/** `s` with the names of the variants `o` selects merged in; null when `o` is of an unknown variant. */
function flatFor(s: Shape, o: Json): Shape | null {
  if (s.unions.length === 0) return s;
  if (s.unions.length === 1) {
    const u = s.unions[0]!;
    const v = tagOf(o, u.field);
    if (v === s.lastTag && v !== undefined) return s.lastFlat!;
    const b = v === undefined ? u.fallback : typeof v === 'string' ? u.variants.get(v) : undefined;
    if (!b) return null;
    if (b.unions.length === 0) {
      s.flat1 ??= new Map();
      let f = s.flat1.get(b);
      if (!f) {
        f = Shape.flatOf(s);
        merge(f, b);
        s.flat1.set(b, f);
      }
      s.lastTag = v as string;
      s.lastFlat = f;
      return f;
    }
  }
  const key = tags(s, o);
  if (key === null) return null;
  s.flat ??= new Map();
  let f = s.flat.get(key);
  if (f) return f;
  f = Shape.flatOf(s);
  for (const u of s.unions) {
    const v = o[u.field];
    const b = (v === undefined ? u.fallback : u.variants.get(v as string))!;
    merge(f, flatFor(b, o)!);
  }
  f.unions = [];
  s.flat.set(key, f);
  return f;
}

/**
 * The fields of a method's params or result that the schema does not know, or knows as UNSTABLE, in
 * the order met (each path once). Empty for a method the schema does not describe.
 */
export function fieldNotes(method: string, role: SchemaRole, data: unknown): FieldNote[] {
  if (data === null || typeof data !== 'object') return NONE;
  let root: Shape | null | undefined;
  if (method === last.method && role === last.role) root = last.root;
  else {
    roots ??= { params: new Map(), result: new Map() };
    root = roots[role].get(method);
    if (root === undefined) {
      const def = (names ??= methodDefs(UNSTABLE_SCHEMA)).get(`${method} ${role}`);
      root = def === undefined ? null : shapeOf(defs[def]);
      roots[role].set(method, root);
    }
    last.method = method;
    last.role = role;
    last.root = root;
  }
  if (root === null) return NONE;
  w.out = NONE;
  w.path[0] = role; // (the walk pops what it pushes: the path is this one segment again after it)
  walk(data, root, w, 0);
  const out = w.out;
  w.out = NONE;
  return out;
}

const NONE: FieldNote[] = [];
/** The root shape of the last call's method and role (most frames are of the method before them). */
const last: { method: string; role: SchemaRole; root: Shape | null } = { method: '', role: 'params', root: null };
let names: Map<string, string> | undefined;

interface Walk {
  out: FieldNote[];
  /** Path segments down to the value being walked. */
  path: string[];
}

/** The one walk under way (a walk calls nothing that starts another). */
const w: Walk = { out: NONE, path: [''] };

function note(w: Walk, name: string, unstable: boolean): void {
  let path = '';
  for (const seg of w.path) path += seg.startsWith('[') || path === '' ? seg : `.${seg}`;
  path += `.${name}`;
  if (w.out === NONE) w.out = [];
  for (const x of w.out) if (x.path === path) return;
  w.out.push({ path, unstable });
}

function walk(data: unknown, s: Shape, w: Walk, depth: number): void {
  if (depth > MAX_DEPTH || data === null || typeof data !== 'object') return;
  if (Array.isArray(data)) {
    if (s.items === undefined) return;
    const is = (s.itemShape ??= shapeOf(s.items));
    w.path.push('[]');
    for (let i = 0; i < data.length && i < MAX_ITEMS; i++) walk(data[i], is, w, depth + 1);
    w.path.pop();
    return;
  }
  const o = data as Json;
  const f = flatFor(s, o);
  if (f === null || (f.props.size === 0 && f.open)) return;
  if (f.props.size === 0 && f.values === undefined) return; // an object the schema says nothing about
  // Objects of one kind carry their keys in the same order: the last order seen (`seen`) answers
  // most lookups by comparing the key with the one there (the same string, so one pointer), not by hashing it.
  const seen = f.seen;
  let i = 0;
  for (const k in o) {
    let p: Prop | undefined;
    if (i < seen.length && seen[i] === k) p = f.seenProps[i];
    else {
      p = f.props.get(k);
      seen[i] = k;
      f.seenProps[i] = p;
    }
    i++;
    if (p !== undefined) {
      if (p.unstable) note(w, k, true);
      const v = o[k];
      if (v !== null && typeof v === 'object') {
        w.path.push(k);
        walk(v, (p.shape ??= shapeOf(p.node)), w, depth + 1);
        w.path.pop();
      }
      continue;
    }
    if (k.charCodeAt(0) === UNDERSCORE) continue; // `_meta` and extension names
    if (f.values !== undefined) {
      const v = o[k];
      if (v !== null && typeof v === 'object') {
        w.path.push('*');
        walk(v, (f.valueShape ??= shapeOf(f.values)), w, depth + 1);
        w.path.pop();
      }
      continue;
    }
    if (f.open) continue;
    note(w, k, false);
  }
}
