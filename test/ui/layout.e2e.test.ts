/**
 * The UI holds at 1024, 1440 and 1920 px, in a real browser, in each of its three homes: `serve`,
 * the self-contained HTML report and the static viewer. At each width, on the home page (with a
 * probe run and a long name), a recording with its detail pane open (flat and grouped by turn), its
 * findings, waterfall, turns, insights and notes, a probe scorecard and the viewer's landing: the page never scrolls sideways, no column
 * header is cut or runs into the next, no severity badge is cut, error rows keep their kind, and a
 * turn card ends above the row after it (see layout-checks.ts for how each is measured).
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { BROWSER_AVAILABLE, describeBrowser, launchBrowser } from '../browser.js';
import { PEERS, ROOT, cli, tempDir, endAll } from '../helpers.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { findUiDir } from '../../src/server/static.js';
import { layoutProblems } from './layout-checks.js';

const WIDTHS = [1024, 1440, 1920];
const LONG_NAME = 'a recording whose name is as long as the ones people give to the sessions they want to find again next week (flaky tool call, second try)';

let t: ReturnType<typeof tempDir>;
let srv: RunningServer;
let browser: Browser;
let report: string;
/** The report of a recording with an error and a warning on one frame (#16): two badges in one cell. */
let twoBadges: string;
let pollution: number;
let probeRun: number;

beforeAll(async () => {
  if (!BROWSER_AVAILABLE) return;
  if (!findUiDir()) throw new Error('the UI is not built (dist/ui): run `npm run build` first');
  t = tempDir('acp-inspect-layout-');
  const db = join(t.dir, 'r.sqlite');
  for (const [file, name] of [['recordings/sdk-example.jsonl', LONG_NAME], ['recordings/stdout-pollution.jsonl', 'stdout-pollution']]) {
    const r = await cli(['import', join(ROOT, file!), '--name', name!, '--db', db]);
    expect(r.code, r.stderr.toString()).toBe(0);
  }
  // An agent that gives no agentInfo, probed on scenarios with long ids.
  const probe = await cli(['probe', 'agent', '--db', db, '--json', '--only', 'prompt-embedded-resource,cancel-pending-permission,session-new-missing-fields,unknown-method', '--',
    process.execPath, join(PEERS, 'probe-agent.mjs')], { env: { ...process.env, PROBE_AGENT_ANONYMOUS: '1' } });
  expect(probe.code, probe.stderr.toString()).toBe(0);
  probeRun = (JSON.parse(probe.stdout.toString()) as { run: number }).run;
  const list = JSON.parse((await cli(['list', '--json', '--db', db])).stdout.toString()) as { id: number; name: string }[];
  pollution = list.find((r) => r.name === 'stdout-pollution')!.id;
  expect((await cli(['note', String(pollution), '9', 'the prompt; its answer came 5 s later', '--db', db])).code).toBe(0);
  report = join(t.dir, 'report.html');
  const html = await cli(['export', String(pollution), '--html', '-o', report, '--db', db]);
  expect(html.code, html.stderr.toString()).toBe(0);
  twoBadges = join(t.dir, 'wire-problems.html');
  const wire = await cli(['export', join(ROOT, 'recordings/golden/wire-problems.jsonl'), '--html', '-o', twoBadges]);
  expect(wire.code, wire.stderr.toString()).toBe(0);
  srv = await startServer({ dbPath: db, port: 0 });
  browser = await launchBrowser();
});

afterAll(() => endAll(() => browser?.close(), () => srv?.close(), () => t?.cleanup()));

/**
 * How long a test waits, in all, for its pages to settle (a turn card is drawn before it is measured,
 * a pane fills in after it shows): it guards against a hang, not a time. A page that never settles
 * spends what is left, and the checks after it read their pages once.
 */
const SETTLE_MS = 120_000;
let settleUntil = 0;

/** The problems of the page once it has settled (see SETTLE_MS), prefixed with where they were seen. */
async function check(page: Page, where: string): Promise<string[]> {
  await page.evaluate(() => document.fonts.ready);
  let problems = await page.evaluate(layoutProblems);
  // Measured again each time the page has drawn a new frame, until none is left.
  while (problems.length && Date.now() < settleUntil) {
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    problems = await page.evaluate(layoutProblems);
  }
  if (problems.length) settleUntil = 0;
  return problems.map((p) => `${where}: ${p}`);
}

/** The open recording's error rows keep their kind: shown, whole. */
async function errorKinds(page: Page, where: string): Promise<string[]> {
  const kinds = await page.locator('.row .c-kind.bad').evaluateAll((els) => els.map((el) => {
    const r = el.getBoundingClientRect();
    return { text: el.textContent ?? '', shown: r.width > 0 && getComputedStyle(el).visibility !== 'hidden', cut: el.scrollWidth > el.clientWidth + 1 };
  }));
  if (!kinds.length) return [`${where}: no error row in view`];
  return kinds.filter((k) => !k.shown || k.cut).map((k) => `${where}: the kind "${k.text}" of an error row is ${k.shown ? 'cut' : 'hidden'}`);
}

