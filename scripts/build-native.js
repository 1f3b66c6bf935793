#!/usr/bin/env node
/**
 * Builds the tap's native forwarder (native/forward.c) with node-gyp, on `npm install`/`npm ci`.
 * It is optional: where it cannot be built (no compiler, no Node headers, not Linux), this says so
 * in one line and succeeds, and the tap forwards with its JavaScript path instead.
 * Set ACP_INSPECT_NATIVE=0 to skip the build.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIR = join(ROOT, 'native');
const say = (msg) => process.stderr.write(`acp-inspect: ${msg}\n`);
// Why the build failed, for `acp-inspect doctor` (without it, a missing build means npm skipped this script).
const FAILED = join(DIR, 'build-failed.txt');
const failed = (why) => { try { writeFileSync(FAILED, `${why}\n`); } catch { /* read-only install: doctor says less */ } };

function nodeGyp() {
  // npm names its own node-gyp to install scripts; otherwise the one that ships with npm, or PATH's.
  const candidates = [
    process.env.npm_config_node_gyp,
    join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  ].filter(Boolean);
  for (const c of candidates) if (existsSync(c)) return [process.execPath, c];
  return ['node-gyp'];
}

function main() {
  if (process.env.ACP_INSPECT_NATIVE === '0') return;
  if (process.platform !== 'linux') {
    say('native forwarder not built (Linux only); the tap forwards with JavaScript');
    failed('Linux only');
    return;
  }
  const [cmd, ...pre] = nodeGyp();
  // The running Node's own headers when it has them (a Node installed from a package or tarball
  // does, in PREFIX/include/node), so nothing is downloaded; else node-gyp's usual ways.
  const prefix = resolve(dirname(process.execPath), '..');
  const nodedir = process.env.npm_config_nodedir || (existsSync(join(prefix, 'include', 'node', 'node_api.h')) ? prefix : null);
  const r = spawnSync(cmd, [...pre, 'rebuild', '--release', ...(nodedir ? [`--nodedir=${nodedir}`] : [])], { cwd: DIR, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status === 0) {
    rmSync(FAILED, { force: true });
    return;
  }
  rmSync(join(DIR, 'build'), { recursive: true, force: true });
  const why = r.error ? r.error.message : (r.stderr || r.stdout || '').split('\n').find((l) => /error/i.test(l))?.trim() ?? `exit ${r.status}`;
  failed(why);
  say(`native forwarder not built (${why}); the tap forwards with JavaScript, slower. Install a C compiler, make and python3, then run: npm rebuild acp-inspect (in a checkout: npm run build:native)`);
}

main();
