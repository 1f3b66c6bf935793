/**
 * Prompt attachments from the console's folder: the `@` listing stays inside the folder (symlinks out
 * are neither listed nor followed, `.git` and `node_modules` are not walked, the walk is bounded), and
 * the blocks a picked file becomes (resource link, embedded text or blob, image/audio) are refused
 * outside the folder and over their size limits. Over real HTTP against the real binary too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PEERS, tempDir } from '../helpers.js';
import { startConsole } from './start-console.js';
import { attachment, EMBED_LIMIT, listFiles, LIST_SCAN_LIMIT } from '../../src/console/attach.js';

let tmp: ReturnType<typeof tempDir>;
let root: string;

beforeAll(() => {
  tmp = tempDir('acp-inspect-console-attach-');
  root = join(tmp.dir, 'root');
  mkdirSync(join(root, 'src', 'deep'), { recursive: true });
  mkdirSync(join(root, '.git'));
  mkdirSync(join(root, 'node_modules', 'pkg'), { recursive: true });
  mkdirSync(join(tmp.dir, 'secret'));
  writeFileSync(join(tmp.dir, 'secret', 'key.txt'), 'secret');
  writeFileSync(join(root, 'notes.txt'), 'hello notes\n');
  writeFileSync(join(root, 'src', 'deep', 'main.ts'), 'export {};\n');
  writeFileSync(join(root, 'src', 'notes-old.md'), '# old\n');
  writeFileSync(join(root, '.git', 'notes-config'), 'x');
  writeFileSync(join(root, 'node_modules', 'pkg', 'notes.js'), 'x');
  writeFileSync(join(root, 'pic.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]));
  writeFileSync(join(root, 'bin.dat'), Buffer.from([0xff, 0xfe, 0, 1]));
  writeFileSync(join(root, 'big.txt'), 'x'.repeat(EMBED_LIMIT + 1));
  symlinkSync(join(tmp.dir, 'secret'), join(root, 'escape'));
  symlinkSync(join(tmp.dir, 'secret', 'key.txt'), join(root, 'leak.txt'));
  symlinkSync(join(root, 'notes.txt'), join(root, 'notes-link.txt'));
  root = realpathSync(root);
});

afterAll(() => tmp?.cleanup());

describe('the @ listing', () => {
  it('lists files inside the folder only: no symlink out, nothing behind a directory link, not .git or node_modules', async () => {
    const all = (await listFiles(root, '')).files.map((f) => f.path).sort();
    expect(all).toEqual(['big.txt', 'bin.dat', 'notes-link.txt', 'notes.txt', 'pic.png', 'src/deep/main.ts', 'src/notes-old.md']);
    const notes = await listFiles(root, 'NOTES');
    // Names starting with the query first, then by length.
    expect(notes.files.map((f) => f.path)).toEqual(['notes.txt', 'notes-link.txt', 'src/notes-old.md']);
    expect(notes.files[0]).toEqual({ path: 'notes.txt', size: 12, mimeType: 'text/plain' });
    expect(notes.truncated).toBe(false);
  });

  it('stops walking at its bound and says so', async () => {
    const wide = join(tmp.dir, 'wide');
    mkdirSync(wide);
    for (let i = 0; i < 300; i++) writeFileSync(join(wide, `f${i}.txt`), '');
    const r = await listFiles(realpathSync(wide), 'f1', 100);
    expect(r.truncated).toBe(true);
    expect(r.files.length).toBeLessThan(100);
    expect((await listFiles(realpathSync(wide), 'f1', 1000)).truncated).toBe(true); // 111 match: more than 50 returned
    expect((await listFiles(realpathSync(wide), 'f29', 1000))).toMatchObject({ truncated: false, files: { length: 11 } });
    expect(LIST_SCAN_LIMIT).toBe(20_000);
  });
});

describe('an attachment', () => {
  it('becomes a resource link, embedded text or blob, or an image block', async () => {
    const uri = pathToFileURL(join(root, 'notes.txt')).href;
    expect(await attachment(root, 'notes.txt', 'link')).toEqual({ type: 'resource_link', uri, name: 'notes.txt', title: 'notes.txt', mimeType: 'text/plain', size: 12 });
    expect(await attachment(root, 'notes.txt', 'embedded')).toEqual({ type: 'resource', resource: { uri, text: 'hello notes\n', mimeType: 'text/plain' } });
    expect(await attachment(root, 'bin.dat', 'embedded')).toEqual({ type: 'resource', resource: { uri: pathToFileURL(join(root, 'bin.dat')).href, blob: '//4AAQ==' } });
    expect(await attachment(root, 'pic.png', 'image')).toEqual({ type: 'image', data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]).toString('base64'), mimeType: 'image/png' });
    // A link inside the folder is followed to its file.
    expect(await attachment(root, 'notes-link.txt', 'link')).toMatchObject({ uri });
  });

  it('is refused outside the folder, through a symlink out, over its limit, or as a type it is not', async () => {
    const refused = async (path: string, as: string) => attachment(root, path, as).then(() => null, (e: Error & { status: number }) => `${e.status} ${e.message}`);
    expect(await refused('../secret/key.txt', 'embedded')).toMatch(/^400 .*not inside the console's folder/);
    expect(await refused('leak.txt', 'embedded')).toMatch(/^400 .*not inside/);
    expect(await refused('escape/key.txt', 'link')).toMatch(/^400 .*not inside/);
    expect(await refused('/etc/passwd', 'link')).toMatch(/^400 .*relative to the console's folder/);
    expect(await refused('missing.txt', 'link')).toMatch(/^404 /);
    expect(await refused('src', 'link')).toMatch(/^400 src is not a file/);
    expect(await refused('big.txt', 'embedded')).toMatch(/^413 .*attach it as a resource link instead/);
    expect(await refused('notes.txt', 'image')).toMatch(/^400 .*not a known image type/);
    expect(await refused('notes.txt', 'script')).toMatch(/^400 /);
    expect(await attachment(root, 'big.txt', 'link')).toMatchObject({ type: 'resource_link', size: EMBED_LIMIT + 1 });
  });

  it('is served by the console\'s routes, behind its guard', async () => {
    const c = await startConsole(['--db', join(tmp.dir, 'db.sqlite'), '--cwd', root, '--', process.execPath, join(PEERS, 'console-agent.mjs')]);
    try {
      expect((await fetch(`${c.origin}/api/console/files?q=notes`)).status).toBe(401);
      const listed = await c.api<{ files: { path: string }[] }>('/api/console/files?q=key');
      expect(listed).toEqual({ status: 200, json: { files: [], truncated: false } });
      const block = await c.api<{ block: unknown }>('/api/console/attachment', { path: 'notes.txt', as: 'embedded' });
      expect(block.json.block).toMatchObject({ type: 'resource', resource: { text: 'hello notes\n' } });
      const out = await c.api<{ error: string }>('/api/console/attachment', { path: 'leak.txt', as: 'embedded' });
      expect(out.status).toBe(400);
      expect(out.json.error).toContain('not inside');
    } finally {
      expect(await c.stop()).toBe(0);
    }
  });
});
