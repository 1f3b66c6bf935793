/**
 * The console in a real browser: `acp-inspect console` (the real binary) starts a test agent through
 * the tap; the page initializes, opens a session, prompts, answers the agent's permission request,
 * sees its read served and approves its write (the file changes only then), sends a malformed frame
 * on purpose and finds the checker's finding on it in the timeline beside; and against the SDK's
 * example agent it cancels a turn mid-way. The recordings then check and export like any other.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { copyFileSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { BROWSER_AVAILABLE, describeBrowser, launchBrowser } from '../browser.js';
import { cli, EXAMPLE_AGENT, PEERS, tempDir } from '../helpers.js';
import { startConsole, type RunningConsole } from '../console/start-console.js';
import type { ConsoleSnapshot } from '../../src/console/contract.js';

let tmp: ReturnType<typeof tempDir>;
/** The test agent, copied beside the test's files (so a screenshot shows no path of this checkout). */
let AGENT: string;
let browser: Browser;
const consoles: RunningConsole[] = [];

beforeAll(async () => {
  if (!BROWSER_AVAILABLE) return;
  tmp = tempDir('acp-inspect-console-');
  AGENT = join(tmp.dir, 'console-agent.mjs');
  copyFileSync(join(PEERS, 'console-agent.mjs'), AGENT);
  browser = await launchBrowser();
});

afterAll(async () => {
  for (const c of consoles) await c.stop();
  await browser?.close();
  tmp?.cleanup();
});

/** Errors the console pages logged (a failed request, an exception). */
const pageErrors: string[] = [];

async function open(c: RunningConsole): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1500, height: 900 } })).newPage();
  page.on('dialog', (d) => void d.accept());
  page.on('console', (m) => { if (m.type() === 'error') pageErrors.push(m.text()); });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(c.url);
  await page.getByRole('heading', { name: 'Console' }).waitFor();
  return page;
}

/** A console over `agent` recording into db `name`, its page open, initialized, a session open. */
async function started(name: string, cwd: string, agent: string, caps: string[] = []): Promise<{ c: RunningConsole; page: Page; db: string }> {
  const db = join(tmp.dir, `${name}.sqlite`);
  const c = await startConsole(['--db', db, '--cwd', cwd, '--', process.execPath, agent]);
  consoles.push(c);
  const page = await open(c);
  for (const cap of caps) await page.getByRole('checkbox', { name: cap, exact: true }).check();
  await connect(page);
  return { c, page, db };
}

async function connect(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Initialize' }).click();
  await page.getByLabel("The agent's answer").waitFor();
  await page.getByRole('button', { name: 'New session' }).click();
  await page.getByRole('combobox', { name: 'session' }).waitFor();
}

async function prompt(page: Page, text: string): Promise<void> {
  const box = page.getByLabel('Prompt text (Ctrl/⌘+Enter sends)');
  await box.fill(text);
  await box.press('Control+Enter');
}

