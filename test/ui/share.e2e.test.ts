/**
 * Sharing a recording, in a real browser: the self-contained report written by `export --html`,
 * opened from file:// (frames, a finding with its spec section, a turn card, no request at all), a
 * hostile recording that runs no script, the report of a session of the SDK's real example peers
 * recorded through the tap, and the static viewer (served as a static host would, and by `serve` at
 * /viewer) whose checker, run in the page, finds what `acp-inspect check --json` finds.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BROWSER_AVAILABLE, describeBrowser, launchBrowser } from '../browser.js';
import { BIN, EXAMPLE_AGENT, ROOT, cli, runExampleClient, sh, tempDir, endAll } from '../helpers.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { readTranscriptFile } from '../../src/source.js';
import { isFrame } from '../../src/wire/frame.js';
import { zedCopy } from '../transcript/zed-copy.js';

const VIEWER = join(ROOT, 'dist', 'viewer');
let browser: Browser;
let tmp: ReturnType<typeof tempDir>;
let staticHost: Server;
let staticUrl: string;

/** A page that records every request it makes, every dialog and every script error. */
async function watchedPage(): Promise<{ ctx: BrowserContext; page: Page; requests: string[]; errors: string[] }> {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const requests: string[] = [];
  const errors: string[] = [];
  ctx.on('request', (r) => requests.push(r.url()));
  const page = await ctx.newPage();
  page.on('dialog', (d) => { errors.push(`dialog: ${d.message()}`); void d.dismiss(); });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  // A Content-Security-Policy violation is reported on the console.
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  return { ctx, page, requests, errors };
}

async function exportHtml(args: string[]): Promise<string> {
  const out = join(tmp.dir, `report-${Math.random().toString(36).slice(2)}.html`);
  const r = await cli(['export', ...args, '--html', '-o', out]);
  expect(r.code, r.stderr).toBe(0);
  return out;
}

/** A transcript whose every text is an attack on the page. */
function hostileTranscript(): string {
  const lines: unknown[] = [{ acpInspect: 'recording', version: 1, name: '<img src="http://127.0.0.1:9/name.png" onerror="window.__pwned=\'name\'">' }];
  let t = 0;
  const frame = (dir: 'c2a' | 'a2c', msg: unknown) => lines.push({ t: (t += 5), dir, raw: JSON.stringify(msg) });
  const md = 'Done. <script>window.__pwned="md"</script> <img src=x onerror="window.__pwned=\'img\'"> ![remote](http://127.0.0.1:9/remote.png) [click me](javascript:window.__pwned="link") \u202Egnp.exe\u202C \x1b[31mred\x1b[0m';
  frame('c2a', { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientInfo: { name: '<script>window.__pwned="client"</script>', version: '1' } } });
  frame('a2c', { jsonrpc: '2.0', id: 0, result: { protocolVersion: 1, agentInfo: { name: '<iframe src="http://127.0.0.1:9/frame">', version: '\u202E1.0' }, agentCapabilities: {} } });
  frame('c2a', { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/w', mcpServers: [] } });
  frame('a2c', { jsonrpc: '2.0', id: 1, result: { sessionId: '<b>s1</b>' } });
  frame('c2a', { jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: '<b>s1</b>', prompt: [{ type: 'text', text: md }, { type: 'image', data: 'AAAA', mimeType: 'image/png', uri: 'http://127.0.0.1:9/prompt.png' }] } });
  frame('a2c', { jsonrpc: '2.0', method: 'session/update', params: { sessionId: '<b>s1</b>', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: md } } } });
  frame('a2c', { jsonrpc: '2.0', method: 'session/update', params: { sessionId: '<b>s1</b>', update: { sessionUpdate: 'tool_call', toolCallId: 'x"><script>window.__pwned="tc"</script>', title: '<svg onload="window.__pwned=\'svg\'">', kind: 'edit', status: 'completed', content: [{ type: 'diff', path: '/w/<a href="javascript:1">a</a>', oldText: '<script>', newText: md }] } } });
  lines.push({ t: (t += 1), dir: 'stderr', raw: '\x1b[2m<script>window.__pwned="stderr"</script>\x1b[0m \u202Ereversed' });
  frame('a2c', { jsonrpc: '2.0', id: 2, result: { stopReason: 'end_turn' } });
  lines.push({ t: (t += 1), dir: 'a2c', raw: '<html><body onload="window.__pwned=\'raw\'">not json</body></html>' });
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

