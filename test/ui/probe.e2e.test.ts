/**
 * A probe run in a real browser: the served UI lists it (one row on the home page) and shows it as a scorecard by tier whose
 * scenarios link to their recordings, and the probe's HTML report opens from file:// with its
 * scorecard and exchanges, making no request at all.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { BROWSER_AVAILABLE, describeBrowser, launchBrowser } from '../browser.js';
import { PEERS, tempDir, endAll } from '../helpers.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { findUiDir } from '../../src/server/static.js';
import { probeAgent } from '../../src/probe/agent/run.js';
import type { ProbeReport } from '../../src/probe/report.js';

let t: ReturnType<typeof tempDir>;
let srv: RunningServer;
let browser: Browser;
let report: ProbeReport;
let html: string;

beforeAll(async () => {
  if (!BROWSER_AVAILABLE) return;
  if (!findUiDir()) throw new Error('the UI is not built (dist/ui): run `npm run build` first');
  t = tempDir('acp-inspect-probe-ui-');
  const db = join(t.dir, 'r.sqlite');
  html = join(t.dir, 'probe.html');
  // The test agent with one defect: it refuses a resource_link block, which every agent must accept.
  ({ report } = await probeAgent({
    command: [process.execPath, join(PEERS, 'probe-agent.mjs')], db, timeoutMs: 10_000, only: ['prompt-resource-link', 'not-json', 'session-fork', 'prompt-image'],
    env: { ...process.env, PROBE_AGENT_DEFECT: 'resource-link-refused' }, outputs: { html },
  }));
  srv = await startServer({ dbPath: db, port: 0 });
  browser = await launchBrowser();
});

afterAll(() => endAll(() => browser?.close(), () => srv?.close(), () => t?.cleanup()));

describeBrowser('probe runs in the UI', () => {
  it('lists the run, shows its scorecard by tier, and opens a scenario\'s recording from it', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(srv.url);
    await page.locator(`tr[data-probe-run="${report.run}"]`).getByRole('link', { name: `probe agent #${report.run}` }).click();
    const card = page.getByRole('main', { name: `Probe run ${report.run}` });
    await card.locator('[data-verdict]').waitFor();
    expect(await card.locator('[data-verdict]').innerText()).toBe('not conformant');
    expect(new URL(page.url()).searchParams.get('probe')).toBe(String(report.run));
    const required = card.getByRole('region', { name: 'Required' });
    const failed = required.locator('tr[data-scenario="prompt-resource-link"]');
    expect(await failed.locator('.probe-st').innerText()).toBe('fail');
    expect(await failed.innerText()).toContain('4.4 rule 3');
    expect(await failed.innerText()).toContain('a prompt with a resource_link got error -32602');
    expect(await required.locator('tr[data-scenario="not-json"] .probe-st').innerText()).toBe('pass');
    // fork is UNSTABLE: its own section; an image refused unadvertised is info (the spec binds the client there).
    expect(await card.getByRole('region', { name: /^Unstable/ }).locator('tr[data-scenario="session-fork"] .probe-st').innerText()).toBe('pass');
    const image = card.getByRole('region', { name: /^Info/ }).locator('tr[data-scenario="prompt-image"]');
    expect(await image.locator('.probe-st').innerText()).toBe('info');
    // The quote's `backticked` words show as code, not as backticks.
    expect(await image.innerText()).toContain('spec: "image, audio and resource blocks are accepted only when');
    expect(await image.locator('code', { hasText: 'resource' }).count()).toBeGreaterThan(0);
    // Ambient findings, once for the run: fork advertised in initialize is an UNSTABLE field.
    expect(await card.getByRole('region', { name: 'Ambient findings' }).locator('tr[data-ambient="unstable-field"]').innerText()).toContain('unstable-field');
    // The scenario's recording: an ordinary recording, named after the run and the scenario.
    const rec = report.scenarios.find((s) => s.id === 'prompt-resource-link')!.recording!;
    await failed.getByRole('link', { name: `#${rec}` }).click();
    await page.getByRole('heading', { name: `probe agent #${report.run}: prompt-resource-link` }).waitFor();
    await page.locator('.row', { hasText: 'session/prompt' }).first().waitFor();
    // Back returns to the scorecard, and so does the recording's link to its run.
    await page.goBack();
    await card.locator('[data-verdict]').waitFor();
    await failed.getByRole('link', { name: `#${rec}` }).click();
    await page.getByRole('link', { name: `scorecard of probe run #${report.run}` }).click();
    await card.locator('[data-verdict]').waitFor();
    await page.close();
  });

  it('the HTML report opens offline: the scorecard and each exchange, with no request', async () => {
    const ctx = await browser.newContext();
    const requests: string[] = [];
    const errors: string[] = [];
    ctx.on('request', (r) => requests.push(r.url()));
    const page = await ctx.newPage();
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(pathToFileURL(html).href);
    expect(await page.locator('.verdict').innerText()).toBe('not conformant');
    expect(await page.locator('td.st.fail').count()).toBe(1);
    await page.getByRole('link', { name: 'prompt-resource-link' }).first().click();
    const section = page.locator('details#prompt-resource-link');
    expect(await section.getAttribute('open')).not.toBeNull();
    expect(await section.innerText()).toContain('resource_link');
    expect(requests.filter((u) => !u.startsWith('file:'))).toEqual([]);
    expect(errors).toEqual([]);
    await ctx.close();
  });
});
