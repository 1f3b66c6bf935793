/** `acp-inspect serve` as a user runs it: the real binary, one URL line on stdout, errors on one line. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeDb } from './fixture.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = join(root, 'bin', 'acp-inspect.js');
let db: ReturnType<typeof makeDb>;

beforeAll(() => {
  if (!existsSync(join(root, 'dist', 'src', 'cli', 'main.js'))) throw new Error('the CLI is not built: run `npx tsc -p tsconfig.json` first');
  db = makeDb();
});
afterAll(() => db.cleanup());

/** Starts `serve`, resolves with the first stdout line and a stopper. */
function serve(args: string[], env?: NodeJS.ProcessEnv): Promise<{ url: string; stderr: () => string; stop: () => Promise<number | null>; stderrMatches: (re: RegExp) => Promise<string> }> {
  const child = spawn(process.execPath, [bin, 'serve', '--db', db.dbPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) {
        resolve({
          url: out.split('\n')[0]!, stderr: () => err,
          stderrMatches: (re) => new Promise((ok) => {
            const look = () => {
              if (!re.test(err)) return;
              child.stderr.off('data', look);
              ok(err);
            };
            child.stderr.on('data', look);
            look();
          }),
          stop: () => new Promise((r) => { child.once('exit', (code) => r(code)); child.kill('SIGTERM'); }),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
}

describe('acp-inspect serve', () => {
  it('--open with no browser to open says so, with the URL to open by hand', async () => {
    // An opener that finds no browser, as xdg-open on a machine without one: it only exits non-zero.
    const bins = mkdtempSync(join(tmpdir(), 'acp-inspect-open-'));
    for (const name of ['xdg-open', 'open']) {
      writeFileSync(join(bins, name), '#!/bin/sh\necho "no method available" >&2\nexit 3\n');
      chmodSync(join(bins, name), 0o755);
    }
    const a = await serve(['--port', '0', '--open'], { PATH: `${bins}:${process.env.PATH}` });
    try {
      const err = await a.stderrMatches(/could not open/);
      expect(err).toContain(`acp-inspect: could not open a browser (${process.platform === 'darwin' ? 'open' : 'xdg-open'}); open ${a.url} yourself\n`);
      expect(err).not.toContain('no method available');
    } finally {
      expect(await a.stop()).toBe(0);
      rmSync(bins, { recursive: true, force: true });
    }
  });

  it('prints exactly the URL with a fresh token, and the URL opens the UI', async () => {
    const a = await serve(['--port', '0']);
    const b = await serve(['--port', '0']);
    try {
      expect(a.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{20,}$/);
      expect(new URL(a.url).searchParams.get('token')).not.toBe(new URL(b.url).searchParams.get('token'));
      const res = await fetch(a.url, { redirect: 'manual' });
      expect(res.status).toBe(302);
      const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
      const page = await fetch(new URL('/', a.url), { headers: { cookie } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="app">');
      const list = await fetch(new URL('/api/recordings', a.url), { headers: { cookie } });
      expect(((await list.json()) as unknown[]).length).toBe(1);
      expect((await fetch(new URL('/api/recordings', a.url))).status).toBe(401);
    } finally {
      expect(await a.stop()).toBe(0);
      await b.stop();
    }
  });

  it('listens on the port asked for, and only on the loopback address', async () => {
    const a = await serve(['--port', '0']);
    const port = Number(new URL(a.url).port);
    await a.stop();
    const c = await serve(['--port', String(port)]);
    try {
      expect(new URL(c.url).port).toBe(String(port));
      expect(c.stderr()).not.toContain('warning');
    } finally {
      await c.stop();
    }
  });

  it('warns when --host widens where it listens', async () => {
    const a = await serve(['--port', '0', '--host', '0.0.0.0']);
    try {
      expect(a.stderr()).toMatch(/warning: listening on 0\.0\.0\.0/);
      expect(a.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/);
    } finally {
      await a.stop();
    }
  });

  it('explains a bad or busy port in one line', async () => {
    const bad = spawnSync(process.execPath, [bin, 'serve', '--db', db.dbPath, '--port', 'abc'], { encoding: 'utf8' });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('--port');
    const a = await serve(['--port', '0']);
    try {
      const busy = spawnSync(process.execPath, [bin, 'serve', '--db', db.dbPath, '--port', new URL(a.url).port], { encoding: 'utf8' });
      expect(busy.status).not.toBe(0);
      expect(busy.stdout).toBe('');
      expect(busy.stderr.trim().split('\n')).toHaveLength(1);
      expect(busy.stderr).toMatch(/in use/);
    } finally {
      await a.stop();
    }
  });
});