/** Every view of the open recording, so every renderer has seen the hostile text. */
async function visitEverything(page: Page): Promise<void> {
  await page.locator('.row[class*="dir-"]').first().waitFor();
  for (const row of await page.locator('.row[class*="dir-"]').all()) await row.click();
  await page.getByRole('button', { name: 'group by turn' }).click();
  await page.getByRole('tab', { name: 'Turns' }).click();
  await page.waitForTimeout(300);
  for (const b of await page.locator('.turns-view button, details summary').all()) await b.click().catch(() => undefined);
  await page.getByRole('tab', { name: /Findings/ }).click();
  await page.getByRole('tab', { name: 'Insights' }).click();
  await page.getByRole('heading', { name: 'Worth a look first' }).waitFor();
  await page.getByRole('tab', { name: 'Waterfall' }).click();
  await page.locator('.wf-bar').first().waitFor();
  for (const bar of (await page.locator('.wf-bar').all()).slice(0, 40)) await bar.hover().catch(() => undefined);
  await page.getByRole('tab', { name: 'Timeline' }).click();
  await page.waitForTimeout(300);
}

async function expectUnharmed(page: Page, requests: string[], errors: string[], allowed: (u: string) => boolean): Promise<void> {
  expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
  expect(errors).toEqual([]);
  expect(requests.filter((u) => !allowed(u))).toEqual([]);
  // No element the recording could have smuggled in.
  expect(await page.locator('#app img, #app iframe, #app script, #app svg[onload], #app [onerror]').count()).toBe(0);
  expect(await page.locator('#app a[href^="javascript:"]').count()).toBe(0);
  const text = await page.locator('body').innerText();
  expect(text).toContain('<script>');
  // Bidi overrides and ANSI escapes are shown, not obeyed.
  expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u001b]/);
  expect(text).toContain('⟨U+202E⟩');
  expect(text).toContain('␛');
}

beforeAll(async () => {
  if (!BROWSER_AVAILABLE) return;
  if (!existsSync(join(VIEWER, 'index.html')) || !existsSync(join(ROOT, 'dist', 'report', 'report.js'))) {
    throw new Error('the viewer and the report are not built (dist/viewer, dist/report): run `npm run build` first');
  }
  tmp = tempDir('acp-share-');
  browser = await launchBrowser();
  // A static host, as GitHub Pages would serve dist/viewer: files only, no headers of ours.
  staticHost = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(VIEWER, path.endsWith('/') ? `${path}index.html` : path);
    if (!file.startsWith(VIEWER) || !existsSync(file)) { res.writeHead(404).end(); return; }
    const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
    res.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise<void>((r) => staticHost.listen(0, '127.0.0.1', r));
  const addr = staticHost.address() as { port: number };
  staticUrl = `http://127.0.0.1:${addr.port}/`;
});

afterAll(() => endAll(
  () => browser?.close(),
  () => staticHost && new Promise<void>((r) => { staticHost.close(() => r()); staticHost.closeAllConnections(); }),
  () => tmp?.cleanup(),
));

