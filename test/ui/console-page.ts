/** Driving the console's page in the browser tests: open it, connect (initialize, a new session), prompt. */
import type { Browser, Page } from 'playwright-core';
import type { RunningConsole } from '../console/start-console.js';

/** Opens a console's page in a fresh context; dialogs are accepted, page errors collected into `errors`. */
export async function openConsole(browser: Browser, c: RunningConsole, errors: string[], width = 1500): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage();
  page.on('dialog', (d) => void d.accept());
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(c.url);
  await page.getByRole('heading', { name: 'Console' }).waitFor();
  return page;
}

/** Initialize with the ticked capabilities, then a new session. */
export async function connect(page: Page, timeout = 120_000): Promise<void> {
  await page.getByRole('button', { name: 'Initialize' }).click();
  await page.getByLabel("The agent's answer").waitFor({ timeout });
  await page.getByRole('button', { name: 'New session' }).click();
  await page.getByRole('combobox', { name: 'session' }).waitFor({ timeout });
}

/** Types a prompt and sends it with Ctrl+Enter. */
export async function prompt(page: Page, text: string): Promise<void> {
  const box = page.getByLabel('Prompt text (Ctrl/⌘+Enter sends)');
  await box.fill(text);
  await box.press('Control+Enter');
}

/**
 * Switches the console's terminals on (the page asks to confirm: openConsole's pages accept) and
 * waits until the console has them on. A click, not check(): the box shows the console's value, so
 * it may turn back until the console answers (check() fails when it sees that).
 */
export async function switchTerminalsOn(page: Page): Promise<void> {
  await page.getByRole('checkbox', { name: 'terminals' }).click();
  // The terminal capability can be ticked once the console's state says terminals are on.
  await page.getByRole('checkbox', { name: 'terminal', exact: true }).and(page.locator(':enabled')).waitFor();
}
