/**
 * A probe matrix in a real browser, over a real store made by `probe agents` on the test agents: the
 * recordings list links it; it shows a column per agent (name, version, verdict, time) and the
 * scenarios grouped by tier, each cell a pass/fail/could-not-run mark opening its scenario's recording
 * in the timeline; it has a URL of its own, and Back returns to it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { BROWSER_AVAILABLE, describeBrowser, launchBrowser } from '../browser.js';
import { PEERS, tempDir, endAll } from '../helpers.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { findUiDir } from '../../src/server/static.js';
import { probeAgents, type Matrix } from '../../src/probe/agents.js';

const AGENT = join(PEERS, 'probe-agent.mjs');
let t: ReturnType<typeof tempDir>;
let srv: RunningServer;
let browser: Browser;
let m: Matrix;

beforeAll(async () => {
  if (!BROWSER_AVAILABLE) return;
  if (!findUiDir()) throw new Error('the UI is not built (dist/ui): run `npm run build` first');
  t = tempDir('acp-inspect-matrix-ui-');
  const db = join(t.dir, 'r.sqlite');
  const config = join(t.dir, 'agents.json');
  writeFileSync(config, JSON.stringify({
    agents: [
      { id: 'clean', command: [process.execPath, AGENT], env: { PROBE_AGENT_STORE: t.dir } },
      // The test agent with one defect: it refuses a resource_link block, which every agent must accept.
      { id: 'refuses-links', command: [process.execPath, AGENT], env: { PROBE_AGENT_DEFECT: 'resource-link-refused', PROBE_AGENT_STORE: t.dir } },
      { id: 'broken', command: [process.execPath, '-e', 'console.error("no key"); process.exit(3)'] },
    ],
  }));
  ({ matrix: m } = await probeAgents({ config, db, timeoutMs: 4000 }));
  srv = await startServer({ dbPath: db, port: 0 });
  browser = await launchBrowser();
});

afterAll(() => endAll(() => browser?.close(), () => srv?.close(), () => t?.cleanup()));

describeBrowser('the probe matrix in the UI', () => {
  it('is linked from the recordings list, shows a column per agent and the scenarios by tier, and opens a cell\'s recording', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(srv.url);
    await page.getByRole('link', { name: 'Probe matrix' }).click();
    const view = page.getByRole('main', { name: `Probe matrix ${m.id}` });
    await view.locator('th[data-agent="clean"] [data-verdict]').waitFor();
    await expect.poll(() => new URL(page.url()).searchParams.get('matrix')).toBe(String(m.id));
    // A column per agent: its id, name and version, verdict and time; one that could not run says why.
    const head = (id: string) => view.locator(`thead th[data-agent="${id}"]`);
    expect(await view.locator('thead th[data-agent]').evaluateAll((els) => els.map((e) => e.getAttribute('data-agent')))).toEqual(['clean', 'refuses-links', 'broken']);
    const clean = m.agents[0]!;
    expect(await head('clean').innerText()).toContain(`${clean.name} ${clean.version}`);
    expect(await head('clean').locator('[data-verdict]').innerText()).toBe('conformant');
    expect(await head('clean').locator('.mx-time').innerText()).toMatch(/\d/);
    expect(await head('refuses-links').locator('[data-verdict]').innerText()).toBe('not conformant');
    expect(await head('broken').locator('[data-verdict]').innerText()).toBe('could not run');
    expect(await head('broken').innerText()).toContain('the agent exited (code 3) before answering initialize: no key');
    // Rows by tier: every scenario of the matrix in its tier's group, fork in the unstable one.
    for (const s of m.scenarios) expect(await view.locator(`tbody[data-tier="${s.tier}"] tr[data-scenario="${s.id}"]`).count()).toBe(1);
    expect(await view.locator('tbody[data-tier="unstable"] tr[data-scenario="session-fork"]').count()).toBe(1);
    expect(await view.locator('tbody[data-tier="required"] th[scope="colgroup"]').innerText()).toBe('Required');
    // The cells: a pass, a fail and a could-not-run mark.
    const row = view.locator('tbody[data-tier="required"] tr[data-scenario="prompt-resource-link"]');
    expect(await row.locator('td[data-agent="clean"]').innerText()).toContain('pass');
    expect(await row.locator('td[data-agent="broken"]').innerText()).toBe('could not run');
    const failed = row.locator('td[data-agent="refuses-links"]');
    expect(await failed.getAttribute('data-status')).toBe('fail');
    expect(await failed.getAttribute('title')).toContain('resource_link got error -32602');
    // The failed cell opens its scenario's recording in the timeline.
    const rec = m.agents[1]!.cells['prompt-resource-link']!.recording!;
    await failed.getByRole('link').click();
    await page.getByRole('heading', { name: `probe agent #${m.agents[1]!.run}: prompt-resource-link` }).waitFor();
    await page.locator('.row', { hasText: 'session/prompt' }).first().waitFor();
    await expect.poll(() => new URL(page.url()).searchParams.get('rec')).toBe(String(rec));
    // Back returns to the matrix; its URL opens it on its own too.
    await page.goBack();
    await view.locator('th[data-agent="clean"] [data-verdict]').waitFor();
    await expect.poll(() => page.getByRole('navigation', { name: 'Breadcrumb' }).innerText()).toContain(`probe matrix #${m.id}`);
    const again = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await again.goto(`${srv.url}${srv.url.includes('?') ? '&' : '?'}matrix=${m.id}`);
    await again.getByRole('main', { name: `Probe matrix ${m.id}` }).locator('th[data-agent="refuses-links"] [data-verdict]').waitFor();
    // A column head leads to that agent's scorecard.
    await again.locator('th[data-agent="refuses-links"]').getByRole('link', { name: `probe run #${m.agents[1]!.run}` }).click();
    await again.getByRole('main', { name: `Probe run ${m.agents[1]!.run}` }).locator('[data-verdict]').waitFor();
    await again.close();
    await page.close();
  });
});