describeBrowser('the self-contained HTML report', () => {
  it('opens from file:// with its frames, findings with their spec section and turn cards, and makes no request', async () => {
    const file = await exportHtml([join(ROOT, 'recordings/golden/cancel-and-turns.jsonl')]);
    const url = pathToFileURL(file).href;
    const { ctx, page, requests, errors } = await watchedPage();
    await page.goto(url);
    await page.locator('.single-note').getByText('credentials redacted').waitFor();
    await page.locator('.row[class*="dir-"]').first().waitFor();
    await expect.poll(() => page.locator('.row[class*="dir-"]').count()).toBeGreaterThan(10);
    await expect.poll(() => page.locator('.row', { hasText: 'initialize' }).count()).toBeGreaterThan(0);
    // A finding with the spec's section and sentence.
    const check = JSON.parse(`[${(await cli(['check', join(ROOT, 'recordings/golden/cancel-and-turns.jsonl'), '--json'])).stdout.toString().trim().split('\n').join(',')}]`) as { rule: string; spec: string; url: string }[];
    expect(check.length).toBeGreaterThan(0);
    await page.getByRole('tab', { name: `Findings (${check.length})` }).click();
    const group = page.locator('.rule-group').first();
    await expect.poll(() => group.innerText()).toContain(`spec ${check[0]!.spec}`);
    // The citation links to the protocol's page, as check --json's url (a link: no request until followed).
    expect(await group.locator('a.spec-link').getAttribute('href')).toBe(check.find((f) => f.rule === (check[0]!.rule))!.url);
    expect(await page.locator('.spec-text').count()).toBeGreaterThan(0);
    // Turn cards in the grouped timeline; the route lives in the fragment.
    await page.getByRole('tab', { name: 'Timeline' }).click();
    await page.getByRole('button', { name: 'group by turn' }).click();
    await page.locator('.turn-card').first().waitFor();
    await expect.poll(() => page.locator('.turn-card').first().innerText()).toMatch(/show its \d+ items?/);
    expect(new URL(page.url()).hash).toContain('group=turns');
    // A filter from the fragment, after a reload.
    await page.goto(`${url}#q=${encodeURIComponent('method:session/prompt')}`);
    await page.reload();
    await page.locator('.row[class*="dir-"]').first().waitFor();
    await expect.poll(() => page.locator('.filterbar .count').innerText()).toMatch(/^[1-9]\d* items?$/);
    for (const r of await page.locator('.row[class*="dir-"]').allInnerTexts()) expect(r).toContain('session/prompt');
    // Keyboard: j moves the selection, the detail pane shows the state after it.
    await page.keyboard.press('j');
    await page.locator('.detail').first().waitFor();
    // The recording saved back as a transcript, made in the page (a blob, not a request).
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'save .jsonl' }).click()]);
    const saved = join(tmp.dir, 'saved.jsonl');
    await download.saveAs(saved);
    const original = readFileSync(join(ROOT, 'recordings/golden/cancel-and-turns.jsonl'), 'utf8').trim().split('\n');
    expect(readFileSync(saved, 'utf8').trim().split('\n').length).toBe(original.length);
    expect((await cli(['check', saved, '--json'])).stdout.toString()).toBe((await cli(['check', join(ROOT, 'recordings/golden/cancel-and-turns.jsonl'), '--json'])).stdout.toString());
    expect(requests.every((u) => u === url || u.startsWith(`${url}#`) || u === pathToFileURL(file).href)).toBe(true);
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it('shows hostile content as text and runs none of it', async () => {
    const src = join(tmp.dir, 'hostile.jsonl');
    writeFileSync(src, hostileTranscript());
    const file = await exportHtml([src]);
    const url = pathToFileURL(file).href;
    const { ctx, page, requests, errors } = await watchedPage();
    await page.goto(url);
    await visitEverything(page);
    await expectUnharmed(page, requests, errors, (u) => u.startsWith(url));
    await ctx.close();
  });

  it('reports a session of the SDK example client and agent recorded through the tap, redacted unless asked', async () => {
    const db = join(tmp.dir, 'peers.sqlite');
    const agentCmd = `${sh(process.execPath)} ${sh(BIN)} --db ${sh(db)} --name sdk-peers -- ${sh(process.execPath)} ${sh(EXAMPLE_AGENT)}`;
    const r = await runExampleClient(agentCmd);
    expect(r.code, r.stderr).toBe(0);
    const file = await exportHtml(['latest', '--db', db]);
    const html = readFileSync(file, 'utf8');
    expect(html).toMatch(/Content-Security-Policy" content="default-src 'none'/);
    const { ctx, page, requests, errors } = await watchedPage();
    const url = pathToFileURL(file).href;
    await page.goto(url);
    await page.getByRole('heading', { name: 'sdk-peers' }).waitFor();
    await page.locator('.row', { hasText: 'session/prompt' }).first().waitFor();
    await expect.poll(() => page.locator('.row[class*="dir-"]').count()).toBeGreaterThan(5);
    await page.locator('.row', { hasText: 'session/prompt' }).first().click();
    await page.locator('.detail').getByRole('tab', { name: /state/i }).click();
    await page.locator('.detail .state-summary').getByText(/turn running/).waitFor();
    await page.getByRole('tab', { name: 'Turns' }).click();
    await page.getByText('end_turn').first().waitFor();
    expect(requests.filter((u) => !u.startsWith(url))).toEqual([]);
    expect(errors).toEqual([]);
    await ctx.close();
    const unredacted = await exportHtml(['latest', '--db', db, '--no-redact']);
    const p2 = await watchedPage();
    await p2.page.goto(pathToFileURL(unredacted).href);
    await p2.page.locator('.single-note').getByText('NOT redacted').waitFor();
    await p2.ctx.close();
  });

  it('says what to do when asked for a recording that does not exist', async () => {
    const r = await cli(['export', join(tmp.dir, 'missing.jsonl'), '--html', '-o', join(tmp.dir, 'x.html')]);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/does not exist/);
  });
});

