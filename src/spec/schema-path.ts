/**
 * Readable paths of JSON pointers, apart from the validator (schema.ts) so that the rules can use
 * them without loading ajv and the schemas (the reading thread of a large check never validates).
 */

/** `/prompt/0/type` → `prompt[0].type` (prefixed). */
export function pointerToPath(pointer: string, prefix: string): string {
  let out = prefix;
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(seg) ? `[${seg}]` : out === '' ? seg : `.${seg}`;
  }
  return out;
}
