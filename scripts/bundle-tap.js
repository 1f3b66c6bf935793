#!/usr/bin/env node
/**
 * Bundles the command line's entry (dist/src/cli/main.js) with the tap's start-up path (the tap's
 * modules it imports on demand) into one CommonJS file, dist/src/cli/main.bundle.cjs, which the bin
 * loads. A tap then starts without Node's ES module loader (about 10 ms before the agent could be
 * spawned) and reads one file instead of ten; the tap's modules are evaluated only when the command
 * is a tap (esbuild wraps what is imported on demand). Node's built-ins stay external, and so does
 * what is imported through a variable (the other commands, the recorder). The bundle sits one
 * folder below dist/src as the modules do, so what they find relative to themselves (the native
 * forwarder, the recorder) is found from it too; the bin falls back to the compiled modules when the
 * bundle is missing.
 */
import { fileURLToPath } from 'node:url';
import { bundleForNode } from './bundle.js';

const dir = fileURLToPath(new URL('../dist/src/cli/', import.meta.url));
await bundleForNode('bundle-tap', {
  entryPoints: [`${dir}main.js`],
  outfile: `${dir}main.bundle.cjs`,
  format: 'cjs',
  // What the modules ask of import.meta (their own URL) is the bundle's URL: the same folder depth.
  define: { 'import.meta.url': '__bundleUrl' },
  banner: { js: 'const __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
});
