/**
 * The console against a real agent: claude-agent-acp, pointed at a scripted stand-in for the model
 * API (test/real-peers/harness/scripted-anthropic.mjs), with a home of its own. In a real browser:
 * initialize, a session, a prompt whose turn asks a permission (its Write), answered inline; then a
 * prompt whose text streams slowly, cancelled mid-way. The recording then checks like any other.
 *
 * The agent is found by ACP_INSPECT_CLAUDE_AGENT_ACP (its `claude-agent-acp` binary) or on PATH.
 * Without it the suite is skipped with one loud line saying how to run it; with
 * ACP_INSPECT_REQUIRE_REAL_AGENT=1 a missing agent fails instead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Browser } from 'playwright-core';
import { BROWSER_AVAILABLE, describeBrowser, launchBrowser } from '../browser.js';
import { cli, ROOT, tempDir, endAll } from '../helpers.js';
import { startConsole, type RunningConsole } from '../console/start-console.js';
import { connect, openConsole, prompt } from './console-page.js';
import type { ConsoleSnapshot } from '../../src/console/contract.js';

const NAME = 'claude-agent-acp';
const HOW = `install it (npm install @agentclientprotocol/claude-agent-acp@0.49.0 in a folder of its own) and set ACP_INSPECT_CLAUDE_AGENT_ACP to its node_modules/.bin/${NAME}, or put ${NAME} on PATH`;
const AGENT_BIN = process.env.ACP_INSPECT_CLAUDE_AGENT_ACP
  || (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((d) => join(d, NAME)).find((p) => existsSync(p));
const FOUND = !!AGENT_BIN && existsSync(AGENT_BIN);

function describeRealAgent(name: string, fn: () => void): void {
  if (FOUND) return describeBrowser(name, fn);
  if (process.env.ACP_INSPECT_REQUIRE_REAL_AGENT === '1') {
    describe(name, () => { throw new Error(`${NAME} not found (ACP_INSPECT_REQUIRE_REAL_AGENT=1): ${HOW}`); });
    return;
  }
  process.stderr.write(`\n!!! SKIPPED real-agent suite "${name}": ${NAME} not found; to run it, ${HOW}\n\n`);
  describe.skip(name, fn);
}

let tmp: ReturnType<typeof tempDir>;
let browser: Browser;
let fake: ChildProcess | null = null;
let fakeExit: Promise<unknown> = Promise.resolve();
let c: RunningConsole | null = null;
const pageErrors: string[] = [];

beforeAll(async () => {
  if (!FOUND || !BROWSER_AVAILABLE) return;
  tmp = tempDir('acp-inspect-console-real-');
  browser = await launchBrowser();
});

afterAll(() => endAll(
  () => c?.stop(),
  async () => {
    if (fake && fake.exitCode === null) fake.kill('SIGTERM');
    await fakeExit;
  },
  () => browser?.close(),
  () => tmp?.cleanup(),
));

describeRealAgent('the console driving a real agent (claude-agent-acp, a scripted model)', () => {
  it('prompts, answers a permission inline, and cancels a turn mid-stream', async () => {
    const project = join(tmp.dir, 'project');
    const home = join(tmp.dir, 'home');
    mkdirSync(project);
    mkdirSync(home);
    mkdirSync(join(tmp.dir, 'agent-tmp'));
    writeFileSync(join(project, 'README.md'), '# Demo\n');
    // The scripted model server on a free port (its first line names it).
    fake = spawn(process.execPath, [join(ROOT, 'test', 'real-peers', 'harness', 'scripted-anthropic.mjs'), '0'], {
      env: { ...process.env, SCRIPTED_PROJECT: project }, stdio: ['ignore', 'ignore', 'pipe'],
    });
    fakeExit = new Promise((r) => fake!.once('exit', r));
    const port = await new Promise<string>((resolve, reject) => {
      let err = '';
      fake!.stderr!.on('data', (d: Buffer) => { err += d.toString(); const m = /fake anthropic on (\d+)/.exec(err); if (m) resolve(m[1]!); });
      void fakeExit.then(() => reject(new Error(`the scripted model server exited: ${err}`)));
    });
    c = await startConsole(['--db', join(tmp.dir, 'real.sqlite'), '--cwd', project, '--', AGENT_BIN!], {
      HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local', 'share'), XDG_CACHE_HOME: join(home, '.cache'), XDG_STATE_HOME: join(home, '.local', 'state'),
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`, ANTHROPIC_API_KEY: 'sk-fake', DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      TMPDIR: join(tmp.dir, 'agent-tmp'), ...(process.getuid?.() === 0 ? { IS_SANDBOX: '1' } : {}),
    });
    const page = await openConsole(browser, c, pageErrors);
    // A real agent on a loaded machine: its frames are big and many; give every action time.
    page.setDefaultTimeout(120_000);
    await connect(page, 120_000);
    await expect.poll(() => page.getByLabel("The agent's answer").textContent()).toMatch(/claude/i);

    // A turn that reads, lists and writes: the write waits on its permission, answered inline.
    await prompt(page, 'Write some notes.');
    const perm = page.getByRole('article', { name: /session\/request_permission/ });
    await perm.waitFor({ timeout: 120_000 });
    await perm.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.getByText('stop reason: end_turn').waitFor({ timeout: 120_000 });
    await page.getByRole('article', { name: /^Turn at/ }).last().getByText(/All done/).waitFor({ timeout: 120_000 });
    expect(readFileSync(join(project, 'NOTES.md'), 'utf8')).toBe('notes\n');

    // A slow turn, cancelled mid-stream from the keyboard.
    await prompt(page, 'Tell me something slow.');
    const turn = page.getByRole('article', { name: /^Turn at/ }).last();
    await turn.getByText(/word3/).waitFor({ timeout: 120_000 });
    await page.getByRole('button', { name: 'Cancel turn' }).focus();
    await page.keyboard.press('Enter');
    await page.getByText('turn running…').waitFor({ state: 'detached', timeout: 120_000 });

    const snap = (await c.api<ConsoleSnapshot>('/api/console')).json;
    const asked = snap.frames.filter((f) => f.dir === 'a2c' && f.kind === 'request' && f.method === 'session/request_permission');
    expect(asked).toHaveLength(1);
    const answer = snap.frames.find((f) => f.dir === 'c2a' && f.kind === 'result' && JSON.stringify(f.id) === JSON.stringify(asked[0]!.id))!;
    expect(JSON.parse(answer.raw)).toMatchObject({ result: { outcome: { outcome: 'selected', optionId: 'allow' } } });
    expect(pageErrors).toEqual([]);
    // The cancel went out during the second turn, and that turn was answered after it.
    const prompts = snap.frames.filter((f) => f.dir === 'c2a' && f.kind === 'request' && f.method === 'session/prompt');
    expect(prompts).toHaveLength(2);
    const cancelAt = snap.frames.findIndex((f) => f.dir === 'c2a' && f.method === 'session/cancel');
    const stopAt = snap.frames.findIndex((f) => f.dir === 'a2c' && f.kind === 'result' && f.id === prompts[1]!.id);
    expect(cancelAt).toBeGreaterThan(snap.frames.indexOf(prompts[1]!));
    expect(stopAt).toBeGreaterThan(cancelAt);
    const stopReason = (snap.frames[stopAt]!.json as { result: { stopReason: string } }).result.stopReason;
    const id = snap.status.recordingId!;
    expect(await c.stop()).toBe(0);
    c = null;
    // The recording checks like any other: the checker's cancel verdict agrees with the stop reason
    // the agent gave, and no other error-level finding.
    const check = await cli(['check', String(id), '--db', join(tmp.dir, 'real.sqlite'), '--json']);
    const found = check.stdout.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { severity: string; rule: string; seq: number });
    expect(found.some((f) => f.rule === 'cancel-stop-reason')).toBe(stopReason !== 'cancelled');
    expect(found.filter((f) => f.severity === 'error' && f.rule !== 'cancel-stop-reason')).toEqual([]);
  });
});
