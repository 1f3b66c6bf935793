/**
 * `npm run screenshots` makes every picture the README and the docs show, from a real session, and
 * nothing else: run once into a scratch folder, it writes exactly the PNGs the pages link to
 * (docs/*.png), each of the size the docs show, and it ends the server it started.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BROWSER_AVAILABLE, describeBrowser } from '../browser.js';
import { ROOT, docPages, run, tempDir } from '../helpers.js';

let t: ReturnType<typeof tempDir>;
let result: Awaited<ReturnType<typeof run>>;

beforeAll(async () => {
  if (!BROWSER_AVAILABLE) return;
  t = tempDir('acp-inspect-shots-test-');
  result = await run(process.execPath, [join(ROOT, 'scripts', 'screenshots.js'), '--out', t.dir], { timeoutMs: 170_000 });
});

afterAll(() => t?.cleanup());

/** Width and height of a PNG, from its IHDR chunk. */
const pngSize = (file: string) => { const b = readFileSync(file); return [b.readUInt32BE(16), b.readUInt32BE(20)]; };

describeBrowser('npm run screenshots', () => {
  it('writes every picture the README and the docs link to, and only those', () => {
    expect(result.code, result.stderr.toString()).toBe(0);
    const made = readdirSync(t.dir).filter((f) => f.endsWith('.png')).sort();
    const linked = [...new Set(docPages().flatMap(({ file, text }) => [...text.matchAll(/!\[[^\]]*\]\(([^)]+\.png)\)/g)].map((m) => join(file === 'README.md' ? '' : 'docs', m[1]!).replace(/^docs\//, ''))))].sort();
    expect(made).toEqual(linked);
    expect(readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.png')).sort()).toEqual(made);
    for (const f of made) expect(pngSize(join(t.dir, f))[0], f).toBe(1280);
  });

  it('ends the server it started and removes its scratch database', () => {
    const m = /serving \S+ \(pid (\d+)\) over (\S+)/.exec(result.stderr.toString());
    expect(m, result.stderr.toString()).not.toBeNull();
    expect(() => process.kill(Number(m![1]), 0)).toThrow(/ESRCH/);
    expect(existsSync(m![2]!)).toBe(false);
  });
});
