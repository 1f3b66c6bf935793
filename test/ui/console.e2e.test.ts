/**
 * The console in a real browser: `acp-inspect console` (the real binary) starts a test agent through
 * the tap; the page initializes, opens a session, prompts, answers the agent's permission request,
 * sees its read served and approves its write (the file changes only then), sends a malformed frame
 * on purpose and finds the checker's finding on it in the timeline beside; and against the SDK's
 * example agent it cancels a turn mid-way. The recordings then check and export like any other.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { copyFileSync, existsSync, readFileSync, writeFileSync, mkdirSync, mkdtempSync, realpathSync, symlinkSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { BROWSER_AVAILABLE, describeBrowser, launchBrowser } from '../browser.js';
import { cli, EXAMPLE_AGENT, PEERS, tempDir, endAll } from '../helpers.js';
import { startConsole, type RunningConsole } from '../console/start-console.js';
import { connect, openConsole, prompt, switchTerminalsOn } from './console-page.js';
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

afterAll(() => endAll(...consoles.map((c) => () => c.stop()), () => browser?.close(), () => tmp?.cleanup()));

/** Whether process `pid` runs (a zombie, waiting for its parent to reap it, has ended). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Errors the console pages logged (a failed request, an exception). */
const pageErrors: string[] = [];
const open = (c: RunningConsole, errors = pageErrors) => openConsole(browser, c, errors);

