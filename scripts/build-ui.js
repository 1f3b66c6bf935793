#!/usr/bin/env node
// Builds the Preact UI (ui/) with vite: dist/ui (served by `acp-inspect serve`), dist/viewer (the
// static viewer, for any static host and for `serve` at /viewer) and dist/report (one script and one
// stylesheet that `acp-inspect export --html` inlines into a self-contained page).
import { build } from 'vite';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const common = {
  configFile: false,
  logLevel: 'warn',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  define: { 'process.env.NODE_ENV': '"production"' },
};
try {
  await build({ configFile: here('../ui/vite.config.ts'), logLevel: 'warn' });
  await build({
    ...common,
    root: here('../ui/viewer'),
    base: './',
    publicDir: false,
    worker: { format: 'es' },
    build: {
      outDir: here('../dist/viewer'), emptyOutDir: true, target: 'es2022', sourcemap: false, chunkSizeWarningLimit: 2000,
      rollupOptions: { output: { entryFileNames: 'assets/[name]-[hash].js', chunkFileNames: 'assets/[name]-[hash].js', assetFileNames: 'assets/[name]-[hash][extname]' } },
    },
  });
  await build({
    ...common,
    root: here('../ui'),
    publicDir: false,
    build: {
      outDir: here('../dist/report'), emptyOutDir: true, target: 'es2022', sourcemap: false, minify: true, cssCodeSplit: false,
      lib: { entry: here('../ui/src/report.tsx'), formats: ['iife'], name: 'acpInspectReport', fileName: () => 'report.js', cssFileName: 'report' },
    },
  });
} catch (e) {
  process.stderr.write(`build-ui: the vite build of ui/ failed: ${e?.message ?? e}\n`);
  process.exit(1);
}
