/**
 * A remote agent's recording in a real browser: the SDK's stdio client drives the tap's bridge to
 * the SDK's own server (over Streamable HTTP, then over WebSocket), `acp-inspect serve` serves the
 * real SQLite file, and chromium shows the timeline's transport column and the waterfall's split of
 * a POSTed request into network time and agent time. A stdio recording (the same frames without
 * their transport) shows neither.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { BROWSER_AVAILABLE, describeBrowser, launchBrowser } from '../browser.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { findUiDir } from '../../src/server/static.js';
import { cli, tempDir, endAll } from '../helpers.js';
import { parseTranscript } from '../../src/transcript/format.js';
import type { EventItem, Frame, Item } from '../../src/wire/frame.js';
import type { Waterfall } from '../../src/view/waterfall.js';
import { initialize, newSession, prompt, startRemoteAgent, throughBridge, type RemoteAgent } from '../remote/helpers.js';

let t: ReturnType<typeof tempDir>;
let db: string;
let agent: RemoteAgent;
let srv: RunningServer;
let browser: Browser;
let page: Page;
/** The recordings' items (1: over HTTP, 2: over WebSocket), as `export` gives them. */
const items: Record<number, Item[]> = {};
const sessions: Record<number, string> = {};

const SHOTS = process.env.ACP_INSPECT_SHOTS; // a folder to write screenshots to, when set

async function shot(p: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await p.screenshot({ path: join(SHOTS, `${name}.png`) });
}

async function exported(id: number): Promise<string> {
  const r = await cli(['export', String(id), '--db', db, '--no-redact']);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.toString();
}