/** A console over `agent` recording into db `name`, its page open, initialized, a session open. */
async function started(name: string, cwd: string, agent: string, caps: string[] = [], agentArgs: string[] = []): Promise<{ c: RunningConsole; page: Page; db: string; errors: string[] }> {
  const db = join(tmp.dir, `${name}.sqlite`);
  const c = await startConsole(['--db', db, '--cwd', cwd, '--', process.execPath, agent, ...agentArgs]);
  consoles.push(c);
  // This page's own errors (pages of consoles already stopped keep trying to reconnect).
  const errors: string[] = [];
  const page = await open(c, errors);
  for (const cap of caps) await page.getByRole('checkbox', { name: cap, exact: true }).check();
  await connect(page);
  return { c, page, db, errors };
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
    await expect.poll(() => page.getByLabel("The agent's answer").textContent()).toContain('console-test-agent 1.0.0');
    // Authenticate by choosing a method. This console did not advertise auth.terminal: no terminal method is offered.
    expect(await page.getByRole('button', { name: /Log in/ }).count()).toBe(0);
    await page.getByRole('button', { name: 'Token' }).click();
    await page.locator('.timeline .row', { has: page.locator('.c-method', { hasText: 'authenticate' }) }).nth(1).waitFor({ timeout: 120_000 });
    // The session's modes are a control, kept current by the agent's update.
    const mode = page.getByRole('combobox', { name: 'mode', exact: true });
    await expect.poll(() => mode.inputValue()).toBe('ask');
    await mode.selectOption('code');
    // The timeline beside shows the recording, the control the console's state: either may be first.
    await page.locator('.timeline .row', { hasText: 'current_mode_update' }).waitFor({ timeout: 120_000 });
    await expect.poll(() => mode.inputValue()).toBe('code');

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
    await page.getByRole('article', { name: /^Turn at/ }).locator('.pill', { hasText: 'end_turn' }).waitFor({ timeout: 120_000 });
    expect(readFileSync(notes, 'utf8')).toBe('first\nsecond\nthird\nadded by the agent\n');
    const turn = page.getByRole('article', { name: /^Turn at/ }).last();
    await expect.poll(() => turn.textContent()).toContain('line 2 reads "second"');
    await expect.poll(() => turn.locator('.plan').textContent()).toContain('Append a line');

    // A malformed frame on purpose: the agent answers -32700 and the timeline pins the finding to it.
    const raw = page.getByLabel('Raw JSON-RPC message (Ctrl/⌘+Enter sends)');
    await raw.fill('{"jsonrpc":"2.0","id":77,"method":');
    await raw.press('Control+Enter');
    const bad = page.locator('.timeline .row.has-error', { has: page.locator('.c-kind', { hasText: 'invalid' }) });
    await bad.waitFor({ timeout: 120_000 });
    await bad.click();
    await page.locator('.detail').getByText('not-json').first().waitFor();
    // The timeline shows the frame sent; the agent's answer to it reaches the console on its own time.
    const answered32700 = (s: ConsoleSnapshot) => s.frames.some((f) => f.dir === 'a2c' && f.kind === 'error' && JSON.stringify(f.json).includes('-32700'));
    await expect.poll(async () => answered32700((await c.api<ConsoleSnapshot>('/api/console')).json), { timeout: 120_000 }).toBe(true);
    const snap = (await c.api<ConsoleSnapshot>('/api/console')).json;
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
    await turn.locator('.pill', { hasText: 'running' }).waitFor({ timeout: 120_000 });
    // Mid-turn: the agent waits on its permission request.
    const perm = page.getByRole('article', { name: /session\/request_permission/ });
    await perm.waitFor({ timeout: 120_000 });
    await turn.locator('.md').waitFor({ timeout: 120_000 });
    await page.getByRole('button', { name: 'Cancel turn' }).click();
    await perm.waitFor({ state: 'detached' });
    await page.getByText(/stop reason: \w+/).waitFor({ timeout: 120_000 });
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
    await turn.locator('.md', { hasText: 'chunk 2' }).waitFor({ timeout: 120_000 });
    // Without the mouse: focus the button and press Enter (the timeline's keys leave buttons alone).
    await page.getByRole('button', { name: 'Cancel turn' }).focus();
    await page.keyboard.press('Enter');
    await page.getByText('stop reason: cancelled').waitFor({ timeout: 120_000 });
    await turn.locator('.pill', { hasText: 'cancelled' }).waitFor({ timeout: 120_000 });
    await turn.getByText(/Cancelled by the client/).waitFor();
    expect(await c.stop()).toBe(0);
  });

  it('keeps a streaming turn\'s card current when the server answers slower than the agent streams', async () => {
    const { c, page } = await started('slow-server', tmp.dir, AGENT);
    // Every answer about turns comes a second late (a loaded machine): chunks come five times as often.
    await page.route(/\/api\/recordings\/\d+\/turns/, async (route) => {
      await new Promise((r) => setTimeout(r, 1000));
      await route.continue().catch(() => undefined);
    });
    await prompt(page, 'slow');
    const turn = page.getByRole('article', { name: /^Turn at/ }).last();
    // Chunks show while the turn still runs (this agent streams until cancelled).
    await turn.locator('.md', { hasText: 'chunk 2' }).waitFor({ timeout: 120_000 });
    await turn.locator('.pill', { hasText: 'running' }).waitFor();
    await page.getByRole('button', { name: 'Cancel turn' }).click();
    await turn.locator('.pill', { hasText: 'cancelled' }).waitFor({ timeout: 120_000 });
    await page.unrouteAll({ behavior: 'wait' });
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
    await page.getByRole('article', { name: /^Turn at/ }).getByText(/terminal refused: error -32601/).waitFor({ timeout: 120_000 });
    const first = (await c.api<ConsoleSnapshot>('/api/console')).json.status.recordingId;

    await switchTerminalsOn(page);
    await page.getByRole('button', { name: 'Reconnect' }).click();
    await page.getByText('running (run 2)').waitFor({ timeout: 120_000 });
    await page.getByRole('checkbox', { name: 'terminal', exact: true }).check();
    await connect(page);
    await prompt(page, 'terminal');
    await page.getByRole('article', { name: /^Turn at/ }).getByText('terminal said: from-terminal').waitFor({ timeout: 120_000 });
    const second = (await c.api<ConsoleSnapshot>('/api/console')).json.status.recordingId;
    expect(second).not.toBe(first);
    expect(await c.stop()).toBe(0);
  });

  it('loses nothing said between loading its state and its event stream opening: the stream starts with the state', async () => {
    const db = join(tmp.dir, 'gap.sqlite');
    const c = await startConsole(['--db', db, '--cwd', tmp.dir, '--', process.execPath, AGENT]);
    consoles.push(c);
    const page = await (await browser.newContext({ viewport: { width: 1500, height: 900 } })).newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    // The page's event stream is held until the agent has answered an initialize sent by another
    // client of the console: the page loaded its state before that, and subscribes only after.
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    let asked!: () => void;
    const streamAsked = new Promise<void>((r) => { asked = r; });
    await page.route('**/api/console/events', async (route) => { asked(); await held; await route.continue(); });
    await page.goto(c.url);
    await page.getByRole('heading', { name: 'Console' }).waitFor();
    await streamAsked;
    expect((await c.api('/api/console/request', { method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })).status).toBe(200);
    for (;;) {
      const snap = (await c.api<ConsoleSnapshot>('/api/console')).json;
      if (snap.frames.some((f) => f.dir === 'a2c' && f.kind === 'result')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    release();
    await page.getByLabel("The agent's answer").getByText('console-test-agent 1.0.0').waitFor({ timeout: 120_000 });
    expect(await c.stop()).toBe(0);
  });

  it('forks from a frame of a recorded session: the client side replayed up to there, then the console continues', async () => {
    const { c, page } = await started('fork', tmp.dir, AGENT);
    await prompt(page, 'first try');
    await page.getByRole('article', { name: /^Turn at/ }).getByText('echo: first try').waitFor({ timeout: 120_000 });
    const first = (await c.api<ConsoleSnapshot>('/api/console')).json.status.recordingId!;
    // The recording is indexed a moment after the page shows the turn (by the tap's recorder): wait for the prompt in it.
    let promptSeq: number | undefined;
    while (promptSeq === undefined) {
      promptSeq = (await c.api<{ rows: { seq: number }[] }>(`/api/recordings/${first}/items?q=${encodeURIComponent('method:session/prompt kind:request')}`)).json.rows[0]?.seq;
      if (promptSeq === undefined) await new Promise((r) => setTimeout(r, 100));
    }
    // In the recording's ordinary timeline, the frame before the prompt: fork from here.
    await page.goto(`${c.origin}/?rec=${first}&sel=${promptSeq - 1}`);
    await page.getByRole('button', { name: 'Fork from here' }).click();
    await page.waitForURL(/\/console$/);
    await page.getByText(`forked from #${first} at #${promptSeq - 1}`).getByText(/frames replayed, 0 differences/).waitFor({ timeout: 120_000 });
    // The replayed session is the console's now: ask something else there.
    await page.getByRole('combobox', { name: 'session' }).waitFor();
    await prompt(page, 'second try');
    await page.getByRole('article', { name: /^Turn at/ }).getByText('echo: second try').waitFor({ timeout: 120_000 });
    const snap = (await c.api<ConsoleSnapshot>('/api/console')).json;
    expect(snap.status.recordingId).not.toBe(first);
    expect(snap.frames.filter((f) => f.dir === 'c2a' && f.kind === 'request').map((f) => f.method)).toEqual(['initialize', 'session/new', 'session/prompt']);
    // Edit and resend a client frame from the timeline beside: it lands in the raw composer.
    await page.locator('.timeline .row', { has: page.locator('.c-prev', { hasText: 'second try' }) }).first().click();
    await page.getByRole('button', { name: 'Edit and resend' }).click();
    const raw = page.getByLabel('Raw JSON-RPC message (Ctrl/⌘+Enter sends)');
    // The composer is filled as the page renders next: wait for it.
    await expect.poll(() => raw.inputValue(), { timeout: 120_000 }).toContain('second try');
    const sent = await raw.inputValue();
    expect(JSON.parse(sent)).toMatchObject({ method: 'session/prompt', params: { prompt: [{ text: 'second try' }] } });
    await raw.fill(sent.replace('second try', 'third try').replace(/"id":\d+/, '"id":90'));
    await raw.press('Control+Enter');
    await page.getByRole('article', { name: /^Turn at/ }).getByText('echo: third try').waitFor({ timeout: 120_000 });
    expect(await c.stop()).toBe(0);
  });

  it('renders an elicitation form from its schema and answers with what was filled in', async () => {
    const { c, page } = await started('elicit', tmp.dir, AGENT, ['elicitation form']);
    await prompt(page, 'elicit');
    const card = page.getByRole('article', { name: /elicitation\/create/ });
    await card.locator('form.elicitation').getByText('Who is asking?').waitFor({ timeout: 120_000 });
    // Name is required: Accept waits for it.
    expect(await card.getByRole('button', { name: 'Accept' }).isDisabled()).toBe(true);
    await card.getByLabel('Name *').fill('Ada');
    await card.getByLabel('Age').fill('36');
    await card.getByLabel('Tea').check();
    await card.getByLabel('Colour').selectOption('b');
    await card.getByRole('button', { name: 'Accept' }).click();
    await page.getByRole('article', { name: /^Turn at/ }).getByText('elicited {"action":"accept","content":{"tea":true,"name":"Ada","age":36,"colour":"b"}}').waitFor({ timeout: 120_000 });
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
    await write.waitFor({ timeout: 120_000 });
    expect(await page.getByRole('article', { name: /session\/request_permission/ }).count()).toBe(0);
    await page.getByText('answered a permission request with "Allow" (the console\'s policy: allow)').waitFor();
    await write.getByRole('button', { name: 'Reject' }).click();
    await page.getByRole('article', { name: /^Turn at/ }).getByText(/write refused: error -32000/).waitFor({ timeout: 120_000 });
    expect(readFileSync(join(work, 'notes.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(await c.stop()).toBe(0);
  });

  it('forks, lists and closes sessions where the agent advertises them', async () => {
    const { c, page } = await started('sessions', tmp.dir, AGENT);
    const picker = page.getByRole('combobox', { name: 'session' });
    await expect.poll(() => picker.inputValue(), { timeout: 120_000 }).toBe('sess-1');
    await page.getByRole('button', { name: 'Fork session' }).click();
    await page.waitForFunction(() => document.querySelectorAll('.console-box select option[value^="sess-"]').length === 2);
    await expect.poll(() => picker.inputValue(), { timeout: 120_000 }).toBe('sess-2');
    await page.getByRole('button', { name: 'List sessions' }).click();
    await page.getByRole('list', { name: 'Listed sessions' }).getByText('title of sess-2').waitFor();
    await page.getByRole('button', { name: 'Close session' }).click();
    await page.waitForFunction(() => document.querySelectorAll('.console-box select option[value^="sess-"]').length === 1);
    await expect.poll(() => picker.inputValue(), { timeout: 120_000 }).toBe('sess-1');
    expect(await c.stop()).toBe(0);
  });

  it('attaches files with @ from the keyboard: embedded when the agent advertises it, images and audio as their blocks; slash commands with their hint', async () => {
    const work = realpathSync(mkdtempSync(join(tmp.dir, 'attach-')));
    mkdirSync(join(work, 'src'));
    writeFileSync(join(work, 'notes.txt'), 'hello notes\n');
    writeFileSync(join(work, 'src', 'main.ts'), 'export {};\n');
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]);
    writeFileSync(join(work, 'pic.png'), png);
    mkdirSync(join(tmp.dir, 'attach-secret'), { recursive: true });
    writeFileSync(join(tmp.dir, 'attach-secret', 'key.txt'), 'secret');
    symlinkSync(join(tmp.dir, 'attach-secret', 'key.txt'), join(work, 'leak.txt'));
    const { c, page, errors } = await started('attach', work, AGENT);
    const box = page.getByLabel('Prompt text (Ctrl/⌘+Enter sends)');
    await box.focus();
    await page.keyboard.type('look at @');
    const files = page.getByRole('listbox', { name: 'Files in the folder' });
    await files.getByRole('option').first().waitFor();
    // Everything in the folder, nothing through the symlink out of it.
    await expect.poll(async () => (await files.getByRole('option').allTextContents()).map((t) => t.split(' ')[0]).sort()).toEqual(['notes.txt', 'pic.png', 'src/main.ts']);
    // Enter while the lists for what was typed since are still on their way (held back here, as a
    // slow folder would): the older list's first file is pic.png, yet notes.txt is what is picked.
    // Held: whatever of them reached the browser's network by Enter, not a count of them (a CI run
    // beside a second suite saw 3 of the 4 keys' lists arrive: under load one may wait in the browser
    // for a free connection, six per host, while the others are held).
    const held: Array<() => Promise<void>> = [];
    let releasing = false;
    await page.route(/\/api\/console\/files\?q=n/, (r) => { if (releasing) void r.continue(); else held.push(() => r.continue()); });
    await page.keyboard.type('note');
    await expect.poll(() => box.inputValue()).toBe('look at @note');
    await expect.poll(() => held.length, { timeout: 120_000 }).toBeGreaterThan(0);
    await page.keyboard.press('Enter');
    releasing = true;
    for (const go of held) await go();
    await page.unroute(/\/api\/console\/files\?q=n/);
    const chips = page.getByRole('list', { name: 'Attachments' });
    await chips.getByText('embedded notes.txt').waitFor();
    await page.keyboard.type('and @pic');
    await files.getByRole('option', { name: /^pic\.png/ }).waitFor();
    await page.keyboard.press('Tab');
    await chips.getByText('image image/png').waitFor();
    // Audio from this machine (the agent advertises audio).
    await page.getByLabel('Attach audio').setInputFiles({ name: 'beep.wav', mimeType: 'audio/wav', buffer: Buffer.from('RIFF0000WAVE') });
    await chips.getByText('audio audio/wav').waitFor();
    await expect.poll(() => box.inputValue()).toBe('look at @notes.txt and @pic.png ');
    await box.press('Control+Enter');
    await page.getByRole('article', { name: /^Turn at/ }).getByText(/echo: look at @notes\.txt and @pic\.png/).waitFor({ timeout: 120_000 });
    let snap = (await c.api<ConsoleSnapshot>('/api/console')).json;
    const sentPrompt = (f: ConsoleSnapshot['frames'][number]) => f.dir === 'c2a' && f.method === 'session/prompt' && f.kind === 'request';
    expect((snap.frames.filter(sentPrompt).at(-1)!.json as { params: { prompt: unknown[] } }).params.prompt).toEqual([
      { type: 'text', text: 'look at @notes.txt and @pic.png ' },
      { type: 'resource', resource: { uri: pathToFileURL(join(work, 'notes.txt')).href, text: 'hello notes\n', mimeType: 'text/plain' } },
      { type: 'image', data: png.toString('base64'), mimeType: 'image/png' },
      { type: 'audio', data: Buffer.from('RIFF0000WAVE').toString('base64'), mimeType: 'audio/wav' },
    ]);
    expect(await chips.count()).toBe(0);

    // A slash command: typed, picked from its list with the keys, its input hint shown until input is typed.
    await box.focus();
    await page.keyboard.type('/e');
    const cmds = page.getByRole('listbox', { name: 'Slash commands' });
    await cmds.getByRole('option', { name: /^\/echo/ }).waitFor();
    // The list for "/" may show a moment before the list for "/e".
    await expect.poll(() => cmds.getByRole('option').count()).toBe(1);
    await page.keyboard.press('Enter');
    await expect.poll(() => box.inputValue(), { timeout: 120_000 }).toBe('/echo ');
    await page.locator('.command-hint', { hasText: 'what to say' }).waitFor();
    await page.keyboard.type('hi there');
    await page.locator('.command-hint').waitFor({ state: 'detached' });
    await page.keyboard.press('Control+Enter');
    await page.getByRole('article', { name: /^Turn at/ }).getByText('echo: /echo hi there').waitFor({ timeout: 120_000 });
    expect(errors).toEqual([]);
    await page.context().close();
    expect(await c.stop()).toBe(0);

    // An agent that advertises no prompt capabilities: files go as resource links; no image or audio.
    const plain = await started('attach-plain', work, AGENT, [], ['--plain']);
    expect(await plain.page.getByRole('option', { name: /embedded resource/ }).isDisabled()).toBe(true);
    expect(await plain.page.getByLabel('Attach image').count()).toBe(0);
    const box2 = plain.page.getByLabel('Prompt text (Ctrl/⌘+Enter sends)');
    await box2.focus();
    await plain.page.keyboard.type('@pic');
    await plain.page.getByRole('listbox', { name: 'Files in the folder' }).getByRole('option', { name: /^pic\.png/ }).waitFor();
    await plain.page.keyboard.press('Enter');
    await plain.page.getByRole('list', { name: 'Attachments' }).getByText('link pic.png').waitFor();
    await box2.press('Control+Enter');
    await plain.page.getByRole('article', { name: /^Turn at/ }).getByText(/echo: @pic\.png/).waitFor({ timeout: 120_000 });
    snap = (await plain.c.api<ConsoleSnapshot>('/api/console')).json;
    expect((snap.frames.filter(sentPrompt).at(-1)!.json as { params: { prompt: unknown[] } }).params.prompt[1]).toEqual(
      { type: 'resource_link', uri: pathToFileURL(join(work, 'pic.png')).href, name: 'pic.png', title: 'pic.png', mimeType: 'image/png', size: 8 });
    expect(plain.errors).toEqual([]);
    await plain.page.context().close();
    expect(await plain.c.stop()).toBe(0);
  });

  it('runs a terminal auth method only after a confirmation showing exactly what runs, and only with auth.terminal advertised', async () => {
    const { c, page, errors } = await started('auth', tmp.dir, AGENT, ['auth.terminal']);
    const login = page.getByRole('button', { name: 'Log in (terminal)' });
    await login.focus();
    await page.keyboard.press('Enter');
    const confirm = page.getByRole('group', { name: 'Run terminal auth method Log in?' });
    // The console's own agent command with the method's args, and its env: nothing the page chose.
    expect(await confirm.getByLabel('Command').textContent()).toBe(`${process.execPath} ${AGENT} --login`);
    expect(await confirm.getByLabel('Environment overrides').textContent()).toBe('LOGIN_USER=ada');
    await confirm.getByRole('button', { name: "Don't run" }).click();
    await confirm.waitFor({ state: 'detached' });
    expect((await c.api<ConsoleSnapshot>('/api/console')).json.status.authRun).toBeNull();
    await login.click();
    // "Run it" has the focus: Enter runs it.
    await page.keyboard.press('Enter');
    await page.getByText('terminal auth login: exited 0: authenticated').waitFor({ timeout: 120_000 });
    await page.getByText(/terminal auth method "Log in" exited 0: authenticated; it said: logging in as ada/).waitFor();
    await page.getByRole('button', { name: 'Broken login (terminal)' }).click();
    await page.getByRole('group', { name: 'Run terminal auth method Broken login?' }).getByRole('button', { name: 'Run it' }).click();
    await page.getByText('terminal auth broken: failed (exit 3)').waitFor({ timeout: 120_000 });
    // A terminal method never goes to authenticate.
    const snap = (await c.api<ConsoleSnapshot>('/api/console')).json;
    expect(snap.frames.filter((f) => f.method === 'authenticate')).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
    expect(await c.stop()).toBe(0);
  });

  it('loads, resumes, lists and deletes sessions where advertised; config options are controls kept current by the agent', async () => {
    // The agent offers its boolean option only to a client that advertises boolean config options.
    const { c, page, errors } = await started('load', tmp.dir, AGENT, ['boolean config options']);
    const picker = page.getByRole('combobox', { name: 'session' });
    // Config options: a select and a boolean, kept current by the answer and by config_option_update.
    const model = page.getByRole('combobox', { name: 'Model' });
    const verbose = page.getByRole('checkbox', { name: 'Verbose' });
    await expect.poll(() => model.inputValue()).toBe('fast');
    expect(await verbose.isChecked()).toBe(false);
    await model.selectOption('smart');
    await page.locator('.timeline .row', { hasText: 'config_option_update' }).waitFor({ timeout: 120_000 });
    await expect.poll(() => verbose.isChecked(), { timeout: 120_000 }).toBe(true);
    // A click, not uncheck(): the box shows the agent's value, so it may turn back until the agent
    // takes the new one (uncheck() fails when it sees it turned back).
    await verbose.click();
    await expect.poll(() => verbose.isChecked(), { timeout: 120_000 }).toBe(false);
    // The box is unchecked on the page at once; the request it sends reaches the console a moment later.
    const setOptions = async () => (await c.api<ConsoleSnapshot>('/api/console')).json.frames
      .filter((f) => f.dir === 'c2a' && f.method === 'session/set_config_option').map((f) => (f.json as { params: unknown }).params);
    await expect.poll(setOptions, { timeout: 120_000 }).toEqual([
      { sessionId: 'sess-1', configId: 'model', value: 'smart' }, { sessionId: 'sess-1', configId: 'verbose', type: 'boolean', value: false }]);
    let snap: ConsoleSnapshot;

    await prompt(page, 'remember me');
    await page.getByRole('article', { name: /^Turn at/ }).getByText('echo: remember me').waitFor({ timeout: 120_000 });
    await page.getByRole('button', { name: 'Close session' }).click();
    await picker.waitFor({ state: 'detached' });
    // Load it again by its id: the agent streams its history back, and the session is the console's again.
    await page.getByRole('textbox', { name: 'session id' }).fill('sess-1');
    await page.getByRole('button', { name: 'Load', exact: true }).click();
    await page.locator('.timeline .row', { hasText: 'user_message_chunk' }).waitFor({ timeout: 120_000 });
    // The timeline beside shows the recording, the controls the console's state: either may be first.
    await expect.poll(() => picker.inputValue(), { timeout: 120_000 }).toBe('sess-1');
    await expect.poll(() => model.inputValue(), { timeout: 120_000 }).toBe('smart');
    // A second session, then the list: delete one from it.
    await page.getByRole('button', { name: 'New session' }).click();
    await expect.poll(() => picker.inputValue(), { timeout: 120_000 }).toBe('sess-2');
    await page.getByRole('button', { name: 'List sessions' }).click();
    const listed = page.getByRole('list', { name: 'Listed sessions' });
    await listed.getByText('title of sess-2').waitFor();
    await listed.getByRole('listitem').filter({ hasText: 'sess-2' }).getByRole('button', { name: 'delete' }).click();
    await listed.getByText('title of sess-2').waitFor({ state: 'detached' });
    await expect.poll(() => picker.inputValue(), { timeout: 120_000 }).toBe('sess-1');
    await expect.poll(() => picker.locator('option').count(), { timeout: 120_000 }).toBe(1);
    // Resume the closed first session from the list: no history streamed this time.
    await page.getByRole('button', { name: 'Close session' }).click();
    await picker.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'List sessions' }).click();
    await listed.getByRole('listitem').filter({ hasText: 'sess-1' }).getByRole('button', { name: 'resume' }).click();
    await expect.poll(() => picker.inputValue(), { timeout: 120_000 }).toBe('sess-1');
    snap = (await c.api<ConsoleSnapshot>('/api/console')).json;
    const sentReqs = snap.frames.filter((f) => f.dir === 'c2a' && f.kind === 'request').map((f) => f.method);
    expect(sentReqs.filter((m) => /^session\/(load|resume|delete|list)$/.test(m!))).toEqual(['session/load', 'session/list', 'session/delete', 'session/list', 'session/resume']);
    expect(snap.frames.filter((f) => f.raw.includes('"user_message_chunk"'))).toHaveLength(1);
    expect(snap.frames.filter((f) => f.dir === 'a2c' && f.kind === 'error')).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
    expect(await c.stop()).toBe(0);
  });

  it('shows a terminal\'s output in its tool call while the command runs, then its exit status, still after the agent released it', async () => {
    const work = realpathSync(mkdtempSync(join(tmp.dir, 'watch-')));
    const c = await startConsole(['--db', join(tmp.dir, 'watch.sqlite'), '--cwd', work, '--', process.execPath, AGENT]);
    consoles.push(c);
    const errors: string[] = [];
    const page = await open(c, errors);
    await switchTerminalsOn(page);
    await page.getByRole('checkbox', { name: 'terminal', exact: true }).check();
    await connect(page);
    await prompt(page, 'watch terminal');
    const turn = page.getByRole('article', { name: /^Turn at/ }).last();
    const term = turn.getByRole('group', { name: /^Terminal term-\d+$/ });
    await term.getByText('step one').waitFor({ timeout: 120_000 });
    // The command waits for a file: it is still running, its first line shown, no exit yet.
    expect(await term.getByRole('status').textContent()).toBe('running…');
    expect(await term.locator('pre').textContent()).toBe('step one\n');
    writeFileSync(join(work, 'go'), '');
    await term.getByText('exited 3').waitFor({ timeout: 120_000 });
    await expect.poll(() => term.locator('pre').textContent(), { timeout: 120_000 }).toBe('step one\nstep two\n');
    // The agent released it and ended the turn: its output and exit are still shown.
    await turn.getByText('the command exited 3').waitFor({ timeout: 120_000 });
    await turn.locator('.pill', { hasText: 'end_turn' }).waitFor({ timeout: 120_000 });
    const snap = (await c.api<ConsoleSnapshot>('/api/console')).json;
    expect(snap.frames.some((f) => f.dir === 'a2c' && f.method === 'terminal/release')).toBe(true);
    expect(await term.locator('pre').textContent()).toBe('step one\nstep two\n');
    expect(await term.getByRole('status').textContent()).toBe('exited 3');
    expect(snap.terminals).toEqual([{ terminalId: expect.stringMatching(/^term-\d+$/), output: 'step one\nstep two\n', truncated: false, exit: { exitCode: 3, signal: null } }]);
    expect(errors).toEqual([]);
    await page.context().close();
    expect(await c.stop()).toBe(0);
  });

  it('cancels a running terminal auth method from the page: its whole process group ends, and it is not authenticated', async () => {
    const work = realpathSync(mkdtempSync(join(tmp.dir, 'slow-login-')));
    const { c, page, errors } = await started('auth-cancel', work, AGENT, ['auth.terminal']);
    await page.getByRole('button', { name: 'Slow login (terminal)' }).click();
    await page.getByRole('group', { name: 'Run terminal auth method Slow login?' }).getByRole('button', { name: 'Run it' }).click();
    await page.getByText('terminal auth slow: running…').waitFor({ timeout: 120_000 });
    // The login started a helper process of its own (same process group).
    const pidFile = join(work, 'login-helper.pid');
    await expect.poll(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '', { timeout: 120_000 }).toBe(true);
    const helper = Number(readFileSync(pidFile, 'utf8'));
    expect(running(helper)).toBe(true);
    const cancel = page.getByRole('button', { name: 'Cancel terminal auth' });
    await cancel.focus();
    await page.keyboard.press('Enter');
    await page.getByText('terminal auth slow: cancelled: not authenticated').waitFor({ timeout: 120_000 });
    await cancel.waitFor({ state: 'detached' });
    await page.getByText(/terminal auth method "Slow login" was cancelled \(its process group ended by SIGTERM\): not authenticated/).waitFor();
    await expect.poll(() => running(helper), { timeout: 120_000 }).toBe(false);
    expect((await c.api<ConsoleSnapshot>('/api/console')).json.status.authRun).toEqual({ methodId: 'slow', state: 'done', exitCode: null, signal: 'SIGTERM', cancelled: true });
    // Nothing runs now: a second cancel is refused.
    expect((await c.api('/api/console/terminal-auth/cancel', {})).status).toBe(409);
    expect(errors).toEqual([]);
    await page.context().close();
    expect(await c.stop()).toBe(0);
  });

  it('composes a raw message from the protocol\'s schema: methods suggested, a skeleton picked with the keys, live warnings that do not block a send', async () => {
    const { c, page, errors } = await started('compose', tmp.dir, AGENT);
    const raw = page.getByLabel('Raw JSON-RPC message (Ctrl/⌘+Enter sends)');
    const methods = page.getByRole('listbox', { name: 'Protocol methods' });
    const notes = page.getByRole('list', { name: /^What the schema says/ });
    await raw.focus();
    // Typing a method's name in the empty box offers the methods a client sends; UNSTABLE ones say so.
    await page.keyboard.type('fork');
    await methods.getByRole('option', { name: /^session\/fork request · UNSTABLE/ }).waitFor();
    await page.keyboard.press('Escape');
    await methods.waitFor({ state: 'detached' });
    await raw.fill('');
    await page.keyboard.type('session/c');
    await methods.getByRole('option', { name: /^session\/close request/ }).waitFor();
    // The list for what was typed before may show a moment before the list for "session/c".
    await expect.poll(async () => (await methods.getByRole('option').allTextContents()).map((t) => t.split(' ')[0])).toEqual(['session/close', 'session/cancel']);
    // Arrow down to the notification and Tab: its skeleton, the session's id filled in, no id.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Tab');
    await expect.poll(async () => (await raw.inputValue()).includes('session/cancel'), { timeout: 120_000 }).toBe(true);
    expect(JSON.parse(await raw.inputValue())).toEqual({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 'sess-1' } });
    // A request: Enter picks it; its required params from the schema and a fresh id.
    await raw.fill('');
    await page.keyboard.type('prompt');
    await methods.getByRole('option', { name: /^session\/prompt request/ }).waitFor();
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await raw.inputValue()).includes('session/prompt'), { timeout: 120_000 }).toBe(true);
    const msg = JSON.parse(await raw.inputValue()) as { id: number; params: unknown };
    expect(msg).toEqual({ jsonrpc: '2.0', id: msg.id, method: 'session/prompt', params: { sessionId: 'sess-1', prompt: [] } });
    let snap = (await c.api<ConsoleSnapshot>('/api/console')).json;
    expect(snap.frames.filter((f) => f.dir === 'c2a' && f.kind === 'request').map((f) => f.id)).not.toContain(msg.id);
    await notes.waitFor({ state: 'detached' });
    // Live warnings under the box: a wrong type, a missing field, an unknown method, not JSON.
    await raw.fill(JSON.stringify({ ...msg, params: { sessionId: 7, prompt: [] } }));
    await notes.getByText('params.sessionId must be string').waitFor();
    await raw.fill(JSON.stringify({ ...msg, params: { sessionId: 'sess-1' } }));
    await notes.getByText("params must have required property 'prompt'").waitFor();
    await raw.fill('{"jsonrpc":"2.0","id":5,"method":"session/promt","params":{}}');
    await notes.getByText(/^⚠ unknown method session\/promt/).waitFor();
    await raw.fill('{"jsonrpc":"2.0","id":5,');
    await notes.getByText(/^⚠ not JSON/).waitFor();
    // Inside "method", a pick replaces the name only.
    await raw.fill('{"jsonrpc":"2.0","id":61,"method":"sess","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":"hand-made"}]}}');
    await raw.evaluate((el: HTMLTextAreaElement, at: number) => el.setSelectionRange(at, at), '{"jsonrpc":"2.0","id":61,"method":"sess'.length);
    await page.keyboard.type('ion/pro');
    await methods.getByRole('option', { name: /^session\/prompt/ }).waitFor();
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await raw.inputValue()).includes('"session/prompt"'), { timeout: 120_000 }).toBe(true);
    expect(JSON.parse(await raw.inputValue())).toMatchObject({ id: 61, method: 'session/prompt', params: { prompt: [{ text: 'hand-made' }] } });
    await notes.waitFor({ state: 'detached' });
    await raw.press('Control+Enter');
    await page.getByRole('article', { name: /^Turn at/ }).getByText('echo: hand-made').waitFor({ timeout: 120_000 });
    // Invalid on purpose: the warning stays, the send goes as written and is recorded so.
    const bad = JSON.stringify({ jsonrpc: '2.0', id: 62, method: 'session/prompt', params: { sessionId: 'sess-1', prompt: [{ type: 'text' }] } });
    await raw.fill(bad);
    await notes.getByText("⚠ params.prompt[0] must have required property 'text'").waitFor();
    await page.getByRole('button', { name: 'Send raw anyway' }).click();
    await expect.poll(async () => (await c.api<ConsoleSnapshot>('/api/console')).json.frames.some((f) => f.dir === 'c2a' && f.raw === bad), { timeout: 120_000 }).toBe(true);
    snap = (await c.api<ConsoleSnapshot>('/api/console')).json;
    const id = snap.status.recordingId!;
    await expect.poll(async () => (await c.api<{ rows: { seq: number }[] }>(`/api/recordings/${id}/items?q=${encodeURIComponent('method:session/prompt kind:request')}`)).json.rows.length, { timeout: 120_000 }).toBe(2);
    const badSeq = (await c.api<{ rows: { seq: number }[] }>(`/api/recordings/${id}/items?q=${encodeURIComponent('method:session/prompt kind:request')}`)).json.rows[1]!.seq;
    expect(errors).toEqual([]);
    await page.context().close();
    expect(await c.stop()).toBe(0);
    const check = await cli(['check', String(snap.status.recordingId), '--db', join(tmp.dir, 'compose.sqlite'), '--json']);
    const found = check.stdout.toString().trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { message: string; seq: number });
    // The checker judges it like any other frame: its finding is pinned to it.
    expect(found.some((f) => f.seq === badSeq && f.message.includes("required property 'text'"))).toBe(true);
  });

  it('cancels a running prompt with its $/cancel_request button: the agent answers it -32800, once', async () => {
    const { c, page, errors } = await started('cancel-request', tmp.dir, AGENT);
    await prompt(page, 'slow');
    const turn = page.getByRole('article', { name: /^Turn at/ }).last();
    await turn.locator('.md', { hasText: 'chunk 2' }).waitFor({ timeout: 120_000 });
    const button = page.getByRole('button', { name: /^\$\/cancel_request \d+$/ });
    const id = Number((await button.textContent())!.split(' ')[1]);
    await button.focus();
    await page.keyboard.press('Enter');
    await button.waitFor({ state: 'detached', timeout: 120_000 });
    await page.getByText('turn running…').waitFor({ state: 'detached' });
    // Let the agent's slow loop see the cancel and stop (it must not answer the prompt again).
    await page.locator('.timeline .row', { has: page.locator('.c-method', { hasText: '$/cancel_request' }) }).waitFor({ timeout: 120_000 });
    await prompt(page, 'after');
    await page.getByRole('article', { name: /^Turn at/ }).getByText('echo: after').waitFor({ timeout: 120_000 });
    const snap = (await c.api<ConsoleSnapshot>('/api/console')).json;
    const cancel = snap.frames.find((f) => f.dir === 'c2a' && f.method === '$/cancel_request')!;
    expect((cancel.json as { params: unknown }).params).toEqual({ requestId: id });
    const answers = snap.frames.filter((f) => f.dir === 'a2c' && f.id === id && (f.kind === 'result' || f.kind === 'error'));
    expect(answers).toHaveLength(1);
    expect(answers[0]!.raw).toContain('-32800');
    expect(snap.frames.indexOf(answers[0]!)).toBeGreaterThan(snap.frames.indexOf(cancel));
    expect(errors).toEqual([]);
    await page.context().close();
    expect(await c.stop()).toBe(0);
  });
});