describeBrowser('the console', () => {
  it('drives a test agent: permission, read, write on approval, a malformed frame pinned to its finding', async () => {
    const work = join(tmp.dir, 'work');
    mkdirSync(work);
    const db = join(tmp.dir, 'console.sqlite');
    const notes = join(work, 'notes.txt');
    writeFileSync(notes, 'first\nsecond\nthird\n');
    const c = await startConsole(['--db', db, '--cwd', work, '--', process.execPath, AGENT]);
    consoles.push(c);
    const page = await open(c);

    await connect(page);
    await expect(page.getByLabel("The agent's answer").textContent()).resolves.toContain('console-test-agent 1.0.0');
    // Authenticate by choosing a method; a terminal method is not run from here.
    expect(await page.getByRole('button', { name: 'Log in' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Token' }).click();
    await page.locator('.timeline .row', { has: page.locator('.c-method', { hasText: 'authenticate' }) }).nth(1).waitFor({ timeout: 20_000 });
    // The session's modes are a control, kept current by the agent's update.
    const mode = page.getByRole('combobox', { name: 'mode' });
    expect(await mode.inputValue()).toBe('ask');
    await mode.selectOption('code');
    await page.locator('.timeline .row', { hasText: 'current_mode_update' }).waitFor({ timeout: 20_000 });
    expect(await mode.inputValue()).toBe('code');

    await prompt(page, 'files');
    // The permission request waits inline, its options as buttons, with how long the agent has waited.
    const perm = page.getByRole('article', { name: /session\/request_permission/ });
    await perm.getByText(/waiting \d/).waitFor();
    await perm.getByRole('button', { name: 'Allow' }).click();
    // The read is served from --cwd (line 2, limit 1); the write waits with its diff, the file untouched.
    const write = page.getByRole('article', { name: /fs\/write_text_file/ });
    await write.locator('.diff-add', { hasText: 'added by the agent' }).waitFor();
    expect(readFileSync(notes, 'utf8')).toBe('first\nsecond\nthird\n');
    await write.getByRole('button', { name: 'Approve write' }).click();
    await page.getByRole('article', { name: /^Turn at/ }).locator('.pill', { hasText: 'end_turn' }).waitFor({ timeout: 20_000 });
    expect(readFileSync(notes, 'utf8')).toBe('first\nsecond\nthird\nadded by the agent\n');
    const turn = page.getByRole('article', { name: /^Turn at/ }).last();
    await expect(turn.textContent()).resolves.toContain('line 2 reads "second"');
    await expect(turn.locator('.plan').textContent()).resolves.toContain('Append a line');

    // A malformed frame on purpose: the agent answers -32700 and the timeline pins the finding to it.
    const raw = page.getByLabel('Raw JSON-RPC message (Ctrl/⌘+Enter sends)');
    await raw.fill('{"jsonrpc":"2.0","id":77,"method":');
    await raw.press('Control+Enter');
    const bad = page.locator('.timeline .row.has-error', { has: page.locator('.c-kind', { hasText: 'invalid' }) });
    await bad.waitFor({ timeout: 20_000 });
    await bad.click();
    await page.locator('.detail').getByText('not-json').first().waitFor();
    const snap = (await c.api<ConsoleSnapshot>('/api/console')).json;
    expect(snap.frames.some((f) => f.dir === 'a2c' && f.kind === 'error' && JSON.stringify(f.json).includes('-32700'))).toBe(true);
    if (process.env.ACP_INSPECT_SHOTS) { // npm run screenshots: at the width the docs show
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.screenshot({ path: join(process.env.ACP_INSPECT_SHOTS, 'console.png') });
    }

    const id = snap.status.recordingId!;
    // The same server's recordings list names the running console and links its recording.
    await page.goto(`${c.origin}/`);
    const listed = page.getByRole('region', { name: 'Running consoles' });
    await listed.getByText('console-agent.mjs').waitFor();
    await listed.getByRole('link', { name: `recording #${id}` }).waitFor();
    expect(pageErrors).toEqual([]);
    expect(await c.stop()).toBe(0);
    // The recording checks and exports like any other.
    const check = await cli(['check', String(id), '--db', db, '--json']);
    const found = check.stdout.toString().trim().split('\n').map((l) => JSON.parse(l) as { rule: string; seq: number });
    expect(found.some((f) => f.rule === 'not-json')).toBe(true);
    const out = join(tmp.dir, 'console.jsonl');
    expect((await cli(['export', String(id), '--db', db, '-o', out])).code).toBe(0);
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { dir?: string; raw?: string });
    expect(lines.some((l) => l.dir === 'c2a' && l.raw === '{"jsonrpc":"2.0","id":77,"method":')).toBe(true);
  });

  it('cancels the SDK example agent while it waits on a permission: the console answers it cancelled, the checker sees the turn end', async () => {
    const { c, page, db } = await started('example', tmp.dir, EXAMPLE_AGENT);
    await prompt(page, 'hello');
    // The turn streams into its card while it runs.
    const turn = page.getByRole('article', { name: /^Turn at/ }).last();
    await turn.locator('.pill', { hasText: 'running' }).waitFor({ timeout: 20_000 });
    // Mid-turn: the agent waits on its permission request.
    const perm = page.getByRole('article', { name: /session\/request_permission/ });
    await perm.waitFor({ timeout: 20_000 });
    await turn.locator('.md').waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: 'Cancel turn' }).click();
    await perm.waitFor({ state: 'detached' });
    await page.getByText(/stop reason: \w+/).waitFor({ timeout: 20_000 });
    const snap = (await c.api<ConsoleSnapshot>('/api/console')).json;
    expect(snap.pending).toEqual([]);
    const cancelAt = snap.frames.findIndex((f) => f.method === 'session/cancel');
    expect(cancelAt).toBeGreaterThan(-1);
    // The permission request was answered with the cancelled outcome, after the cancel.
    const asked = snap.frames.filter((x) => x.dir === 'a2c' && x.method === 'session/request_permission' && x.kind === 'request');
    expect(asked).toHaveLength(1);
    const answered = snap.frames.findIndex((x) => x.dir === 'c2a' && x.kind === 'result' && JSON.stringify(x.id) === JSON.stringify(asked[0]!.id));
    expect(answered).toBeGreaterThan(cancelAt);
    expect(JSON.parse(snap.frames[answered]!.raw)).toMatchObject({ result: { outcome: { outcome: 'cancelled' } } });
    // This example agent ends a turn cancelled during its permission request with end_turn: the checker says so.
    const stop = snap.frames.find((x) => x.dir === 'a2c' && x.method === 'session/prompt' && x.kind === 'result')!;
    expect(await c.stop()).toBe(0);
    const check = await cli(['check', String(snap.status.recordingId), '--db', db, '--json']);
    const rules = check.stdout.toString().split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { rule: string }).rule);
    expect(rules.includes('cancel-stop-reason')).toBe(!stop.raw.includes('"cancelled"'));
  });

  it('cancels a streaming turn mid-way: the agent stops with "cancelled"', async () => {
    const { c, page } = await started('slow', tmp.dir, AGENT);
    await prompt(page, 'slow');
    const turn = page.getByRole('article', { name: /^Turn at/ }).last();
    await turn.locator('.md', { hasText: 'chunk 2' }).waitFor({ timeout: 20_000 });
    // Without the mouse: focus the button and press Enter (the timeline's keys leave buttons alone).
    await page.getByRole('button', { name: 'Cancel turn' }).focus();
    await page.keyboard.press('Enter');
    await page.getByText('stop reason: cancelled').waitFor({ timeout: 20_000 });
    await turn.locator('.pill', { hasText: 'cancelled' }).waitFor({ timeout: 20_000 });
    await turn.getByText(/Cancelled by the client/).waitFor();
    expect(await c.stop()).toBe(0);
  });

  it('refuses terminals until switched on; reconnecting starts a fresh agent and a new recording', async () => {
    const db = join(tmp.dir, 'terminal.sqlite');
    const work = join(tmp.dir, 'term-work');
    mkdirSync(work);
    const c = await startConsole(['--db', db, '--cwd', work, '--', process.execPath, AGENT]);
    consoles.push(c);
    const page = await open(c);
    // Off: the capability cannot even be advertised, and the agent's terminal/create is refused.
    await expect(page.getByRole('checkbox', { name: 'terminal', exact: true }).isDisabled()).resolves.toBe(true);
    await connect(page);
    await prompt(page, 'terminal');
    await page.getByRole('article', { name: /^Turn at/ }).getByText(/terminal refused: error -32601/).waitFor({ timeout: 20_000 });
    const first = (await c.api<ConsoleSnapshot>('/api/console')).json.status.recordingId;

    await page.getByRole('checkbox', { name: 'terminals' }).check();
    await page.getByRole('button', { name: 'Reconnect' }).click();
    await page.getByText('running (run 2)').waitFor({ timeout: 20_000 });
    await page.getByRole('checkbox', { name: 'terminal', exact: true }).check();
    await connect(page);
    await prompt(page, 'terminal');
    await page.getByRole('article', { name: /^Turn at/ }).getByText('terminal said: from-terminal').waitFor({ timeout: 20_000 });
    const second = (await c.api<ConsoleSnapshot>('/api/console')).json.status.recordingId;
    expect(second).not.toBe(first);
    expect(await c.stop()).toBe(0);
  });

  it('forks from a frame of a recorded session: the client side replayed up to there, then the console continues', async () => {
    const { c, page } = await started('fork', tmp.dir, AGENT);
    await prompt(page, 'first try');
    await page.getByRole('article', { name: /^Turn at/ }).getByText('echo: first try').waitFor({ timeout: 20_000 });
    const first = (await c.api<ConsoleSnapshot>('/api/console')).json.status.recordingId!;
    const rows = (await c.api<{ rows: { seq: number }[] }>(`/api/recordings/${first}/items?q=${encodeURIComponent('method:session/prompt kind:request')}`)).json.rows;
    const promptSeq = rows[0]!.seq;
    // In the recording's ordinary timeline, the frame before the prompt: fork from here.
    await page.goto(`${c.origin}/?rec=${first}&sel=${promptSeq - 1}`);
    await page.getByRole('button', { name: 'Fork from here' }).click();
    await page.waitForURL(/\/console$/);
    await page.getByText(`forked from #${first} at #${promptSeq - 1}`).getByText(/frames replayed, 0 differences/).waitFor({ timeout: 20_000 });
    // The replayed session is the console's now: ask something else there.
    await page.getByRole('combobox', { name: 'session' }).waitFor();
    await prompt(page, 'second try');
    await page.getByRole('article', { name: /^Turn at/ }).getByText('echo: second try').waitFor({ timeout: 20_000 });
    const snap = (await c.api<ConsoleSnapshot>('/api/console')).json;
    expect(snap.status.recordingId).not.toBe(first);
    expect(snap.frames.filter((f) => f.dir === 'c2a' && f.kind === 'request').map((f) => f.method)).toEqual(['initialize', 'session/new', 'session/prompt']);
    // Edit and resend a client frame from the timeline beside: it lands in the raw composer.
    await page.locator('.timeline .row', { has: page.locator('.c-prev', { hasText: 'second try' }) }).first().click();
    await page.getByRole('button', { name: 'Edit and resend' }).click();
    const raw = page.getByLabel('Raw JSON-RPC message (Ctrl/⌘+Enter sends)');
    const sent = await raw.inputValue();
    expect(JSON.parse(sent)).toMatchObject({ method: 'session/prompt', params: { prompt: [{ text: 'second try' }] } });
    await raw.fill(sent.replace('second try', 'third try').replace(/"id":\d+/, '"id":90'));
    await raw.press('Control+Enter');
    await page.getByRole('article', { name: /^Turn at/ }).getByText('echo: third try').waitFor({ timeout: 20_000 });
    expect(await c.stop()).toBe(0);
  });

  it('renders an elicitation form from its schema and answers with what was filled in', async () => {
    const { c, page } = await started('elicit', tmp.dir, AGENT, ['elicitation form']);
    await prompt(page, 'elicit');
    const card = page.getByRole('article', { name: /elicitation\/create/ });
    await card.locator('form.elicitation').getByText('Who is asking?').waitFor({ timeout: 20_000 });
    // Name is required: Accept waits for it.
    expect(await card.getByRole('button', { name: 'Accept' }).isDisabled()).toBe(true);
    await card.getByLabel('Name *').fill('Ada');
    await card.getByLabel('Age').fill('36');
    await card.getByLabel('Tea').check();
    await card.getByLabel('Colour').selectOption('b');
    await card.getByRole('button', { name: 'Accept' }).click();
    await page.getByRole('article', { name: /^Turn at/ }).getByText('elicited {"action":"accept","content":{"tea":true,"name":"Ada","age":36,"colour":"b"}}').waitFor({ timeout: 20_000 });
    expect(await c.stop()).toBe(0);
  });

  it('answers permission requests by the console\'s policy when set, while writes still wait for approval', async () => {
    const work = join(tmp.dir, 'policy-work');
    mkdirSync(work);
    writeFileSync(join(work, 'notes.txt'), 'one\ntwo\n');
    const { c, page } = await started('policy', work, AGENT);
    await page.getByRole('combobox', { name: 'permission requests' }).selectOption('allow');
    await prompt(page, 'files');
    const write = page.getByRole('article', { name: /fs\/write_text_file/ });
    await write.waitFor({ timeout: 20_000 });
    expect(await page.getByRole('article', { name: /session\/request_permission/ }).count()).toBe(0);
    await page.getByText('answered a permission request with "Allow" (the console\'s policy: allow)').waitFor();
    await write.getByRole('button', { name: 'Reject' }).click();
    await page.getByRole('article', { name: /^Turn at/ }).getByText(/write refused: error -32000/).waitFor({ timeout: 20_000 });
    expect(readFileSync(join(work, 'notes.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(await c.stop()).toBe(0);
  });

  it('forks, lists and closes sessions where the agent advertises them', async () => {
    const { c, page } = await started('sessions', tmp.dir, AGENT);
    const picker = page.getByRole('combobox', { name: 'session' });
    expect(await picker.inputValue()).toBe('sess-1');
    await page.getByRole('button', { name: 'Fork session' }).click();
    await page.waitForFunction(() => document.querySelectorAll('.console-box select option[value^="sess-"]').length === 2);
    expect(await picker.inputValue()).toBe('sess-2');
    await page.getByRole('button', { name: 'List sessions' }).click();
    await page.getByRole('list', { name: 'Listed sessions' }).getByText('title of sess-2').waitFor();
    await page.getByRole('button', { name: 'Close session' }).click();
    await page.waitForFunction(() => document.querySelectorAll('.console-box select option[value^="sess-"]').length === 1);
    expect(await picker.inputValue()).toBe('sess-1');
    expect(await c.stop()).toBe(0);
  });
});