describeBrowser('the static viewer', () => {
  async function openInViewer(page: Page, base: string, file: string): Promise<{ seq: number; rule: string; severity: string }[]> {
    await page.goto(base);
    await page.getByText('Files never leave your browser').first().waitFor();
    await page.getByLabel('Open a transcript file').setInputFiles(file);
    await page.locator('.row[class*="dir-"]').first().waitFor({ timeout: 120_000 });
    // The rows come first; the checker's findings when it is done.
    await page.waitForFunction(() => (window as unknown as { acpInspectViewer?: unknown }).acpInspectViewer !== undefined, undefined, { timeout: 120_000 });
    return page.evaluate(() => (window as unknown as { acpInspectViewer: { findings: { seq: number; rule: string; severity: string }[] } }).acpInspectViewer.findings);
  }

  it('checks a .jsonl opened with the file input in the browser and finds what `check --json` finds', async () => {
    for (const name of ['recordings/golden/wire-problems.jsonl', 'recordings/golden/rich-sdk-2.4.jsonl', 'recordings/real/claude-agent-acp-tools-cancel.jsonl']) {
      const file = join(ROOT, name);
      const out = (await cli(['check', file, '--json'])).stdout.toString().trim();
      const expected = out ? out.split('\n').map((l) => { const f = JSON.parse(l) as { seq: number; rule: string; severity: string }; return { seq: f.seq, rule: f.rule, severity: f.severity }; }) : [];
      const { ctx, page, requests, errors } = await watchedPage();
      const found = await openInViewer(page, staticUrl, file);
      expect(found, name).toEqual(expected);
      await page.getByRole('tab', { name: `Findings (${expected.length})` }).waitFor();
      expect(requests.filter((u) => !u.startsWith(staticUrl)), name).toEqual([]);
      expect(errors, name).toEqual([]);
      await ctx.close();
    }
    expect(true).toBe(true);
  });

  it('opens an acp-devtools export from the picker (finding what `check --json` finds) and from ?url=, and a pasted copy of Zed\'s ACP log', async () => {
    const file = join(ROOT, 'recordings/foreign/wire-problems.acp-devtools.json');
    const out = (await cli(['check', file, '--json'])).stdout.toString().trim();
    const expected = out.split('\n').map((l) => { const f = JSON.parse(l) as { seq: number; rule: string; severity: string }; return { seq: f.seq, rule: f.rule, severity: f.severity }; });
    const { ctx, page, requests, errors } = await watchedPage();
    expect(await openInViewer(page, staticUrl, file)).toEqual(expected);
    await page.locator('.single-note').getByText('wire-problems.acp-devtools.json').waitFor();
    const capture = `${staticUrl}capture.json`;
    await ctx.route(capture, (route) => route.fulfill({ status: 200, contentType: 'application/json', body: readFileSync(join(ROOT, 'recordings/foreign/sdk-example.acp-devtools.json'), 'utf8') }));
    await page.goto(`${staticUrl}?url=${encodeURIComponent(capture)}`);
    await page.locator('.row[class*="dir-"]').first().waitFor();
    await expect.poll(() => page.locator('.row[class*="dir-"]').count()).toBeGreaterThan(10);
    // A copy of Zed's ACP log, pasted.
    await page.goto(staticUrl);
    await page.getByLabel('Paste a transcript').fill(zedCopy(readTranscriptFile(join(ROOT, 'recordings/sdk-example.jsonl')).items.filter(isFrame)));
    await page.getByRole('button', { name: 'Open pasted text' }).click();
    await page.getByText('capture-note').first().waitFor();
    await expect.poll(() => page.locator('.row[class*="dir-"]').count()).toBeGreaterThan(10);
    expect(requests.filter((u) => !u.startsWith(staticUrl))).toEqual([]);
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it('shows hostile content as text, fetches nothing, and says so', async () => {
    const src = join(tmp.dir, 'hostile-viewer.jsonl');
    writeFileSync(src, hostileTranscript());
    const { ctx, page, requests, errors } = await watchedPage();
    await openInViewer(page, staticUrl, src);
    await visitEverything(page);
    await expectUnharmed(page, requests, errors, (u) => u.startsWith(staticUrl));
    expect(await page.getByText('Files never leave your browser').count()).toBeGreaterThan(0);
    await ctx.close();
  });

  it('opens a transcript from ?url= (the one request it makes), a dropped one and a pasted one', async () => {
    const { ctx, page, requests } = await watchedPage();
    const golden = `${staticUrl}golden.jsonl`;
    await ctx.route(golden, (route) => route.fulfill({ status: 200, contentType: 'application/x-ndjson', body: readFileSync(join(ROOT, 'recordings/golden/cancel-and-turns.jsonl'), 'utf8') }));
    await page.goto(`${staticUrl}?url=${encodeURIComponent(golden)}`);
    await page.locator('.row[class*="dir-"]').first().waitFor();
    expect(requests.filter((u) => u === golden)).toHaveLength(1);
    await page.goto(staticUrl);
    await page.getByLabel('Paste a transcript').fill(readFileSync(join(ROOT, 'recordings/sdk-example.jsonl'), 'utf8'));
    await page.getByRole('button', { name: 'Open pasted text' }).click();
    await page.locator('.row[class*="dir-"]').first().waitFor();
    // Dropped on the page.
    await page.goto(staticUrl);
    await page.getByText('Files never leave your browser').first().waitFor();
    await page.evaluate((text) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], 'dropped.jsonl', { type: 'application/x-ndjson' }));
      document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, readFileSync(join(ROOT, 'recordings/golden/wire-problems.jsonl'), 'utf8'));
    await page.locator('.single-note').getByText('dropped.jsonl').waitFor();
    await page.locator('.row[class*="dir-"]').first().waitFor();
    await page.goto(staticUrl);
    await page.getByLabel('Paste a transcript').fill('{"t":0,"dir":"c2a"}\n');
    await page.getByRole('button', { name: 'Open pasted text' }).click();
    await page.getByRole('alert').filter({ hasText: 'line 1' }).waitFor();
    await ctx.close();
  });

  it('is offered by `acp-inspect serve` at /viewer', async () => {
    const db = tempDir('acp-share-serve-');
    let srv: RunningServer | undefined;
    try {
      srv = await startServer({ dbPath: join(db.dir, 'db.sqlite'), port: 0 });
      const { ctx, page, errors } = await watchedPage();
      await page.goto(srv.url); // sets the session cookie
      const base = `${new URL(srv.url).origin}/viewer/`;
      const found = await openInViewer(page, base, join(ROOT, 'recordings/golden/wire-problems.jsonl'));
      expect(found.length).toBeGreaterThan(3);
      expect(errors).toEqual([]);
      await ctx.close();
    } finally {
      await srv?.close();
      db.cleanup();
    }
  });
});
