/**
 * Follows a live tap in a real browser: the SDK 1.9.0 example client runs the example agent through
 * the real `acp-inspect -- <agent>` binary (a separate process writing the same SQLite file) while
 * the page is open. The example client waits on stdin for the permission choice, so the test can see
 * the permission request arrive live, answer it, and then see the turn end, all without a reload.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { BROWSER_AVAILABLE, describeBrowser, launchBrowser } from '../browser.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { findUiDir } from '../../src/server/static.js';
import { endAll, removeDir } from '../helpers.js';
import { Store } from '../../src/store/store.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const examples = join(root, 'node_modules', 'acp-sdk-v1-examples', 'dist', 'examples');
let dir: string;
let dbPath: string;
let srv: RunningServer;
let browser: Browser;
let page: Page;
let client: ChildProcess | undefined;
let clientOut = '';

beforeAll(async () => {
  if (!BROWSER_AVAILABLE) return;
  if (!findUiDir()) throw new Error('the UI is not built (dist/ui): run `npm run build` first');
  if (!existsSync(join(root, 'dist', 'src', 'cli', 'main.js'))) throw new Error('the CLI is not built: run `npx tsc -p tsconfig.json` first');
  dir = mkdtempSync(join(tmpdir(), 'acp-inspect-live-'));
  dbPath = join(dir, 'rec.sqlite');
  Store.open(dbPath).close();
  srv = await startServer({ dbPath, port: 0 });
  browser = await launchBrowser();
  page = await (await browser.newContext({ viewport: { width: 1400, height: 820 } })).newPage();
});

afterAll(() => endAll(
  // The client, the tap it started and the tap's agent share the client's process group: all end,
  // even when the test failed before the client's turn did.
  async () => {
    if (!client || client.exitCode !== null || client.signalCode !== null) return;
    const gone = new Promise((r) => client!.once('exit', r));
    try { process.kill(-client.pid!, 'SIGTERM'); } catch { /* gone meanwhile */ }
    const timer = setTimeout(() => { try { process.kill(-client!.pid!, 'SIGKILL'); } catch { /* gone */ } }, 10_000);
    await gone;
    clearTimeout(timer);
  },
  () => browser?.close(),
  () => srv?.close(),
  () => dir && removeDir(dir),
));

describeBrowser('following a live tap', () => {
  it('shows a tapped session as it happens, without a reload', async () => {
    await page.goto(srv.url);
    await page.getByText('No recordings yet.').waitFor();
    // The example client runs `npx tsx agent.ts`; this npx runs the compiled agent through the tap.
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'npx'), `#!/bin/sh\nagent=$(echo "$2" | sed 's/\\.ts$/.js/')\nexec "${process.execPath}" "${join(root, 'bin', 'acp-inspect.js')}" --db "${dbPath}" --name live-tap -- "${process.execPath}" "$agent"\n`);
    chmodSync(join(bin, 'npx'), 0o755);
    client = spawn(process.execPath, [join(examples, 'client.js')], { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` }, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    client.stdout!.on('data', (d: Buffer) => { clientOut += d.toString(); });
    client.stderr!.on('data', (d: Buffer) => { clientOut += d.toString(); });

    // The recordings list picks the new recording up by itself, marked live.
    const link = page.getByRole('link', { name: 'live-tap' });
    await link.waitFor({ timeout: 120_000 });
    await page.locator('tr.running').waitFor();
    await link.click();
    await page.locator('.rec-title .pill.live').waitFor();
    // The agent waits for the user's permission choice: the request shows up while the turn runs.
    const perm = page.locator('.row', { hasText: 'session/request_permission' }).first();
    await perm.waitFor({ timeout: 120_000 });
    expect(await page.locator('.row .c-prev', { hasText: 'stopReason' }).count()).toBe(0);
    client.stdin!.write('1\n');
    // The rest of the turn streams in; the prompt's result with its stop reason arrives live.
    await page.locator('.row .c-prev', { hasText: 'stopReason: end_turn' }).waitFor({ timeout: 120_000 });
    await new Promise<void>((resolve) => { if (client!.exitCode !== null) resolve(); else client!.once('exit', () => resolve()); });
    expect(clientOut).toContain('end_turn');
    // When the tap ends, the recording stops being live on the open page.
    await page.locator('.rec-title .pill.live').waitFor({ state: 'detached', timeout: 120_000 });
    await page.getByRole('tab', { name: 'Turns' }).click();
    await page.getByRole('article').first().locator('.md').waitFor();
    if (process.env.ACP_INSPECT_SHOTS) await page.screenshot({ path: join(process.env.ACP_INSPECT_SHOTS, 'live-tap-turns.png') });
  });
});
