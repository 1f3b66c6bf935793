#!/usr/bin/env node
// Builds the Preact UI (ui/) with vite into dist/ui, which the server reads at start.
import { build } from 'vite';
import { fileURLToPath } from 'node:url';

const configFile = fileURLToPath(new URL('../ui/vite.config.ts', import.meta.url));
try {
  await build({ configFile, logLevel: 'warn' });
} catch (e) {
  process.stderr.write(`build-ui: the vite build of ui/ failed: ${e?.message ?? e}\n`);
  process.exit(1);
}
