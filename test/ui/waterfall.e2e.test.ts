/**
 * The waterfall, playback and insights in a real browser, on a recording the SDK's example client
 * and agent made through the real tap: served by `acp-inspect serve`, and the waterfall again in
 * the self-contained HTML report opened from file://.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { BROWSER_AVAILABLE, describeBrowser, launchBrowser } from '../browser.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { findUiDir } from '../../src/server/static.js';
import { BIN, EXAMPLE_AGENT, cli, runExampleClient, sh, tempDir, endAll } from '../helpers.js';
import type { Waterfall } from '../../src/view/waterfall.js';
import type { Insights } from '../../src/view/insights.js';

let t: ReturnType<typeof tempDir>;
let db: string;
let report: string;
let transcript: string;
let srv: RunningServer;
let browser: Browser;
let page: Page;
let wf: Waterfall;
let ins: Insights;

const SHOTS = process.env.ACP_INSPECT_SHOTS; // a folder to write screenshots to, when set

async function shot(p: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await p.screenshot({ path: join(SHOTS, `${name}.png`) });
}

const barLabels = (p: Page) => p.locator('.wf-bar').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));

beforeAll(async () => {
  if (!BROWSER_AVAILABLE) return;
  if (!findUiDir()) throw new Error('the UI is not built (dist/ui): run `npm run build` first');
  t = tempDir('acp-inspect-wf-');
  db = join(t.dir, 'r.sqlite');
  const agentCmd = `${sh(process.execPath)} ${sh(BIN)} --db ${sh(db)} --name sdk-example -- ${sh(process.execPath)} ${sh(EXAMPLE_AGENT)}`;
  const r = await runExampleClient(agentCmd);
  expect(r.stdout.toString()).toContain('end_turn');
  report = join(t.dir, 'report.html');
  const ex = await cli(['export', '1', '--db', db, '--html', '-o', report]);
  expect(ex.code, ex.stderr).toBe(0);
  transcript = join(t.dir, 'sdk-example.jsonl');
  expect((await cli(['export', '1', '--db', db, '-o', transcript])).code).toBe(0);
  // The same session as two releases of a named agent, the second answering session/prompt 5 s later.
  for (const [version, delay] of [['1.6.0', 0], ['1.7.0', 5000]] as const) {
    let late = false;
    const lines = readFileSync(transcript, 'utf8').trim().split('\n').map((l, i) => {
      if (i === 0) return l;
      const o = JSON.parse(l) as { t: number; dir: string; raw?: string };
      const j = (o.dir === 'a2c' ? JSON.parse(o.raw!) : {}) as { result?: { protocolVersion?: number; agentInfo?: unknown; stopReason?: string } };
      if (o.dir === 'a2c' && j.result?.protocolVersion !== undefined) { j.result.agentInfo = { name: 'example-agent', version }; o.raw = JSON.stringify(j); }
      if (o.dir === 'a2c' && j.result?.stopReason !== undefined) late = true;
      if (late) o.t += delay;
      return JSON.stringify(o);
    });
    const file = join(t.dir, `v${version}.jsonl`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    expect((await cli(['import', file, '--db', db, '--name', `example ${version}`])).code).toBe(0);
  }
  srv = await startServer({ dbPath: db, port: 0 });
  browser = await launchBrowser();
  page = await (await browser.newContext({ viewport: { width: 1500, height: 900 } })).newPage();
  await page.goto(srv.url);
  const api = async <T>(path: string) => (await (await page.request.get(`${new URL(srv.url).origin}${path}`)).json()) as T;
  wf = await api<Waterfall>('/api/recordings/1/waterfall');
  ins = await api<Insights>('/api/recordings/1/insights');
});

afterAll(() => endAll(() => browser?.close(), () => srv?.close(), () => t?.cleanup()));

/** The turn, its tool calls and its permission wait, as the bars name them. */
async function expectTurnWithToolsAndPermission(p: Page): Promise<string[]> {
  await p.locator('.wf-bar').first().waitFor();
  const labels = await barLabels(p);
  const turn = labels.find((l) => /^prompt turn “.+” [\d.]+ (ms|s)$/.test(l));
  expect(turn, labels.join('\n')).toBeDefined();
  expect(labels).toContain(labels.find((l) => /^tool call Reading project files [\d.]+ (ms|s)$/.test(l)));
  expect(labels).toContain(labels.find((l) => /^tool call Modifying critical configuration file [\d.]+ (ms|s)$/.test(l)));
  const perm = labels.find((l) => /^permission wait Modifying critical configuration file [\d.]+ (ms|s)$/.test(l));
  expect(perm, labels.join('\n')).toBeDefined();
  // The permission wait is the user's time, inside the tool call inside the turn.
  const permBar = p.getByRole('button', { name: perm! });
  expect(await permBar.getAttribute('class')).toContain('own-user');
  const permSpan = wf.spans.find((s) => s.type === 'permission')!;
  const parents: string[] = [];
  for (let s = permSpan.parent; s !== null; s = wf.spans[s]!.parent) parents.push(wf.spans[s]!.type);
  expect(parents).toEqual(['tool', 'turn', 'session']);
  return labels;
}

