#!/usr/bin/env node
/**
 * Bundles the tap's start-up path (dist/src/tap/run.js and what it imports) into one file,
 * dist/src/tap/run.bundle.js, which `acp-inspect -- <agent>` loads. Node 20 loads each ES module
 * separately, 1–2 ms apiece; one file saves about 10 ms of the tap's start-up (an editor starts the
 * tap for every agent session). Node's built-ins stay external. The bundle sits beside run.js, so
 * what it finds relative to itself (the recorder worker, the native forwarder) is found as before;
 * the entry point falls back to run.js when the bundle is missing.
 */
import { fileURLToPath } from 'node:url';
import { bundleForNode } from './bundle.js';

const dir = fileURLToPath(new URL('../dist/src/tap/', import.meta.url));
await bundleForNode('bundle-tap', { entryPoints: [`${dir}run.js`], outfile: `${dir}run.bundle.js` });
