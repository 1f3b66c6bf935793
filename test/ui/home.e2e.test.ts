/**
 * The home page and the headers in a real browser, over a store holding recordings of agents that
 * give no agentInfo (as many do) and a probe run: each shows the command that started the agent
 * where a name is shown (the list, the recording's header, the probe's scorecard); a probe run is
 * one row whose scenario recordings open under it, and the probe runs can be hidden.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { BROWSER_AVAILABLE, describeBrowser, launchBrowser } from '../browser.js';
import { PEERS, ROOT, cli, tempDir, endAll } from '../helpers.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { findUiDir } from '../../src/server/static.js';

let t: ReturnType<typeof tempDir>;
let srv: RunningServer;
let browser: Browser;
let sample: number;
let run: number;
let scenarios: number[];
let probeHtml: string;

beforeAll(async () => {
  if (!BROWSER_AVAILABLE) return;
  if (!findUiDir()) throw new Error('the UI is not built (dist/ui): run `npm run build` first');
  t = tempDir('acp-inspect-home-');
  const db = join(t.dir, 'r.sqlite');
  // The SDK's example agent gives no agentInfo and the example client no clientInfo.
  expect((await cli(['import', join(ROOT, 'recordings/sdk-example.jsonl'), '--db', db])).code).toBe(0);
  probeHtml = join(t.dir, 'probe.html');
  const probe = await cli(['probe', 'agent', '--db', db, '--json', '--html', probeHtml, '--only', 'unknown-method,cancel-mid-turn', '--', process.execPath, join(PEERS, 'probe-agent.mjs')],
    { env: { ...process.env, PROBE_AGENT_ANONYMOUS: '1' } });
  expect(probe.code, probe.stderr.toString()).toBe(0);
  run = (JSON.parse(probe.stdout.toString()) as { run: number }).run;
  const list = JSON.parse((await cli(['list', '--json', '--db', db])).stdout.toString()) as { id: number; name: string }[];
  sample = list.find((r) => r.name === 'sdk-example')!.id;
  scenarios = list.filter((r) => r.name.startsWith(`probe agent #${run}: `)).map((r) => r.id);
  expect(scenarios.length).toBeGreaterThanOrEqual(2);
  srv = await startServer({ dbPath: db, port: 0 });
  browser = await launchBrowser();
});

afterAll(() => endAll(() => browser?.close(), () => srv?.close(), () => t?.cleanup()));

describeBrowser('the home page', () => {
  it('names an agent without agentInfo by its command: in the list, the recording\'s header and the probe\'s scorecard', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(srv.url);
    const row = page.locator('tr', { has: page.getByRole('link', { name: 'sdk-example' }) });
    expect(await row.locator('td').nth(2).innerText()).toBe('node agent.js');
    expect(await row.locator('td').nth(2).locator('[title]').getAttribute('title')).toContain('node /home/dev/acp-sdk/examples/agent.js');
    expect(await row.locator('td').nth(3).innerText()).toBe('—'); // nor clientInfo, and the command is not the client's
    await row.getByRole('link', { name: 'sdk-example' }).click();
    await page.getByRole('heading', { name: 'sdk-example' }).waitFor();
    await expect.poll(() => page.locator('.rec-title .muted').first().innerText()).toMatch(/^agent node agent\.js · protocol v1 · /);
    await page.goto(`${new URL(srv.url).origin}/?probe=${run}`);
    await page.getByRole('heading', { name: 'probe agent: node probe-agent.mjs' }).waitFor();
    await page.close();
  });

  it('shows the probe\'s `backticked` words as code, on its scorecard and in its HTML report', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(srv.url);
    await page.goto(`${new URL(srv.url).origin}/?probe=${run}`);
    const row = page.locator('tr[data-scenario="cancel-mid-turn"]');
    await row.waitFor();
    expect(await row.locator('code').allInnerTexts()).toContain('cancelled');
    expect(await row.innerText()).not.toContain('`');
    await page.goto(pathToFileURL(probeHtml).href);
    expect(await page.locator('details#cancel-mid-turn summary code').allInnerTexts()).toContain('cancelled');
    expect(await page.locator('details#cancel-mid-turn summary').innerText()).not.toContain('`');
    await page.close();
  });

  it('shows a probe run as one row, its scenario recordings under it on demand, and hides probe runs when asked', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(srv.url);
    const runRow = page.locator(`tr[data-probe-run="${run}"]`);
    await runRow.waitFor();
    expect(await runRow.innerText()).toContain(`${scenarios.length} recordings`);
    expect(await runRow.locator('td').nth(2).innerText()).toBe('node probe-agent.mjs');
    // Collapsed: one row for the run, none for its scenarios; the other recordings are there.
    const ids = async () => page.locator('tbody tr:not(.probe-run) td:first-child').allInnerTexts();
    expect(await ids()).toEqual([String(sample)]);
    const toggle = runRow.getByRole('button', { name: `Show the ${scenarios.length} recordings of probe run ${run}` });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await toggle.click();
    await page.locator('tr.nested').first().waitFor();
    await expect.poll(ids).toEqual([...scenarios.map(String), String(sample)]);
    await expect.poll(() => page.locator('tr.nested td.name').allInnerTexts()).toContain('unknown-method');
    // The nested row opens its recording.
    await page.locator('tr.nested').getByRole('link', { name: 'unknown-method' }).click();
    await page.getByRole('heading', { name: `probe agent #${run}: unknown-method` }).waitFor();
    await page.goBack();
    // Filtered away: no run row, no scenario, and the choice holds across a reload.
    const filter = page.getByRole('checkbox', { name: /probe runs/ });
    await filter.uncheck();
    // The page took the choice (and kept it) before the reload.
    await page.locator('tr.probe-run').waitFor({ state: 'detached' });
    await page.reload();
    await page.getByRole('link', { name: 'sdk-example' }).waitFor();
    expect(await page.locator('tr.probe-run').count()).toBe(0);
    expect(await ids()).toEqual([String(sample)]);
    await page.getByRole('checkbox', { name: /probe runs/ }).check();
    await runRow.waitFor();
    await page.close();
  });
});