describeBrowser('the waterfall, playback and insights in chromium', () => {
  it('draws the turn with its tool calls and the permission wait, coloured by whose time it is', async () => {
    await page.goto(`${srv.url}&rec=1&view=waterfall`);
    const labels = await expectTurnWithToolsAndPermission(page);
    // Every span of this small recording is in view, each with a duration.
    expect(labels.length).toBe(wf.spans.length);
    await shot(page, 'waterfall');
    expect(await page.getByRole('button', { name: /^initialize / }).getAttribute('class')).toContain('own-agent');
    // The turn's row marks the first chunk.
    expect(await page.locator('.wf-session, .wf-turn').locator('.wf-ttfc').count()).toBe(1);
  });

  it('shows name, duration and start on hover, selects the span\'s frame on click, zooms and fits', async () => {
    const tool = page.getByRole('button', { name: /^tool call Reading project files/ });
    await tool.hover();
    const tip = page.getByRole('tooltip');
    await expect.poll(() => tip.textContent()).toMatch(/Reading project files.*\d.*starts at \d+:\d\d\.\d{3}/);
    await shot(page, 'waterfall-hover');
    const span = wf.spans.find((s) => s.label === 'tool call Reading project files')!;
    await tool.click();
    await expect.poll(() => new URL(page.url()).searchParams.get('sel')).toBe(String(span.seq));
    await page.locator('.detail').getByText(String(span.seq), { exact: true }).first().waitFor();
    const width = async () => (await tool.boundingBox())!.width;
    const before = await width();
    await page.locator('.wf').focus();
    await page.keyboard.press('+');
    await page.keyboard.press('+');
    await expect.poll(width).toBeGreaterThan(before * 1.3);
    await page.keyboard.press('0');
    await expect.poll(width).toBeCloseTo(before, 0);
    await page.getByRole('button', { name: /^Fit to prompt turn/ }).click();
    // Fitted, the turn fills the time axis but for a small margin each side, whatever share of the
    // recording it took before (on a loaded machine the turn can be nearly all of it, so the bars
    // need not grow).
    const turnBar = page.getByRole('button', { name: /^prompt turn “/ }).first();
    const share = async () => (await turnBar.boundingBox())!.width / (await page.locator('.wf-ruler').boundingBox())!.width;
    await expect.poll(share).toBeGreaterThan(0.85);
    expect(await share()).toBeLessThanOrEqual(1.001);
    // j moves to the next span (the row after the tool call), selecting its first frame.
    await page.locator('.wf').focus();
    await page.keyboard.press('j');
    const next = wf.spans[span.id + 1]!;
    await expect.poll(() => new URL(page.url()).searchParams.get('sel')).toBe(String(next.seq));
    await expect.poll(() => page.getByRole('button', { name: new RegExp(`^${next.label}`) }).getAttribute('aria-pressed')).toBe('true');
  });

  it('plays back: stepping and playing move the selection and the playhead in the URL', async () => {
    await page.goto(`${srv.url}&rec=1&view=waterfall&sel=1`);
    await page.locator('.wf-bar').first().waitFor();
    await page.getByRole('button', { name: 'Step forward one item' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('at')).toBe(String(wf.frames.seq[1]));
    await expect.poll(() => new URL(page.url()).searchParams.get('sel')).toBe(String(wf.frames.seq[1]));
    await page.getByRole('button', { name: 'Step forward one item' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('sel')).toBe(String(wf.frames.seq[2]));
    await page.getByLabel('Playback speed').selectOption('100');
    await page.getByRole('button', { name: 'Play' }).click();
    // It plays to the end at 100× and stops; the selection followed it.
    const last = wf.frames.seq[wf.frames.seq.length - 1]!;
    await expect.poll(() => new URL(page.url()).searchParams.get('sel'), { timeout: 120_000 }).toBe(String(last));
    await expect.poll(() => new URL(page.url()).searchParams.get('at')).toBe(String(last));
    await page.getByRole('button', { name: 'Play' }).waitFor();
    // The turn card beside the waterfall shows the turn as it stood at the playhead.
    const turn = wf.spans.find((s) => s.type === 'turn')!;
    await page.goto(`${srv.url}&rec=1&view=waterfall&sel=${turn.seq + 1}&at=${turn.seq + 1}`);
    await page.locator('.playhead-turn').getByText(`running at #${turn.seq + 1}`).waitFor();
    await shot(page, 'waterfall-playhead');
    // The playhead in the URL survives a reload, and the timeline follows a step.
    await page.goto(`${srv.url}&rec=1&sel=${turn.seq}&at=${turn.seq}`);
    await page.locator('.row.selected').waitFor();
    await page.getByRole('button', { name: 'Step forward one item' }).click();
    await expect.poll(() => page.locator('.row.selected').getAttribute('id')).toBe(`row-${turn.seq + 1}`);
  });

  it('shows the insights with the computed numbers', async () => {
    await page.goto(`${srv.url}&rec=1&view=insights`);
    await page.getByRole('heading', { name: 'Worth a look first' }).waitFor();
    await shot(page, 'insights');
    const prompt = ins.methods.find((m) => m.method === 'session/prompt')!;
    const row = page.locator('tr[data-method="session/prompt"]').first();
    await row.waitFor();
    const cells = await row.locator('td').allTextContents();
    expect(cells[2]).toBe(String(prompt.requests));
    expect(cells[3]).toBe(String(prompt.answered));
    expect(await row.getByRole('img').getAttribute('aria-label')).toMatch(/latency histogram: /);
    const turn = ins.turns[0]!;
    expect(turn.ttfcMs).not.toBeNull();
    const trow = page.locator(`tr[data-turn="${turn.seq}"]`);
    expect(await trow.getByRole('img').getAttribute('aria-label')).toMatch(/^agent .+, editor .+, user .+$/);
    expect(ins.permissions.length).toBe(1);
    await expect.poll(() => page.locator('.perm-list li').count()).toBe(ins.permissions.length);
    await expect.poll(() => page.locator('tr[data-kind]').count()).toBe(ins.tools.length);
    // An automatic insight links to its frames.
    const first = ins.insights[0]!;
    await page.locator('.insight').first().getByText(first.title).waitFor();
    await page.locator('.insight').first().getByRole('button', { name: `#${first.seqs[0]}` }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('sel')).toBe(String(first.seqs[0]));
  });

  it('compares agent versions across the recordings list', async () => {
    await page.goto(srv.url);
    await page.getByText('Compare agents and versions across recordings').click();
    const table = page.getByRole('region', { name: 'Agent example-agent' });
    await table.waitFor();
    expect(await table.getByRole('columnheader').allTextContents()).toEqual(['per version', '1.6.0', '1.7.0']);
    const prompt = table.locator('tr[data-method="session/prompt"] td');
    await prompt.first().waitFor();
    const [v16, v17] = await prompt.allTextContents();
    const p50 = (s: string) => Number(/^([\d.]+)s/.exec(s)![1]);
    expect(p50(v17!) - p50(v16!)).toBeCloseTo(5, 0);
    // The slower release is the one marked.
    expect(await prompt.nth(1).getAttribute('class')).toContain('warn');
    expect(await prompt.nth(0).getAttribute('class')).not.toContain('warn');
  });

  it('draws the same waterfall and insights in the static viewer', async () => {
    const p = await (await browser.newContext({ viewport: { width: 1500, height: 900 } })).newPage();
    await p.goto(srv.url);
    await p.goto(`${new URL(srv.url).origin}/viewer/`);
    await p.getByLabel('Open a transcript file').setInputFiles(transcript);
    await p.locator('.row').first().waitFor({ timeout: 120_000 });
    await p.getByRole('tab', { name: 'Waterfall' }).click();
    const labels = await expectTurnWithToolsAndPermission(p);
    // Beside the recording the transcript was imported as (#2, "example 1.6.0": the same times): the
    // transcript keeps times to the microsecond and the store more, so #1's durations can round to
    // another last digit (a soak run found one label apart).
    await page.goto(`${srv.url}&rec=2&view=waterfall`);
    // Polled, not read once: the first bar drawn is no sign that every bar is; a difference that
    // stays still fails after the poll's timeout.
    await expect.poll(() => barLabels(page)).toEqual(labels);
    await p.getByRole('tab', { name: 'Insights' }).click();
    await p.locator(`tr[data-turn="${ins.turns[0]!.seq}"]`).waitFor();
    await p.close();
  });

  it('draws the same waterfall in the HTML report opened from file://', async () => {
    const p = await (await browser.newContext({ viewport: { width: 1500, height: 900 } })).newPage();
    await p.goto(`${pathToFileURL(report).href}#view=waterfall`);
    const labels = await expectTurnWithToolsAndPermission(p);
    await page.goto(`${srv.url}&rec=1&view=waterfall`);
    // Polled, not read once: the first bar drawn is no sign that every bar is.
    await expect.poll(() => barLabels(page)).toEqual(labels);
    await p.getByRole('button', { name: /^tool call Reading project files/ }).click();
    await expect.poll(() => new URLSearchParams(new URL(p.url()).hash.slice(1)).get('sel')).not.toBeNull();
    await p.close();
  });
});
