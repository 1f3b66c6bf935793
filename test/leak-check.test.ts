/**
 * The end-of-run check (test/leak-check.ts) on a run of its own: a test that leaves a process and a
 * temp folder fails the run, with both named, and neither is left; a run that leaves nothing passes
 * (SQLite's temp file of a killed process is named, not counted).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, run, tempDir } from './helpers.js';

const t = tempDir('acp-leak-check-');
afterAll(() => t.cleanup());

/** Whether `pid` runs (a zombie, killed but not yet reaped by whoever adopted it, does not). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

/** Runs vitest over `source` as the one test file of a project in a folder of its own, with the check as its global setup. */
async function runProject(name: string, source: string) {
  const dir = join(t.dir, name);
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp, { recursive: true });
  writeFileSync(join(dir, 'case.test.ts'), source);
  writeFileSync(join(dir, 'vitest.config.mjs'), `export default { test: { include: ['case.test.ts'], globals: true, globalSetup: [${JSON.stringify(join(ROOT, 'test', 'leak-check.ts'))}] } };\n`);
  const r = await run(process.execPath, [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--root', dir, '--config', join(dir, 'vitest.config.mjs')], {
    cwd: dir, env: { TMPDIR: tmp, ACP_INSPECT_LEAK_WAIT_MS: '300', FORCE_COLOR: '0' }, timeoutMs: 120_000,
  });
  return { ...r, tmp };
}

describe('the end-of-run check', () => {
  it('fails a run that leaves a process and a temp folder, names both, and leaves neither', async () => {
    const r = await runProject('leaky', `
      const { spawn } = require('node:child_process');
      const { mkdtempSync } = require('node:fs');
      const { join } = require('node:path');
      const { tmpdir } = require('node:os');
      it('leaks', () => {
        const p = spawn('sleep', ['1000'], { detached: true, stdio: 'ignore' });
        p.unref();
        mkdtempSync(join(tmpdir(), 'left-'));
      });
    `);
    const said = r.stderr.split('\n').filter((l) => l.startsWith('leak check:'));
    expect(r.code, r.stderr).toBe(1);
    expect(said.some((l) => /^leak check: process \d+ still running .* \(killed\): sleep 1000$/.test(l)), said.join('\n')).toBe(true);
    expect(said.some((l) => /^leak check: left in the run's temp folder \(removed\): .*\/acp-inspect-run-[^/]+\/left-/.test(l)), said.join('\n')).toBe(true);
    expect(r.stderr).toContain('so it fails');
    // The process was killed and the run's folder removed.
    const pid = Number(/process (\d+) still running/.exec(r.stderr)![1]);
    expect(running(pid)).toBe(false);
    expect(readdirSync(r.tmp)).toEqual([]);
  });

  it('passes a run that ends what it starts and removes what it makes', async () => {
    const r = await runProject('clean', `
      const { spawn } = require('node:child_process');
      const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
      const { join } = require('node:path');
      const { tmpdir } = require('node:os');
      it('cleans up', async () => {
        const p = spawn('sleep', ['1000'], { stdio: 'ignore' });
        const gone = new Promise((r) => p.once('exit', r));
        p.kill();
        await gone;
        rmSync(mkdtempSync(join(tmpdir(), 'made-')), { recursive: true });
        // What SQLite leaves of a process killed between creating its temp file and unlinking it.
        writeFileSync(join(tmpdir(), 'etilqs_9e978f4f5bcb49ac'), 'x');
      });
    `);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('leak check:');
    expect(r.stderr).toContain('not counted as left behind: 1 SQLite temp file(s) (etilqs_9e978f4f5bcb49ac) of processes killed');
    expect(readdirSync(r.tmp)).toEqual([]);
  });
});
