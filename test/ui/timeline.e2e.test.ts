/**
 * End to end in a real browser: Debian's chromium driven by playwright-core against the real server
 * (startServer) over a real SQLite file. Fails with a clear message when chromium is missing.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { BROWSER_AVAILABLE, describeBrowser, launchBrowser } from '../browser.js';
import { endAll } from '../helpers.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { findUiDir } from '../../src/server/static.js';
import { Store } from '../../src/store/store.js';
import { ItemBuilder, addBigRecording, handshake, makeDb, promptTurn } from '../server/fixture.js';

const SHOTS = process.env.ACP_INSPECT_SHOTS; // a folder to write screenshots to, when set

let db: ReturnType<typeof makeDb>;
let srv: RunningServer;
let browser: Browser;
let page: Page;
let liveId: number;
let bigId: number;
const liveBuilder = new ItemBuilder();

async function shot(name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

beforeAll(async () => {
  if (!BROWSER_AVAILABLE) return;
  if (!findUiDir()) throw new Error('the UI is not built (dist/ui): run `npm run build` first');
  db = makeDb({ turns: 2 });
  // A second recording that is still running (its writer is this test process).
  const store = Store.open(db.dbPath);
  liveId = store.createRecording({ name: 'live session', status: 'running', hostPid: process.pid, command: ['live-agent'] });
  handshake(liveBuilder);
  store.appendItems(liveId, liveBuilder.take());
  store.close();
  bigId = addBigRecording(db.dbPath, 100_000);
  srv = await startServer({ dbPath: db.dbPath, port: 0 });
  browser = await launchBrowser();
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 860 } });
  page = await ctx.newPage();
});

afterAll(() => endAll(() => browser?.close(), () => srv?.close(), () => db?.cleanup()));

describeBrowser('the timeline UI in chromium', () => {
  it('opens with the token, drops it from the URL, and lists recordings with the live one marked', async () => {
    await page.goto(srv.url);
    await page.getByRole('link', { name: 'fixture session' }).waitFor();
    // The page drops the token from its address as it starts.
    await expect.poll(() => page.url()).not.toContain('token=');
    const liveRow = page.locator('tr.running');
    await expect.poll(() => liveRow.count()).toBe(1);
    expect(await liveRow.textContent()).toContain('live');
    await shot('recordings');
  });

  it('imports a .jsonl upload, exports a recording, and deletes one after confirming', async () => {
    const exported = await page.request.get(`${new URL(srv.url).origin}/api/recordings/${db.id}/export`);
    expect(exported.status()).toBe(200);
    await page.getByLabel('Transcript file to import').setInputFiles({ name: 'uploaded.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(await exported.text()) });
    await page.getByRole('status').filter({ hasText: /Imported uploaded\.jsonl as recording \d+/ }).waitFor();
    const row = page.locator('tr', { has: page.getByRole('link', { name: 'uploaded' }) });
    await row.waitFor();
    page.once('dialog', (d) => void d.accept());
    await row.getByRole('button', { name: /Delete recording/ }).click();
    await row.waitFor({ state: 'detached' });
    await page.getByLabel('Transcript file to import').setInputFiles({ name: 'broken.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from('{"not":"a transcript line"}\n') });
    await page.getByRole('status').filter({ hasText: /Import failed: / }).waitFor();
  });

  it('refuses a page opened without the token', async () => {
    const other = await browser.newContext();
    const p = await other.newPage();
    const res = await p.goto(srv.url.replace(/\?token=.*/, ''));
    expect(res?.status()).toBe(401);
    await other.close();
  });

  it('opens a recording and shows its frames and findings', async () => {
    await page.getByRole('link', { name: 'fixture session' }).click();
    await page.locator('.row[data-seq="1"]').waitFor();
    expect(await page.locator('.row[data-seq="1"] .c-method').textContent()).toBe('initialize');
    // The response to initialize links back to its request with a latency.
    await expect.poll(() => page.locator('.row[data-seq="3"] .c-lat').textContent()).toContain('↩1');
    // Finding badges on the error frame and a count in the header.
    await page.locator('.row .badge.sev-error').first().waitFor();
    await expect.poll(() => page.getByRole('tab', { name: /Findings \(2\)/ }).count()).toBe(1);
    expect(await page.locator('.row[data-seq="2"] .c-kind').textContent()).toBe('stderr');
    await shot('timeline');
  });

  it('filters with key:value terms, keeps the filter in the URL, and reports a bad term', async () => {
    const input = page.getByRole('searchbox', { name: 'Filter the timeline' });
    await input.fill('method:session/prompt');
    await input.press('Enter');
    await expect.poll(() => page.locator('.filterbar .count').textContent()).toBe('4 items');
    expect(new URL(page.url()).searchParams.get('q')).toBe('method:session/prompt');
    // The count comes with the filtered timeline, its rows a moment later.
    const methods = async () => new Set(await page.locator('.scroller[data-q="method:session/prompt"] .row[data-seq] .c-method').allTextContents());
    await expect.poll(methods).toEqual(new Set(['session/prompt']));
    await input.fill('dir:sideways');
    await input.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'unknown direction' }).waitFor();
    await input.fill('');
    await input.press('Enter');
    await expect.poll(async () => Number((await page.locator('.filterbar .count').textContent())?.split(' ')[0])).toBeGreaterThan(30);
  });

  it('selects a frame, shows its JSON, its pair and a diff for a patching update, and moves with j/k', async () => {
    await page.locator('.row[data-seq="1"]').click();
    const detail = page.getByRole('complementary', { name: 'Detail of item 1' });
    await detail.waitFor();
    await expect.poll(() => detail.textContent()).toContain('protocolVersion');
    await page.locator('.scroller').focus();
    await page.keyboard.press('j');
    await page.getByRole('complementary', { name: 'Detail of item 2' }).waitFor();
    await page.keyboard.press('j');
    const d3 = page.getByRole('complementary', { name: 'Detail of item 3' });
    await d3.waitFor();
    await d3.getByRole('tab', { name: 'Request' }).click();
    await expect.poll(() => d3.textContent()).toContain('test-editor');
    expect(new URL(page.url()).searchParams.get('sel')).toBe('3');
    // A tool_call_update: the Diff tab shows the entity before and after.
    const input = page.getByRole('searchbox', { name: 'Filter the timeline' });
    await input.fill('"completed" tool_call_update');
    await input.press('Enter');
    // Click a row of the filtered timeline, not one of the timeline it replaces.
    await page.locator('.scroller[data-q=\'"completed" tool_call_update\'] .row[data-seq]').first().click();
    await page.getByRole('tab', { name: 'Diff' }).click();
    await page.locator('.diff-add').first().waitFor();
    expect(await page.locator('.diff-add').first().textContent()).toContain('completed');
    await shot('detail-diff');
    await input.fill('');
    await input.press('Enter');
    await page.locator('.scroller[data-q=""] .row[data-seq="3"]').waitFor();
  });

  it('shows time relative to the start, to the previous item, and to a reference item', async () => {
    await page.getByRole('radio', { name: 'Δ previous' }).click();
    await expect.poll(() => page.locator('.row[data-seq="3"] .c-time').textContent()).toBe('+12ms');
    await page.locator('.row[data-seq="6"] .c-method').click(); // the row's middle may be its ↪ link
    await page.getByRole('button', { name: 'Set reference' }).click();
    expect(new URL(page.url()).searchParams.get('ref')).toBe('6');
    await expect.poll(() => page.locator('.row[data-seq="6"] .c-time').textContent()).toBe('0.00ms');
    expect(await page.locator('.row[data-seq="3"] .c-time').textContent()).toMatch(/^−\d/);
    await page.getByRole('radio', { name: 'relative' }).click();
    await expect.poll(() => page.locator('.row[data-seq="1"] .c-time').textContent()).toBe('0:00.003');
  });

  it('jumps from a finding to its frame', async () => {
    await page.getByRole('tablist', { name: 'Views', exact: true }).getByRole('tab', { name: /Findings/ }).click();
    await page.getByText('set_mode with a mode id that was never advertised').waitFor();
    await shot('findings');
    // Each rule's spec citation links to the protocol's page for that part (set_mode: 4.4 rule 8).
    expect(await page.locator('.findings-panel a.spec-link', { hasText: 'spec 4.4 rule 8' }).getAttribute('href')).toBe('https://agentclientprotocol.com/protocol/session-modes');
    const link = page.locator('.findings-panel button.link').first();
    const seq = Number((await link.textContent())!.replace('#', ''));
    await link.click();
    await page.locator(`.row.selected[data-seq="${seq}"]`).waitFor();
  });

  it('shows turns with the streamed message assembled as Markdown, tool calls with diffs and permission waits', async () => {
    await page.getByRole('tab', { name: 'Turns' }).click();
    const turn = page.getByRole('article').first();
    await turn.getByText('Fix the bug in main.ts').waitFor();
    expect(await turn.locator('.md strong').first().textContent()).toBe('read');
    // The agent's "<script>" is text, never markup.
    expect(await turn.locator('.md').textContent()).toContain('<script>alert(1)</script>');
    expect(await page.locator('.md script').count()).toBe(0);
    expect(await turn.textContent()).toMatch(/selected allow after waiting 1\.50s/);
    expect(await turn.locator('.diff-del').first().textContent()).toContain('const a = 1;');
    await shot('turns');
    // From a turn card to its frames: the timeline grouped by turn, that turn open, its prompt selected.
    await turn.getByRole('button', { name: /^Frames/ }).click();
    await page.locator('.row.selected[data-seq="6"]').waitFor();
    await page.locator('.row[data-seq="8"]').waitFor();
    expect(new URL(page.url()).searchParams.get('group')).toBe('turns');
    await page.getByRole('tab', { name: 'Insights' }).click();
    await page.locator('tr[data-method="session/prompt"]').first().waitFor();
  });

  it('groups the timeline by session and turn: collapsed turns show their summary, expand in place, and keep the filter', async () => {
    await page.goto(`${new URL(srv.url).origin}/?rec=${db.id}`);
    await page.locator('.row[data-seq="1"]').waitFor();
    await page.getByRole('button', { name: 'group by turn' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('group')).toBe('turns');
    await page.locator('.session-row').filter({ hasText: 'sess-1' }).waitFor();
    const heads = page.locator('.turn-row');
    await expect.poll(() => heads.count()).toBe(2);
    expect(await heads.first().textContent()).toContain('Fix the bug in main.ts');
    expect(await heads.first().textContent()).toContain('end_turn');
    // Collapsed: the frames of the turn are not rows; its card tells the story.
    expect(await page.locator('.row[data-seq="8"]').count()).toBe(0);
    const card = page.getByRole('group', { name: 'Summary of the turn at #6' });
    await card.locator('.md strong').first().waitFor();
    expect(await card.locator('.md strong').first().textContent()).toBe('read');
    expect(await card.textContent()).toMatch(/selected allow after waiting 1\.50s/);
    expect(await card.locator('.diff-del').first().textContent()).toContain('const a = 1;');
    // Rows outside turns stay rows; the error at the end keeps its badge.
    await page.locator('.row[data-seq="2"] .c-kind').filter({ hasText: 'stderr' }).waitFor();
    // Keyboard: select the first turn, open it with →, move into it with j, close it with ←.
    await heads.first().click();
    await expect.poll(() => heads.first().getAttribute('aria-selected')).toBe('true');
    await page.locator('.scroller').focus();
    await page.keyboard.press('ArrowRight');
    await page.locator('.row[data-seq="8"]').waitFor();
    await page.keyboard.press('j');
    await page.locator('.row.selected[data-seq="7"]').waitFor();
    await page.keyboard.press('ArrowLeft');
    await page.locator('.row[data-seq="8"]').waitFor({ state: 'detached' });
    await expect.poll(() => heads.first().getAttribute('aria-selected')).toBe('true');
    // j from a collapsed turn jumps over its inside to the next turn.
    await page.keyboard.press('j');
    await expect.poll(() => heads.nth(1).getAttribute('aria-selected')).toBe('true');
    // A filter keeps the grouping: each turn holds only the items that match.
    const input = page.getByRole('searchbox', { name: 'Filter the timeline' });
    await input.fill('method:fs/read_text_file');
    await input.press('Enter');
    await expect.poll(() => heads.first().textContent()).toContain('2 items');
    await page.getByRole('button', { name: 'expand all' }).click();
    await expect.poll(() => page.locator('.scroller .row[data-seq]').count()).toBe(4);
    expect(new Set(await page.locator('.scroller .row[data-seq] .c-method').allTextContents())).toEqual(new Set(['fs/read_text_file']));
    await shot('grouped');
    await input.fill('');
    await input.press('Enter');
    await page.getByRole('button', { name: 'group by turn' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('group')).toBeNull();
    // A link to an item inside a turn (a shared URL, a jump from a finding) opens that turn.
    await page.goto(`${new URL(srv.url).origin}/?rec=${db.id}&group=turns&sel=10`);
    await page.locator('.row.selected[data-seq="10"]').waitFor();
    await expect.poll(() => heads.first().getAttribute('aria-expanded')).toBe('true');
    await expect.poll(() => heads.nth(1).getAttribute('aria-expanded')).toBe('false');
  });

  it('follows a live recording: frames appended to the database appear without a reload', async () => {
    await page.goto(`${new URL(srv.url).origin}/?rec=${liveId}`);
    await page.locator('.row[data-seq="4"]').waitFor();
    // The rows and the recording's header come from two requests: either may be first.
    await page.locator('.rec-title .pill.live').waitFor();
    expect(await page.locator('.rec-title .pill.live').count()).toBe(1);
    const store = Store.open(db.dbPath);
    try {
      promptTurn(liveBuilder, 2, 'Live turn');
      store.appendItems(liveId, liveBuilder.take());
      store.appendFindings(liveId, [{ seq: 6, severity: 'warning', rule: 'live-rule', message: 'a live finding', spec: '6' }]);
    } finally {
      store.close();
    }
    const lastSeq = liveBuilder.seq;
    await page.locator(`.row[data-seq="${lastSeq}"]`).waitFor({ timeout: 120_000 });
    await page.locator('.row[data-seq="6"] .badge.sev-warning').waitFor({ timeout: 120_000 });
    await shot('live');
    // Grouped while live: a turn that starts shows as running, then its stop reason when it ends.
    await page.getByRole('button', { name: 'group by turn' }).click();
    await page.locator('.turn-row').filter({ hasText: 'Live turn' }).waitFor();
    const append = (build: () => void) => {
      const st = Store.open(db.dbPath);
      try { build(); st.appendItems(liveId, liveBuilder.take()); } finally { st.close(); }
    };
    append(() => liveBuilder.frame('c2a', { jsonrpc: '2.0', id: 9, method: 'session/prompt', params: { sessionId: 'sess-1', prompt: [{ type: 'text', text: 'Second live turn' }] } }));
    const head = page.locator('.turn-row').filter({ hasText: 'Second live turn' });
    await head.filter({ hasText: 'running' }).waitFor({ timeout: 120_000 });
    append(() => liveBuilder.frame('a2c', { jsonrpc: '2.0', id: 9, result: { stopReason: 'cancelled' } }));
    await head.filter({ hasText: 'cancelled' }).waitFor({ timeout: 120_000 });
  });

  it('opens a 100,000-item recording with only the rows in view in the page, and reaches its end', async () => {
    const t0 = Date.now();
    await page.goto(`${new URL(srv.url).origin}/?rec=${bigId}`);
    await page.locator('.row[data-seq="1"]').waitFor();
    const firstRowsMs = Date.now() - t0;
    const count = async () => Number(((await page.locator('.filterbar .count').textContent()) ?? '').replace(/\D/g, ''));
    await expect.poll(count).toBeGreaterThanOrEqual(100_000);
    const total = await count();
    expect(await page.locator('.scroller .row').count()).toBeLessThan(200);
    const input = page.getByRole('searchbox', { name: 'Filter the timeline' });
    await input.fill('method:session/request_permission');
    const t2 = Date.now();
    await input.press('Enter');
    await expect.poll(async () => page.locator('.scroller .row .c-method').first().textContent()).toBe('session/request_permission');
    const t3 = Date.now();
    await input.fill('');
    await input.press('Enter');
    await page.locator('.row[data-seq="1"]').waitFor();
    await page.locator('.scroller').focus();
    await page.keyboard.press('G');
    await page.locator(`.row.selected[data-seq="${total}"]`).waitFor();
    expect(await page.locator('.scroller .row').count()).toBeLessThan(200);
    // `#SEQ` in the filter box goes to that item; a filter hiding it is dropped, one showing it is kept.
    await input.fill('#54321');
    await input.press('Enter');
    await page.locator('.row.selected[data-seq="54321"]').waitFor();
    await expect.poll(() => input.inputValue()).toBe('');
    await input.fill('method:session/prompt');
    await input.press('Enter');
    // The filtered timeline's rows, not its placeholders.
    const prompt = Number(await page.locator('.scroller[data-q="method:session/prompt"] .row[data-seq]').nth(3).getAttribute('data-seq'));
    await input.fill('#99999');
    await input.press('Enter');
    await page.locator('.row.selected[data-seq="99999"]').waitFor();
    await expect.poll(() => input.inputValue()).toBe('');
    await input.fill('method:session/prompt');
    await input.press('Enter');
    await page.locator('.scroller[data-q="method:session/prompt"]').waitFor();
    await input.fill(`#${prompt}`);
    await input.press('Enter');
    await page.locator(`.row.selected[data-seq="${prompt}"]`).waitFor();
    await expect.poll(() => input.inputValue()).toBe('method:session/prompt');
    await input.fill('');
    await input.press('Enter');
    await page.locator(`.scroller[data-q=""] .row.selected[data-seq="${prompt}"]`).waitFor();
    console.log(`browser, 100k items: first rows after ${firstRowsMs} ms (page load included); method filter shown after ${t3 - t2} ms (from Enter)`);
    // Grouped by turn, the 100k items stay virtualized: headers and cards in view only.
    await page.getByRole('button', { name: 'group by turn' }).click();
    await page.locator('.turn-row').first().waitFor();
    await page.keyboard.press('g');
    await page.locator('.row.selected[data-seq="1"]').waitFor();
    expect(await page.locator('.scroller .row, .scroller .turn-card').count()).toBeLessThan(200);
    await shot('big');
  });

  it('renders in dark mode', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(bg).toBe('rgb(23, 25, 28)');
    await shot('dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });
});
