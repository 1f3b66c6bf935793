#!/usr/bin/env node
/**
 * Bundles what `acp-inspect check` loads on a large transcript file into one file each, beside the
 * modules as compiled (and the checker alone, which the recorder loads): the checking thread (dist/src/check-run/check-worker.js, the checker with its
 * hundred-odd rule modules) and, on the command's own thread, the file reader (parallel.js) and the
 * config and report (report.js). Node 20 loads each ES module separately; the rule modules alone cost
 * a thread about 10 MB and 60 ms that way, against 3 MB and 10 ms as one file. Node's built-ins stay
 * external, and so does the store (the worker loads it by URL, only for stored recordings). Every
 * loader falls back to the compiled modules when its bundle is missing.
 */
import { fileURLToPath } from 'node:url';
import { bundleForNode } from './bundle.js';

const dir = fileURLToPath(new URL('../dist/src/check-run/', import.meta.url));
await bundleForNode('bundle-check', {
  entryPoints: ['check-worker', 'parallel', 'report'].map((n) => ({ in: `${dir}${n}.js`, out: `${n}.bundle` })),
  outdir: dir,
});
// The checker alone, for the recorder's live checker (src/tap/recorder/live-checker.ts): the tap
// loads it once the session is quiet, and an indexer before its first item.
const check = fileURLToPath(new URL('../dist/src/check/', import.meta.url));
await bundleForNode('bundle-check', { entryPoints: [{ in: `${check}index.js`, out: 'index.bundle' }], outdir: check });
