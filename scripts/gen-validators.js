#!/usr/bin/env node
/**
 * Writes dist/src/spec/schema-validators.js at build time (after tsc): the validator of every
 * method's params and result, stable and UNSTABLE schemas, as ajv's standalone code, made by the
 * same ajv instance, keyword and relaxed schemas as the run-time path (dist/src/spec/schema.js), so
 * `acp-inspect check` need not compile the schemas when it starts (the session/update schema alone
 * takes a few hundred milliseconds to compile). The module imports nothing: its default export takes
 * the function that notes unknown values and returns the validators by `$def` name. Run by
 * `npm run build`; a missing or stale module only means the schemas are compiled at run time.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const standaloneCode = require('ajv/dist/standalone').default;
const ucs2length = require('ajv/dist/runtime/ucs2length').default;
const dist = fileURLToPath(new URL('../dist/src/spec/', import.meta.url));
const schemaJs = await import(pathToFileURL(`${dist}schema.js`).href);
const { STABLE_SCHEMA, UNSTABLE_SCHEMA } = await import(pathToFileURL(`${dist}schema-data.js`).href);

function fail(msg) {
  process.stderr.write(`gen-validators: ${msg}\n`);
  process.exit(1);
}

/** One schema's validators as the body of a function returning them by `$def` name. */
function flavorCode(schema) {
  const ajv = schemaJs.newAjv(true);
  ajv.addSchema(schemaJs.relaxedSchema(schema), 'acp');
  const refs = {};
  for (const def of new Set(schemaJs.methodDefs(schema).values())) {
    if (!/^[A-Za-z_$][\w$]*$/.test(def)) fail(`$def name ${def} is not an identifier`);
    try {
      ajv.getSchema(`acp#/$defs/${def}`); // one that does not compile is left to the run-time path (which gives up on it the same way)
      refs[def] = `acp#/$defs/${def}`;
    } catch { /* not exported */ }
  }
  let code = standaloneCode(ajv, refs);
  code = code.replaceAll('require("ajv/dist/runtime/ucs2length").default', 'ucs2length');
  const other = /require\([^)]*\)/.exec(code);
  if (other) fail(`the generated code needs ${other[0]}, which the module does not provide`);
  return `const exports = {};\n${code}\nreturn exports;`;
}

const formats = Object.entries(schemaJs.FORMATS).map(([k, f]) => `${JSON.stringify(k)}: ${f.toString()}`).join(', ');
const out = `${dist}schema-validators.js`;
writeFileSync(out, `// Generated at build time by scripts/gen-validators.js from the ACP schemas (src/spec/schema-data.ts); do not edit.
/* eslint-disable */
const formats = { ${formats} };
const ucs2length = ${ucs2length.toString()};
export default function makeValidators(note) {
  "use strict";
  return {
    stable: (function () {\n${flavorCode(STABLE_SCHEMA)}\n})(),
    unstable: (function () {\n${flavorCode(UNSTABLE_SCHEMA)}\n})(),
  };
}
`);