beforeAll(async () => {
  if (!BROWSER_AVAILABLE) return;
  if (!findUiDir()) throw new Error('the UI is not built (dist/ui): run `npm run build` first');
  t = tempDir('acp-inspect-remote-ui-');
  db = join(t.dir, 'r.sqlite');
  agent = await startRemoteAgent(t.dir);
  for (const [id, url] of [[1, agent.url], [2, agent.url.replace(/^http/, 'ws')]] as const) {
    const run = await throughBridge(db, url, async (ctx) => {
      await initialize(ctx);
      const s = await newSession(ctx);
      sessions[id] = s.sessionId;
      // A turn that asks the editor's permission: it ends only after a round trip of its own, well
      // after the agent got its POST (whose status the waterfall's split needs before the turn's end).
      return (await prompt(ctx, s.sessionId, 'permission')).stopReason;
    });
    expect(run.error, run.stderr).toBeUndefined();
    expect(run.result).toBe('end_turn');
    items[id] = parseTranscript(await exported(id)).items;
  }
  // The HTTP recording's frames alone, imported: a recording with no transport, as a stdio one.
  const lines = (await exported(1)).trim().split('\n').filter((l, i) => i === 0 || (JSON.parse(l) as { type?: string }).type !== 'transport');
  const file = join(t.dir, 'frames-only.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  const imp = await cli(['import', file, '--db', db, '--name', 'frames only']);
  expect(imp.code, imp.stderr).toBe(0);
  expect(readFileSync(file, 'utf8')).not.toContain('"transport"');
  srv = await startServer({ dbPath: db, port: 0 });
  browser = await launchBrowser();
  page = await (await browser.newContext({ viewport: { width: 1600, height: 1400 } })).newPage();
});

afterAll(() => endAll(() => browser?.close(), () => srv?.close(), () => agent?.stop(), () => t?.cleanup()));

const frameOf = (id: number, dir: 'c2a' | 'a2c', pred: (f: Frame) => boolean): Frame => {
  const f = items[id]!.find((i): i is Frame => i.dir === dir && pred(i as Frame));
  expect(f, `recording ${id} has the ${dir} frame`).toBeDefined();
  return f!;
};

/** The transport cell of the row of `seq`, once the row is drawn (selecting it scrolls it into view). */
async function cell(id: number, seq: number): Promise<string> {
  await page.goto(`${srv.url}&rec=${id}&sel=${seq}`);
  const c = page.locator(`#row-${seq} .c-tr`);
  await c.waitFor({ state: 'attached' });
  return (await c.textContent()) ?? '';
}

describeBrowser('a remote recording in chromium', () => {
  it('the timeline shows each frame\'s POST and status, the SSE stream it came on, with the session', async () => {
    const sid = sessions[1]!;
    const init = frameOf(1, 'c2a', (f) => f.method === 'initialize');
    expect(await cell(1, init.seq)).toBe('POST 200');
    await expect.poll(() => page.locator('.row.head .c-tr').textContent()).toBe('transport');
    const promptReq = frameOf(1, 'c2a', (f) => f.method === 'session/prompt');
    expect(await cell(1, promptReq.seq)).toBe(`POST 202 · session ${sid}`);
    const update = frameOf(1, 'a2c', (f) => f.method === 'session/update');
    expect(await cell(1, update.seq)).toBe(`SSE · session ${sid}`);
    // The turn's answer came on the stream its SSE event names (recorded ahead of it, with others between).
    const answer = frameOf(1, 'a2c', (f) => f.replyTo === promptReq.seq);
    const ev = items[1]!.find((i): i is EventItem => i.dir === 'event' && i.seq < answer.seq
      && (i.data as { op?: string; rpc?: { id?: unknown; kind?: string } }).op === 'sse-message' && (i.data as { rpc: { id?: unknown; kind?: string } }).rpc.kind === 'response'
      && (i.data as { rpc: { id?: unknown } }).rpc.id === answer.id);
    expect(ev, 'the SSE event of the answer').toBeDefined();
    // The session's answer to session/new came on the connection's stream.
    const created = frameOf(1, 'a2c', (f) => f.method === 'session/new' && f.replyTo !== undefined);
    expect(await cell(1, created.seq)).toBe('SSE · connection');
    const stream = (ev!.data as { stream: string }).stream;
    expect(await cell(1, answer.seq)).toBe(stream === 'session' ? `SSE · session ${sid}` : `SSE · ${stream}`);
    await shot(page, 'remote-timeline');
  });

  it('a WebSocket recording shows WS on every frame', async () => {
    const frames = items[2]!.filter((i): i is Frame => i.dir === 'c2a' || i.dir === 'a2c');
    expect(frames.length).toBeGreaterThan(4);
    await page.goto(`${srv.url}&rec=2`);
    await page.locator(`#row-${frames[0]!.seq}`).waitFor();
    for (const f of frames) expect(await page.locator(`#row-${f.seq} .c-tr`).textContent()).toBe('WS');
  });

  it('a recording without transport has no transport column', async () => {
    await page.goto(`${srv.url}&rec=3`);
    await page.locator('#row-1').waitFor();
    expect(await page.locator('.row.head .c-method').textContent()).toBe('method');
    expect(await page.locator('.c-tr').count()).toBe(0);
  });

  it('the waterfall splits a POSTed request into network time (to its HTTP status) and the agent\'s time', async () => {
    const origin = new URL(srv.url).origin;
    await page.goto(srv.url); // the page's token lets its requests in
    const wf = (await (await page.request.get(`${origin}/api/recordings/1/waterfall`)).json()) as Waterfall;
    const turn = wf.spans.find((s) => s.type === 'turn')!;
    expect(turn.httpStatus).toBe(202);
    // The POST's status time is the event after the request's frame, and the turn ends with its answer.
    const post = items[1]!.find((i): i is EventItem => i.dir === 'event' && (i.data as { op?: string; rpc?: { method?: string } }).op === 'post'
      && (i.data as { rpc: { method?: string } }).rpc.method === 'session/prompt')!;
    expect(turn.network).toBeCloseTo(post.t, 2);
    expect(turn.start).toBeLessThanOrEqual(turn.network!);
    expect(turn.network!).toBeLessThanOrEqual(turn.end);
    expect(wf.spans.find((s) => s.label === 'initialize')?.httpStatus).toBe(200);

    await page.goto(`${srv.url}&rec=1&view=waterfall`);
    const bar = page.getByRole('button', { name: /^prompt turn “permission” .* \(network [\d.]+ (ms|s) to HTTP 202, agent [\d.]+ (ms|s)\)/ });
    await bar.waitFor();
    expect(await bar.locator('.wf-net').count()).toBe(1);
    await expect.poll(() => page.getByRole('button', { name: /^initialize .*\(network .* to HTTP 200, agent / }).count()).toBe(1);
    await bar.hover();
    await expect.poll(() => page.getByRole('tooltip').textContent()).toMatch(/network [\d.]+ (ms|s) \(POST sent → HTTP 202\), agent [\d.]+ (ms|s)/);
    expect(await page.locator('.wf-legend').textContent()).toContain('network');
    await shot(page, 'remote-waterfall');

    // Over WebSocket nothing gives a request's network time: the bars are as before.
    await page.goto(`${srv.url}&rec=2&view=waterfall`);
    await page.getByRole('button', { name: /^prompt turn “permission” / }).waitFor();
    expect(await page.locator('.wf-net').count()).toBe(0);
    const labels = await page.locator('.wf-bar').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
    expect(labels.some((l) => l.includes('network'))).toBe(false);
  });
});
