/**
 * Notes and fixtures in a real browser against `acp-inspect serve` over a real SQLite file: a note
 * written in the UI survives a reload and travels in `acp-inspect export`; a note written with the
 * CLI shows in the Notes panel (the live stream brings it); a turn saved as a fixture from its card
 * is a transcript `acp-inspect check` reads, in serve and in the self-contained HTML report.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Locator, Page } from 'playwright-core';
import { BROWSER_AVAILABLE, describeBrowser, launchBrowser } from '../browser.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { findUiDir } from '../../src/server/static.js';
import { cli, tempDir, endAll } from '../helpers.js';
import { parseTranscript } from '../../src/transcript/format.js';

const SAMPLE = 'recordings/sdk-example.jsonl';

let t: ReturnType<typeof tempDir>;
let db: string;
let srv: RunningServer;
let browser: Browser;
let page: Page;
let origin: string;

beforeAll(async () => {
  if (!BROWSER_AVAILABLE) return;
  if (!findUiDir()) throw new Error('the UI is not built (dist/ui): run `npm run build` first');
  t = tempDir('acp-inspect-notes-');
  db = join(t.dir, 'r.sqlite');
  const imp = await cli(['import', SAMPLE, '--db', db]);
  expect(imp.code, imp.stderr).toBe(0);
  srv = await startServer({ dbPath: db, port: 0 });
  origin = new URL(srv.url).origin;
  browser = await launchBrowser();
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 860 }, acceptDownloads: true });
  page = await ctx.newPage();
  await page.goto(srv.url);
});

afterAll(() => endAll(() => browser?.close(), () => srv?.close(), () => t?.cleanup()));

/** Selects item `seq`, presses n, and gives the note box once it is there and has the focus. */
async function noteBoxAfterN(p: Page, seq: number): Promise<Locator> {
  await p.locator(`#row-${seq}`).click();
  await p.keyboard.press('n');
  const box = p.getByRole('textbox', { name: `Write a note on #${seq}` });
  await box.waitFor();
  await expect.poll(() => box.evaluate((el) => el === document.activeElement)).toBe(true);
  return box;
}

/** Clicks "Save as fixture" on the first turn card and gives the downloaded transcript's text. */
async function saveFirstTurn(p: Page): Promise<{ name: string; text: string }> {
  const btn = p.getByRole('button', { name: 'Save as fixture' }).first();
  await btn.waitFor();
  const [dl] = await Promise.all([p.waitForEvent('download'), btn.click()]);
  const file = join(t.dir, `dl-${Date.now()}.jsonl`);
  await dl.saveAs(file);
  return { name: dl.suggestedFilename(), text: readFileSync(file, 'utf8') };
}

/** `acp-inspect check --json` of a transcript text: it must read it (exit 0: no error findings); its findings, one JSON line each. */
async function checkText(text: string): Promise<{ rule: string; severity: string }[]> {
  const file = join(t.dir, `fixture-${Date.now()}.jsonl`);
  writeFileSync(file, text);
  const r = await cli(['check', file, '--json']);
  expect(r.code, `${r.stderr}\n${r.stdout}`).toBe(0);
  return r.stdout.toString().trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { rule: string; severity: string });
}

