/**
 * The browser the UI tests drive: Debian's chromium (or any Chromium/Chrome named by
 * ACP_INSPECT_CHROMIUM) through playwright-core, which never downloads a browser of its own.
 *
 * On a machine without one the browser suites are skipped, with one loud line saying what was
 * skipped and how to run them. Where they must run (CI, or ACP_INSPECT_REQUIRE_BROWSER=1) a
 * missing browser fails the suite instead: CI never skips them silently.
 */
import { existsSync } from 'node:fs';
import { describe } from 'vitest';
import { chromium, type Browser } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

/** The browser's path, or undefined when none is installed. */
export const CHROMIUM: string | undefined = process.env.ACP_INSPECT_CHROMIUM || CANDIDATES.find((p) => existsSync(p));

/** True when the UI tests can run here. */
export const BROWSER_AVAILABLE = !!CHROMIUM && existsSync(CHROMIUM);

/** True where a missing browser is a failure, not a skip. */
export const BROWSER_REQUIRED = process.env.ACP_INSPECT_REQUIRE_BROWSER === '1' || (process.env.CI === 'true' && process.env.ACP_INSPECT_REQUIRE_BROWSER !== '0');

const HOW = "install Debian's chromium (apt-get install -y chromium) or set ACP_INSPECT_CHROMIUM to a Chromium/Chrome binary";

/** `describe` for a browser suite: skipped loudly without a browser, failing where one is required. */
export function describeBrowser(name: string, fn: () => void): void {
  if (BROWSER_AVAILABLE) {
    describe(name, fn);
    return;
  }
  if (BROWSER_REQUIRED) {
    describe(name, () => {
      throw new Error(`no browser for the UI tests (CI requires them): ${HOW}`);
    });
    return;
  }
  process.stderr.write(`\n!!! SKIPPED browser suite "${name}": no Chromium found; to run it, ${HOW}\n\n`);
  describe.skip(name, fn);
}

/**
 * How long a page's actions and navigations may wait before they fail. They guard against a hang,
 * not a time: playwright's own 30 s was passed by pages on a 2-core machine loaded by another run.
 */
const PAGE_WAIT_MS = 120_000;

/** Launches the browser headless, with the flags this machine's closed network needs. */
export async function launchBrowser(): Promise<Browser> {
  if (!CHROMIUM) throw new Error(`no browser: ${HOW}`);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
  });
  // Every context (newPage makes one through newContext) gets the longer wait.
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext(options);
    context.setDefaultTimeout(PAGE_WAIT_MS);
    context.setDefaultNavigationTimeout(PAGE_WAIT_MS);
    return context;
  };
  return browser;
}
