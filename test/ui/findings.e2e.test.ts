/**
 * The Findings tab in a real browser (the self-contained report of a recording with many kinds of
 * error): it opens with every error's group open, however many rules fired; warnings and notes
 * fold when there are many kinds of them.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { BROWSER_AVAILABLE, describeBrowser, launchBrowser } from '../browser.js';
import { ROOT, cli, tempDir, endAll } from '../helpers.js';

let t: ReturnType<typeof tempDir>;
let browser: Browser;
let report: string;

beforeAll(async () => {
  if (!BROWSER_AVAILABLE) return;
  t = tempDir('acp-inspect-findings-');
  report = join(t.dir, 'report.html');
  // Seven rules find errors in it, three find warnings.
  const r = await cli(['export', join(ROOT, 'recordings/golden/wire-problems.jsonl'), '--html', '-o', report]);
  expect(r.code, r.stderr.toString()).toBe(0);
  browser = await launchBrowser();
});

afterAll(() => endAll(() => browser?.close(), () => t?.cleanup()));

describeBrowser('the Findings tab', () => {
  it('opens with every error rule open, even when more than six rules found errors', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(pathToFileURL(report).href);
    await page.locator('.rec-tabs').getByRole('tab', { name: /^Findings/ }).click();
    const errors = page.getByRole('region', { name: 'error findings' }).locator('details.rule-group');
    await errors.first().waitFor();
    expect(await errors.count()).toBeGreaterThan(6);
    expect(await errors.evaluateAll((els) => els.filter((d) => !(d as HTMLDetailsElement).open).length)).toBe(0);
    const warnings = page.getByRole('region', { name: 'warning findings' }).locator('details.rule-group');
    expect(await warnings.evaluateAll((els) => els.every((d) => (d as HTMLDetailsElement).open))).toBe(true);
    await page.close();
  });
});
