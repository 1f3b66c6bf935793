/**
 * The Compare view in a real browser (Debian's chromium via playwright-core) against the real server:
 * pick two recordings, see them aligned with the divergences highlighted, open a unified diff, move
 * between differences from the keyboard.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { BROWSER_AVAILABLE, describeBrowser, launchBrowser } from '../browser.js';
import { endAll } from '../helpers.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { findUiDir } from '../../src/server/static.js';
import { addBigRecording, addVariantRecording, makeDb } from '../server/fixture.js';

let db: ReturnType<typeof makeDb>;
let variantId: number;
let bigId: number;
let bigVariantId: number;
let srv: RunningServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (!BROWSER_AVAILABLE) return;
  if (!findUiDir()) throw new Error('the UI is not built (dist/ui): run `npm run build` first');
  db = makeDb({ turns: 2 });
  variantId = addVariantRecording(db.dbPath, db.id);
  bigId = addBigRecording(db.dbPath, 3000);
  bigVariantId = addVariantRecording(db.dbPath, bigId, 'big variant');
  srv = await startServer({ dbPath: db.dbPath, port: 0 });
  browser = await launchBrowser();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
});

afterAll(() => endAll(() => browser?.close(), () => srv?.close(), () => db?.cleanup()));

describeBrowser('the Compare view in chromium', () => {
  it('picks two recordings from a recording and shows them aligned with the divergences marked', async () => {
    await page.goto(srv.url);
    await page.getByRole('link', { name: 'fixture session' }).click();
    await page.getByRole('button', { name: 'Compare with…' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('view')).toBe('compare');
    await page.getByLabel('a (first)').selectOption(String(db.id));
    await page.getByLabel('b (second)').selectOption(String(variantId));
    const summary = page.getByRole('status').filter({ hasText: 'Different' });
    await summary.waitFor();
    await expect.poll(() => summary.textContent()).toContain('1 changed · 1 only in a · 1 only in b');
    await expect.poll(() => new URL(page.url()).searchParams.get('b')).toBe(String(variantId));
    const list = page.getByRole('listbox', { name: /Aligned frames/ });
    // The summary and the rows are drawn from one answer, the rows once the list has its height.
    await expect.poll(() => list.locator('.st-changed').count()).toBe(1);
    expect(await list.locator('.st-missing .c-method').textContent()).toMatch(/^invalid line/);
    expect(await list.locator('.st-extra .c-method').textContent()).toBe('update available_commands_update');
    // The session ids differ on every frame, yet those rows are the same.
    await expect.poll(() => list.locator('.st-same').count()).toBeGreaterThan(30);
  });

  it('shows the unified diff of a changed frame, and n/p move between differences', async () => {
    await page.locator('.cmp-row.st-changed').click();
    const pane = page.getByRole('complementary', { name: 'Difference' });
    await pane.getByText('params.prompt[0].text: a "Turn number 2", b "Turn number two"').waitFor();
    await expect.poll(() => pane.locator('.diff-del').textContent()).toContain('"text": "Turn number 2"');
    await expect.poll(() => pane.locator('.diff-add').textContent()).toContain('"text": "Turn number two"');
    await page.locator('.scroller').focus();
    await page.keyboard.press('n');
    await pane.getByText('only in b: notification session/update available_commands_update').waitFor();
    await page.keyboard.press('n');
    await pane.getByText(/only in a: invalid line/).waitFor();
    await page.keyboard.press('p');
    await page.keyboard.press('p');
    await pane.getByText('changed: request session/prompt').waitFor();
    await page.getByLabel('only differences').check();
    await expect.poll(() => page.locator('.cmp-row:not(.head)').count()).toBe(3);
  });

  it('reloads the same comparison from its URL, and compares with an ignored path', async () => {
    await page.goto(`${new URL(srv.url).origin}/?view=compare&a=${db.id}&b=${variantId}`);
    await page.getByRole('status').filter({ hasText: 'Different' }).waitFor();
    await page.getByLabel('Paths to ignore (comma separated)').fill('params.prompt');
    await page.getByLabel('Paths to ignore (comma separated)').press('Enter');
    await expect.poll(() => page.getByRole('status').filter({ hasText: /0 changed/ }).count()).toBe(1);
  });

  it('fetches the rows of a long comparison as they scroll into view, and the row n/p reach far down', async () => {
    await page.goto(`${new URL(srv.url).origin}/?view=compare&a=${bigId}&b=${bigVariantId}`);
    await page.getByRole('status').filter({ hasText: 'Different' }).waitFor();
    const list = page.getByRole('listbox', { name: /Aligned frames/ });
    const rows = async () => Number(/(\d+) rows/.exec((await list.getAttribute('aria-label')) ?? '')?.[1] ?? 0);
    await expect.poll(rows).toBeGreaterThan(2500);
    const total = await rows();
    // The first screen arrives with the summary; rows below it are not fetched yet.
    expect(await list.locator('.cmp-row.pending').count()).toBe(0);
    await list.evaluate((el) => { el.scrollTop = el.scrollHeight; });
    const lastRow = page.locator(`#cmp-${total - 1}`);
    await expect.poll(() => lastRow.locator('.c-method').count()).toBe(1);
    await expect.poll(() => list.locator('.cmp-row.pending').count()).toBe(0);
    // The last divergence, found from the statuses, opens its row once that row's page is there.
    await list.focus();
    await page.keyboard.press('p');
    await page.getByRole('complementary', { name: 'Difference' }).getByRole('heading').filter({ hasText: /^(changed|only in a|only in b): / }).waitFor();
  });
});
