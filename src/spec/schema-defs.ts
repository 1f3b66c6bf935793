/**
 * Reading the ACP JSON Schemas as data, without a validator: which `$def` holds a method's params or
 * result, and which field discriminates a union. Shared by the validator (schema.ts) and the field
 * names walker (fields.ts), so that both read the schemas the same way.
 */

export type SchemaRole = 'params' | 'result';

type Json = Record<string, unknown>;

/** `${method} ${role}` → the name of its `$def`, for each method of a schema. */
export function methodDefs(schema: Record<string, unknown>): Map<string, string> {
  const defs = new Map<string, string>();
  const all = (schema.$defs ?? {}) as Record<string, Record<string, unknown>>;
  for (const [name, def] of Object.entries(all)) {
    const method = def['x-method'];
    if (typeof method !== 'string') continue;
    const role: SchemaRole | undefined = name.endsWith('Response') ? 'result' : name.endsWith('Request') || name.endsWith('Notification') ? 'params' : undefined;
    if (!role) continue;
    const key = `${method} ${role}`;
    if (!defs.has(key)) defs.set(key, name);
  }
  return defs;
}

/** The one property whose `const` string tells the branches of a union apart, if there is one. */
export function discriminatorOf(branches: Json[]): string | undefined {
  let field: string | undefined;
  for (const b of branches) {
    const props = b.properties as Record<string, Json> | undefined;
    if (!props) continue;
    for (const [k, p] of Object.entries(props)) {
      if (p && typeof p.const === 'string') {
        if (field !== undefined && field !== k) return undefined;
        field = k;
      }
    }
  }
  return field;
}