/** A recording's timeline with the detail pane open on #2 (the line that is not JSON), flat then grouped by turn. */
async function recordingViews(page: Page, where: string, open: () => Promise<void>): Promise<string[]> {
  const problems: string[] = [];
  for (const grouped of [false, true]) {
    await open();
    if (grouped) await page.getByRole('button', { name: 'group by turn' }).click();
    await page.locator('.row', { hasText: 'not JSON' }).first().click();
    await page.locator('.detail').waitFor();
    if (grouped) await page.locator('.turn-card .turn-body').first().waitFor();
    const at = `${where}${grouped ? ', grouped by turn' : ''}`;
    problems.push(...await check(page, at), ...await errorKinds(page, at));
  }
  await page.locator('.rec-tabs').getByRole('tab', { name: /^Findings/ }).click();
  await page.locator('.findings-panel').first().waitFor();
  problems.push(...await check(page, `${where}, findings`));
  return problems;
}

describeBrowser('the layout at 1024, 1440 and 1920 px', () => {
  beforeEach(() => { settleUntil = Date.now() + SETTLE_MS; });

  it('serve: the home page, a recording with its detail pane, its findings, its other views and a probe scorecard', async () => {
    const page = await browser.newPage({ viewport: { width: WIDTHS[0]!, height: 800 } });
    await page.goto(srv.url); // the token becomes a cookie
    const base = new URL(srv.url).origin;
    const problems: string[] = [];
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 800 });
      await page.goto(`${base}/`);
      await page.locator(`tr[data-probe-run="${probeRun}"]`).waitFor();
      problems.push(...await check(page, `home at ${width}`));
      await page.getByRole('button', { name: new RegExp(`^Show the \\d+ recordings of probe run ${probeRun}$`) }).click();
      await page.locator('tr.nested').first().waitFor();
      problems.push(...await check(page, `home with the probe run open at ${width}`));
      problems.push(...await recordingViews(page, `serve at ${width}`, async () => {
        await page.goto(`${base}/?rec=${pollution}`);
        await page.locator('.row[class*="dir-"]').first().waitFor();
      }));
      // The other views of the recording, the detail pane open where they have one.
      for (const [v, ready] of [['waterfall', '.wf-bar'], ['turns', '.turns .turn-body'], ['insights', '#ins-lead'], ['notes', 'li.note']] as const) {
        await page.goto(`${base}/?rec=${pollution}&view=${v}&sel=2`);
        await page.locator(ready).first().waitFor();
        problems.push(...await check(page, `${v} at ${width}`));
      }
      await page.goto(`${base}/?probe=${probeRun}`);
      await page.locator('[data-verdict]').waitFor();
      problems.push(...await check(page, `probe scorecard at ${width}`));
    }
    expect(problems).toEqual([]);
    await page.close();
  });

  it('the HTML report: the recording with its detail pane, grouped, and its findings; a frame with two badges', async () => {
    const page = await browser.newPage({ viewport: { width: WIDTHS[0]!, height: 800 } });
    const problems: string[] = [];
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 800 });
      await page.goto(pathToFileURL(twoBadges).href);
      await page.locator('.row[data-seq="16"]').click();
      await page.locator('.detail').waitFor();
      await expect.poll(() => page.locator('.row[data-seq="16"] .badge').count()).toBe(2);
      problems.push(...await check(page, `report with two badges at ${width}`));
      problems.push(...await recordingViews(page, `report at ${width}`, async () => {
        await page.goto(pathToFileURL(report).href);
        await page.locator('.row[class*="dir-"]').first().waitFor();
      }));
    }
    expect(problems).toEqual([]);
    await page.close();
  });

  it('the static viewer: its landing, and a transcript opened in it', async () => {
    const page = await browser.newPage({ viewport: { width: WIDTHS[0]!, height: 800 } });
    await page.goto(srv.url);
    const viewer = `${new URL(srv.url).origin}/viewer/`;
    const problems: string[] = [];
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 800 });
      await page.goto(viewer);
      await page.getByText('Files never leave your browser').first().waitFor();
      problems.push(...await check(page, `viewer landing at ${width}`));
      // Dressed as the rest of the app: its top bar, a centred column, a drop zone around the file button.
      await page.locator('.topbar .brand').waitFor();
      const column = (await page.getByRole('main', { name: 'Open a transcript' }).boundingBox())!;
      expect(column.width).toBeLessThanOrEqual(800);
      expect(Math.abs(column.x * 2 + column.width - width)).toBeLessThan(20);
      expect(await page.locator('.drop-zone .file-btn').evaluate((el) => getComputedStyle(el).backgroundColor)).not.toBe('rgba(0, 0, 0, 0)');
      problems.push(...await recordingViews(page, `viewer at ${width}`, async () => {
        await page.goto(viewer);
        await page.getByLabel('Open a transcript file').setInputFiles(join(ROOT, 'recordings/stdout-pollution.jsonl'));
        await page.locator('.row[class*="dir-"]').first().waitFor();
      }));
    }
    expect(problems).toEqual([]);
    await page.close();
  });
});