describeBrowser('notes and fixtures in chromium', () => {
  it('writes a note on the selected item (n), shows it after a reload, in the Notes panel and in the export', async () => {
    await page.goto(`${origin}/?rec=1`);
    const box = await noteBoxAfterN(page, 2);
    await box.fill('initialize took its time here');
    await page.getByRole('button', { name: 'Add note' }).click();
    await page.locator('.item-notes .note-text', { hasText: 'initialize took its time here' }).waitFor();
    await page.locator('#row-2 .note-mark').waitFor();
    expect(await page.locator('.note-mark').count()).toBe(1);

    await page.reload();
    await page.locator('#row-2 .note-mark').waitFor();
    await page.getByRole('tab', { name: 'Notes (1)' }).click();
    await page.locator('.notes-panel .note-text', { hasText: 'initialize took its time here' }).waitFor();

    const ex = await cli(['export', '1', '--db', db]);
    expect(ex.code, ex.stderr).toBe(0);
    const notes = ex.stdout.toString().trim().split('\n').map((l) => JSON.parse(l) as { dir?: string; seq?: number; text?: string }).filter((o) => o.dir === 'note');
    expect(notes).toMatchObject([{ seq: 2, text: 'initialize took its time here' }]);
  });

  it('edits and deletes a note in the detail pane', async () => {
    await page.goto(`${origin}/?rec=1`);
    await page.locator('#row-2').dblclick();
    await page.locator('.item-notes').getByRole('button', { name: 'edit' }).click();
    const box = page.getByRole('textbox', { name: 'Edit note on #2' });
    await box.fill('initialize: edited');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.locator('.item-notes .note-text', { hasText: 'initialize: edited' }).waitFor();
    const added = await cli(['note', '1', '4', 'doomed', '--db', db]);
    expect(added.code, added.stderr).toBe(0);
    await page.locator('#row-4 .note-mark').waitFor();
    await page.goto(`${origin}/?rec=1&sel=4`);
    await page.locator('#row-4.selected').waitFor();
    await page.keyboard.press('Enter');
    await page.locator('.item-notes .note-text', { hasText: 'doomed' }).waitFor();
    await page.locator('.item-notes').getByRole('button', { name: 'delete' }).click();
    await expect.poll(() => page.locator('.item-notes .note-text').count()).toBe(0);
    const list = await cli(['note', 'list', '1', '--db', db, '--json']);
    expect((JSON.parse(list.stdout.toString()) as { seq: number; text: string }[]).map((n) => [n.seq, n.text])).toEqual([[2, 'initialize: edited']]);
  });

  it('shows a note written with the CLI in the open Notes panel, and jumps to its item on a click', async () => {
    await page.goto(`${origin}/?rec=1&view=notes`);
    await page.locator('.notes-panel .note-text').first().waitFor();
    const r = await cli(['note', '1', '6', 'written from the terminal', '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    const item = page.locator('.notes-panel li', { hasText: 'written from the terminal' });
    await item.waitFor({ timeout: 120_000 });
    await item.getByRole('button', { name: '#6' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('sel')).toBe('6');
    await page.locator('.item-notes .note-text', { hasText: 'written from the terminal' }).waitFor();
    await page.getByRole('tab', { name: 'Waterfall' }).click();
    await expect.poll(() => page.locator('.wf-note-mark').count()).toBe(2);
  });

  it('saves a turn as a fixture from its card in serve, and check reads it', async () => {
    await page.goto(`${origin}/?rec=1&view=turns`);
    const { name, text } = await saveFirstTurn(page);
    expect(name).toMatch(/^acp-recording-1-turn-\d+\.jsonl$/);
    const rec = parseTranscript(text);
    expect(rec.items.some((i) => 'method' in i && i.method === 'initialize')).toBe(true);
    expect(rec.items.some((i) => 'method' in i && i.method === 'session/prompt')).toBe(true);
    expect((await checkText(text)).filter((f) => f.severity === 'error')).toEqual([]);
  });

  it('in the HTML report: shows the notes read-only and cuts a fixture in the page that check reads', async () => {
    const report = join(t.dir, 'report.html');
    const ex = await cli(['export', '1', '--db', db, '--html', '-o', report]);
    expect(ex.code, ex.stderr).toBe(0);
    const p = await browser.newPage({ acceptDownloads: true });
    try {
      await p.goto(`${pathToFileURL(report).href}#view=notes`);
      await p.locator('.notes-panel .note-text', { hasText: 'initialize: edited' }).waitFor();
      expect(await p.locator('.notes-panel li').count()).toBe(2);
      await p.getByRole('tab', { name: 'Timeline' }).click();
      await p.locator('#row-2 .note-mark').waitFor();
      await p.locator('#row-2').dblclick();
      await p.locator('.item-notes .note-text', { hasText: 'initialize: edited' }).waitFor();
      expect(await p.locator('.note-form').count()).toBe(0);
      expect(await p.locator('.item-notes').getByRole('button', { name: 'edit' }).count()).toBe(0);
      await p.getByRole('tab', { name: 'Turns' }).click();
      const { name, text } = await saveFirstTurn(p);
      expect(name).toMatch(/turn-\d+\.jsonl$/);
      expect(parseTranscript(text).items.some((i) => 'method' in i && i.method === 'session/prompt')).toBe(true);
      await checkText(text);
    } finally {
      await p.close();
    }
  });

  it('n gives the note box the focus even when the item takes its time to load (a loaded machine)', async () => {
    // The item's detail answers 500 ms late: the box is rendered only then, and takes the focus then.
    // (A page of the first one's context, which holds the server's session.)
    const p = await page.context().newPage();
    try {
      await p.route(/\/api\/recordings\/1\/items\/4(\?|$)/, async (route) => {
        await new Promise((r) => setTimeout(r, 500));
        await route.continue();
      });
      await p.goto(`${origin}/?rec=1`);
      const box = await noteBoxAfterN(p, 4);
      // Typed text goes into the box, not to the timeline's keys.
      await p.keyboard.type('jk');
      expect(await box.inputValue()).toBe('jk');
    } finally {
      await p.close();
    }
  });
});
