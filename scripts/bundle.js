/**
 * One way of bundling built modules for Node (scripts/bundle-tap.js, scripts/bundle-check.js): ES
 * module output for Node 20, Node's built-ins external; on failure one line and exit 1.
 */
import { build } from 'esbuild';

export async function bundleForNode(name, options) {
  try {
    await build({ bundle: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning', ...options });
  } catch (e) {
    process.stderr.write(`${name}: ${e?.message ?? e}\n`);
    process.exit(1);
  }
}
