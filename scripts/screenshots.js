#!/usr/bin/env node
// `npm run screenshots`: makes the README's and the docs' screenshots from a real recording, so they
// cannot go stale unnoticed. It records a real session through the tap (the demo's: the ACP SDK's
// example client ⇄ acp-inspect ⇄ the SDK's example agent, beside the sample recordings), probes the
// probe tests' agent, writes a note with the CLI, serves the database with the binary and shoots the
// pages in a real Chromium; the console's picture comes from its browser test (ACP_INSPECT_SHOTS) (playwright-core; ACP_INSPECT_CHROMIUM names another binary).
//
//   node scripts/screenshots.js [--out DIR] [--width N]...
//
// --out: where the PNGs go (default docs/); --width: also shoot every view at these widths, as
// NAME-WIDTH.png (to look at a layout, not for the docs). Needs a build (npm run build).
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'acp-inspect.js');
const args = process.argv.slice(2);
const opt = (name) => args.flatMap((a, i) => (a === name && args[i + 1] !== undefined ? [args[i + 1]] : []));
const out = resolve(opt('--out')[0] ?? join(root, 'docs'));
const widths = opt('--width').map(Number).filter((n) => n > 0);
const log = (s) => process.stderr.write(`screenshots: ${s}\n`);
const fail = (s) => { log(s); process.exit(2); };
/** A failure once something runs: thrown, so that the server and the browser are ended first. */
const stop = (s) => { throw new Error(s); };

const CHROMIUM = process.env.ACP_INSPECT_CHROMIUM || ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'].find((p) => existsSync(p));
if (!CHROMIUM) fail("no Chromium found: install Debian's chromium (apt-get install -y chromium) or set ACP_INSPECT_CHROMIUM");
if (!existsSync(join(root, 'dist', 'ui', 'index.html'))) fail('the UI is not built yet; run `npm run build` first');

/** Runs a command to its end in its own process group; resolves with its exit code and stdout. */
function run(cmd, argv, env = process.env, cwd = undefined) {
  return new Promise((res, rej) => {
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], env, cwd, detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', rej);
    child.on('close', (code) => res({ code, stdout, stderr }));
  });
}

const dir = mkdtempSync(join(tmpdir(), 'acp-inspect-shots-'));
const db = join(dir, 'demo.sqlite');
let server = null;
let browser = null;
let failed = null;
try {
  // 1. The demo's database: the sample recordings and a real session recorded live through the tap.
  const demo = await run(process.execPath, [join(root, 'scripts', 'demo.js'), '--once'], { ...process.env, ACP_INSPECT_DEMO_DIR: dir });
  if (demo.code !== 0) stop(`the demo could not record its session (exit ${demo.code}):\n${demo.stderr}`);
  // 2. A probe run of the probe tests' agent (it gives no agentInfo, as many agents do).
  // It runs from the scratch folder as `node probe-agent.mjs`, so no path of this machine is in the pictures.
  copyFileSync(join(root, 'test', 'peers', 'probe-agent.mjs'), join(dir, 'probe-agent.mjs'));
  const probe = await run(process.execPath, [bin, 'probe', 'agent', '--db', db, '--only', 'initialize,prompt-turn,unknown-method,not-json,cancel-mid-turn,session-fork,prompt-image', '--',
    'node', 'probe-agent.mjs'], { ...process.env, PROBE_AGENT_ANONYMOUS: '1' }, dir);
  if (probe.code === 2) stop(`the probe could not run:\n${probe.stderr}`);
  // 3. The recordings to show: the demo's live one, and the sample whose agent logs to stdout (its
  // findings pinned to their frames), with a note on its prompt.
  const list = JSON.parse((await run(process.execPath, [bin, 'list', '--json', '--db', db])).stdout);
  const live = list.find((r) => String(r.name).startsWith('demo:'));
  const rec = list.find((r) => r.name === 'stdout-pollution');
  if (!live || !rec) stop('the demo database lacks its live recording or the stdout-pollution sample');
  const shown = (await run(process.execPath, [bin, 'show', String(rec.id), '--db', db])).stdout;
  const prompt = /^\s*#?(\d+)\b.*session\/prompt/m.exec(shown)?.[1];
  if (prompt) await run(process.execPath, [bin, 'note', String(rec.id), prompt, 'the prompt of this turn: its answer came 5 s later', '--db', db]);
  // 4. The UI, served by the binary.
  server = spawn(process.execPath, [bin, 'serve', '--db', db, '--port', '0'], { stdio: ['ignore', 'pipe', 'ignore'], detached: true });
  const url = await new Promise((res, rej) => {
    let buf = '';
    server.stdout.on('data', (c) => { buf += c; const m = /http:\/\/\S+/.exec(buf); if (m) res(m[0]); });
    server.on('close', (code) => rej(new Error(`serve exited (${code}) before printing its URL`)));
  });
  log(`serving ${new URL(url).origin} (pid ${server.pid}) over ${db}`);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'] });
  const ctx = await browser.newContext({ deviceScaleFactor: 1, colorScheme: 'light' });
  const page = await ctx.newPage();
  await page.goto(url); // the token becomes a cookie
  const base = new URL(url).origin;
  /** The views: name, how to reach it, and the size the docs show it at. */
  const shots = [
    ['screenshot', `/?rec=${rec.id}&group=turns`, 1280, 800, async () => {
      await page.locator('.row.group-head').first().waitFor();
      await page.locator('.row', { hasText: 'invalid' }).first().click();
      await page.locator('.detail').waitFor();
    }],
    ['ui-home', '/', 1280, 640, async () => {
      await page.locator('tr.probe-run').first().waitFor();
      await page.getByRole('button', { name: /^Show the \d+ recordings of probe run/ }).click();
      await page.locator('tr.nested').first().waitFor();
    }],
    ['ui-waterfall', `/?rec=${live.id}&view=waterfall`, 1280, 640, async () => { await page.locator('.wf-bar').first().waitFor(); }],
    ['ui-probe', '/?probe=1', 1280, 600, async () => { await page.locator('[data-verdict]').waitFor(); }],
  ];
  mkdirSync(out, { recursive: true });
  for (const [name, path, w, h, ready] of shots) {
    for (const [width, file] of [[w, `${name}.png`], ...widths.map((x) => [x, `${name}-${x}.png`])]) {
      await page.setViewportSize({ width, height: h });
      await page.goto(`${base}${path}`);
      await ready();
      await page.evaluate(() => document.fonts.ready);
      await page.screenshot({ path: join(out, file) });
      log(`wrote ${join(out, file)}`);
    }
  }
  // 5. The console (docs/console.md): its browser test drives a test agent through a turn (a
  // permission, a read, a write approved, a malformed frame pinned to its finding) and shoots the page.
  const consoleTest = await run(process.execPath, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', 'test/ui/console.e2e.test.ts', '-t', 'drives a test agent'],
    { ...process.env, ACP_INSPECT_SHOTS: out }, root);
  if (consoleTest.code !== 0 || !existsSync(join(out, 'console.png'))) stop(`the console's browser test did not make its picture (exit ${consoleTest.code}):\n${consoleTest.stdout}${consoleTest.stderr}`);
  log(`wrote ${join(out, 'console.png')}`);
} catch (e) {
  failed = e;
} finally {
  await browser?.close();
  if (server && server.exitCode === null) {
    try { process.kill(-server.pid, 'SIGTERM'); } catch { /* already gone */ }
    await new Promise((r) => server.once('close', r));
  }
  rmSync(dir, { recursive: true, force: true });
}
if (failed) fail(`could not make the screenshots: ${failed.message}`);
