/**
 * In a real browser: selecting an item far down a large recording shows its detail at once, with a
 * placeholder in the State tab while the server folds the checker's model up to it, then the state.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { BROWSER_AVAILABLE, describeBrowser, launchBrowser } from '../browser.js';
import { endAll } from '../helpers.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { findUiDir } from '../../src/server/static.js';
import { addBigRecording, makeDb } from '../server/fixture.js';

let db: ReturnType<typeof makeDb>;
let srv: RunningServer;
let browser: Browser;
let page: Page;
let bigId: number;
// Large enough that folding the model to its end takes seconds (about 20 µs an item), built in a few.
const N = 150_000;

beforeAll(async () => {
  if (!BROWSER_AVAILABLE) return;
  if (!findUiDir()) throw new Error('the UI is not built (dist/ui): run `npm run build` first');
  db = makeDb({ turns: 1 });
  bigId = addBigRecording(db.dbPath, N);
  srv = await startServer({ dbPath: db.dbPath, port: 0 });
  browser = await launchBrowser();
  page = await (await browser.newContext({ viewport: { width: 1440, height: 860 } })).newPage();
});

afterAll(() => endAll(() => browser?.close(), () => srv?.close(), () => db?.cleanup()));

describeBrowser('the detail pane before the model state is ready', () => {
  it('shows a far item\'s detail while its state is worked out, then the state', async () => {
    await page.goto(srv.url); // the token, kept as a cookie
    await page.goto(`${new URL(srv.url).origin}/?rec=${bigId}`);
    await page.locator('.row[data-seq="1"]').click();
    const detail = page.getByRole('complementary', { name: 'Detail of item 1' });
    await detail.waitFor();
    await detail.getByRole('tab', { name: 'State' }).click();
    await detail.locator('.state-summary').waitFor();

    const far = N - 7;
    const input = page.getByRole('searchbox', { name: 'Filter the timeline' });
    const t0 = Date.now();
    await input.fill(`#${far}`);
    await input.press('Enter');
    const farDetail = page.getByRole('complementary', { name: `Detail of item ${far}` });
    // The frame's facts and the placeholder are there together: the detail did not wait for the state.
    const pending = farDetail.locator('.state-pending');
    await pending.waitFor();
    const detailMs = Date.now() - t0;
    expect(await pending.textContent()).toContain(`Working out the state at #${far}…`);
    expect(await farDetail.locator('dl.facts').textContent()).toContain(String(far));
    await farDetail.getByRole('tab', { name: 'JSON' }).click();
    await expect.poll(() => farDetail.locator('.detail-body').textContent()).toContain('jsonrpc');
    await farDetail.getByRole('tab', { name: 'State' }).click();
    // Then the state arrives in place of the placeholder.
    await farDetail.locator('.state-summary').waitFor({ timeout: 120_000 });
    const stateMs = Date.now() - t0;
    expect(await pending.count()).toBe(0);
    expect(await farDetail.locator('.detail-body').textContent()).toContain('sess-1');
    console.log(`browser, ${N} items: detail of #${far} shown after ${detailMs} ms, its state after ${stateMs} ms`);
    // The state column of the rows around it fills too: the page watches the recording, so the
    // server's fold for the column went on (one fold, shared with the State tab's request).
    await page.waitForFunction((seq) => (document.querySelector(`.row[data-seq="${seq}"] .c-state`)?.textContent ?? '') !== '', far, { timeout: 120_000 });
  });
});
