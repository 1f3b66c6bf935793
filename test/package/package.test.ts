/**
 * The routes the README gives, as a user takes them: the checkout linked with its `npm link` line
 * (into a temporary prefix), and the packed tarball: `npm pack`, then installed with the README's
 * global command into a temporary prefix (one install shared by every check), and as a devDependency of a new project with npm's install scripts
 * skipped, where the tool must degrade and say what to run. Packages come from npm's cache where
 * it has them (--prefer-offline).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { EXAMPLE_AGENT, PEERS, ROOT, readmeCodeBlocks, run, runExampleClient, sh, stopProcess, tempDir } from '../helpers.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const SAMPLE = join(ROOT, 'test', 'replay', 'fixtures', 'sdk-example.jsonl');
const NPM_ENV = { npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_fund: 'false' };
const INSTALL_MS = 10 * 60_000;

const t = tempDir('acp-inspect-pkg-');
afterAll(() => t.cleanup());
let tgz = '';
let files: string[] = [];

const npm = (args: string[], cwd: string, timeoutMs = INSTALL_MS) => run('npm', args, { cwd, env: NPM_ENV, timeoutMs });
const text = (r: { stdout: Buffer; stderr: string }) => r.stdout.toString() + r.stderr;

beforeAll(async () => {
  // `npm test` has just built dist/; pack it as it is (`npm pack` alone would build it again first).
  const r = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', t.dir], ROOT, 120_000);
  expect(r.code, r.stderr).toBe(0);
  const [info] = JSON.parse(r.stdout.toString()) as { filename: string; size: number; unpackedSize: number; files: { path: string }[] }[];
  tgz = join(t.dir, info!.filename);
  files = info!.files.map((f) => f.path);
  console.log(`package: ${info!.filename}, ${(info!.size / 1024).toFixed(0)} KiB packed, ${(info!.unpackedSize / 1024).toFixed(0)} KiB unpacked, ${files.length} files`);
});

describe('the packed tarball', () => {
  it('ships the CLI, the tap bundle, the UI assets and the forwarder source; no tests, sources or databases', () => {
    for (const f of ['bin/acp-inspect.js', 'dist/src/cli/main.js', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/cli/main.bundle.cjs', 'bin/package.json',
      'dist/src/tap/recorder-worker.js', 'dist/ui/index.html', 'native/forward.c', 'native/binding.gyp', 'scripts/build-native.js', 'README.md', 'package.json']) {
      expect(files, f).toContain(f);
    }
    expect(files.some((f) => /^dist\/ui\/assets\/.+\.js$/.test(f))).toBe(true);
    const unwanted = files.filter((f) => /^(test|src|ui|bench|recordings|node_modules|\.ci)\/|^native\/build|\.(sqlite|db)(-wal|-shm)?$|\.test\.|\.tgz$/.test(f));
    expect(unwanted).toEqual([]);
  });

  it('ships every docs page and image the README links to, so its links work where the package is read', () => {
    const linked = [...README.matchAll(/\]\((docs\/[^)#]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!);
    expect(linked.length).toBeGreaterThan(0);
    for (const page of new Set(linked)) expect(files, page).toContain(page);
  });
});

/**
 * better-sqlite3's install script (prebuild-install) installs a prebuilt binary when it finds one for
 * this Node, as it does from GitHub for a user who is online; offline, as here, it compiles SQLite
 * from source instead: minutes of CPU, a compile this checkout's own `npm ci` has just done on this
 * machine. So the script is offered that build as a local prebuild, through prebuild-install's
 * documented `<package>_local_prebuilds` setting: the script still runs, and installs the binary that
 * doctor and the tap then load. Another version of better-sqlite3 finds no prebuild and compiles.
 */
function localSqlitePrebuild(): Record<string, string> {
  const pkgDir = join(ROOT, 'node_modules', 'better-sqlite3');
  const built = join(pkgDir, 'build', 'Release', 'better_sqlite3.node');
  if (!existsSync(built)) return {};
  const { version } = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { version: string };
  const dir = join(t.dir, 'prebuilds');
  mkdirSync(dir, { recursive: true });
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const r = spawnSync('tar', ['-czf', join(dir, name), '-C', pkgDir, 'build/Release/better_sqlite3.node']);
  return r.status === 0 ? { npm_config_better_sqlite3_local_prebuilds: dir } : {};
}

/** The README's lines of its shell examples that start with `prefix`, comments cut off. */
const readmeLines = (prefix: string) => readmeCodeBlocks(README, 'sh').flatMap((b) => b.split('\n'))
  .map((l) => l.replace(/\s+#.*$/, '').trim()).filter((l) => l.startsWith(prefix));

describe('a checkout, with the README\'s commands', () => {
  it('has no install script that npm install would leave uncovered by allowScripts (npm 11 warns of each)', async () => {
    const r = await npm(['install-scripts', 'ls'], ROOT, 60_000);
    expect(r.code, text(r)).toBe(0);
    expect(text(r)).toMatch(/No packages with unreviewed install scripts/);
  });

  it('npm link puts a working acp-inspect on the PATH, quietly', async () => {
    const [link] = readmeLines('npm link');
    expect(link, 'README shows `npm link ...`').toBeDefined();
    const prefix = join(t.dir, 'link-prefix');
    // Into a temporary prefix, not the machine's global one.
    const r = await run('/bin/sh', ['-c', link!], { cwd: ROOT, env: { ...NPM_ENV, npm_config_prefix: prefix }, timeoutMs: 180_000 });
    expect(r.code, text(r)).toBe(0);
    expect(text(r)).not.toMatch(/allowScripts|npm warn/);
    const bin = join(prefix, 'bin', 'acp-inspect');
    const doctor = await run(bin, ['doctor'], { env: { XDG_DATA_HOME: join(t.dir, 'xdg-link'), NO_COLOR: '1' }, cwd: t.dir });
    expect(doctor.code, text(doctor)).toBe(0);
    expect(doctor.stdout.toString()).toMatch(/^ok +native SQLite module \(better-sqlite3\) loads$/m);
  });
});

describe('installed globally with the README command', () => {
  const prefix = join(t.dir, 'prefix');
  const bin = join(prefix, 'bin', 'acp-inspect');
  const db = join(t.dir, 'global.sqlite');
  const env = { XDG_DATA_HOME: join(t.dir, 'xdg'), ACP_INSPECT_DB: db, NO_COLOR: '1' };
  const acp = (args: string[], input?: string) => run(bin, args, { env, input, cwd: t.dir, timeoutMs: 60_000 });
  let install = '';
  let installCode: number | null = null;

  beforeAll(async () => {
    const [line] = readmeLines('npm install -g ').filter((l) => /^npm install -g --allow-scripts=\S+ \.\/acp-inspect-\S+\.tgz$/.test(l));
    expect(line, 'README shows `npm install -g --allow-scripts=... ./acp-inspect-VERSION.tgz`').toBeDefined();
    // The tarball it names is the one `npm pack` writes.
    expect(line!.endsWith(` ./${basename(tgz)}`), line).toBe(true);
    // The README's command as a shell runs it beside the tarball, into a temporary prefix.
    const cmd = `${line} --prefix ${sh(prefix)} --prefer-offline`;
    const t0 = Date.now();
    const r = await run('/bin/sh', ['-c', cmd], { cwd: t.dir, env: { ...NPM_ENV, ...localSqlitePrebuild() }, timeoutMs: INSTALL_MS });
    const sqlite = existsSync(join(prefix, 'lib', 'node_modules', 'acp-inspect', 'node_modules', 'better-sqlite3', 'build', 'Release', 'obj.target')) ? 'compiled from source' : 'the local prebuild';
    console.log(`${cmd.replaceAll(t.dir, '<tmp>')}: ${((Date.now() - t0) / 1000).toFixed(0)} s (better-sqlite3: ${sqlite})`);
    install = text(r);
    installCode = r.code;
  }, INSTALL_MS + 10_000);

  it('installs, running both install scripts without an allowScripts warning', () => {
    expect(installCode, install).toBe(0);
    expect(install).not.toMatch(/not yet covered by allowScripts/);
    expect(existsSync(bin)).toBe(true);
  });

  it('doctor: the SQLite module, the native forwarder and the UI are there', async () => {
    const r = await acp(['doctor']);
    expect(r.code, text(r)).toBe(0);
    const out = r.stdout.toString();
    expect(out).toMatch(/^ok +native SQLite module \(better-sqlite3\) loads$/m);
    expect(out).toMatch(/^ok +native forwarder loads/m);
    expect(out).toContain(`UI build present (${join(prefix, 'lib', 'node_modules', 'acp-inspect', 'dist', 'ui')})`);
  });

  it('the tap records a real session; list, check, replay and serve read it', async () => {
    const session = await runExampleClient([bin, '--db', db, '--', process.execPath, EXAMPLE_AGENT].map(sh).join(' '));
    expect(session.code, session.stderr).toBe(0);
    const list = await acp(['list', '--json']);
    const recs = JSON.parse(list.stdout.toString()) as { id: number; frames: number; status: string }[];
    expect(recs).toHaveLength(1);
    expect(recs[0]!.frames).toBeGreaterThan(5);
    const id = String(recs[0]!.id);

    const check = await acp(['check', id, '--json']);
    expect([0, 1], check.stderr).toContain(check.code);
    // One finding per line (the SDK's example peers leave out clientInfo and agentInfo: warnings).
    const findings = check.stdout.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { rule: string; spec: string });
    expect(findings.length).toBeGreaterThan(0);
    for (const f of findings) expect(typeof f.rule).toBe('string');

    const replay = await acp(['replay', '--as', 'client', id, '--', process.execPath, EXAMPLE_AGENT]);
    expect(replay.code, text(replay)).toBe(0);

    const serve = spawn(bin, ['serve', '--port', '0'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        serve.stdout.on('data', (b: Buffer) => {
          out += b.toString();
          const m = /http:\/\/127\.0\.0\.1:\d+\/\?token=\S+/.exec(out);
          if (m) resolve(m[0]);
        });
        serve.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
      });
      const login = await fetch(url, { redirect: 'manual' });
      expect(login.status).toBe(302);
      const headers = { cookie: login.headers.get('set-cookie')!.split(';')[0]! };
      const page = await fetch(new URL('/', url), { headers });
      expect(page.status).toBe(200);
      const html = await page.text();
      const script = /src="([^"]+\.js)"/.exec(html)?.[1];
      expect(script, html).toBeDefined();
      const asset = await fetch(new URL(script!, url), { headers });
      expect(asset.status).toBe(200);
      expect((await asset.text()).length).toBeGreaterThan(1000);
      const list = await fetch(new URL('/api/recordings', url), { headers });
      expect(((await list.json()) as unknown[]).length).toBe(1);
    } finally {
      await stopProcess(serve);
    }
  });
});

describe('installed globally with npm skipping install scripts', () => {
  const prefix = join(t.dir, 'prefix-no-scripts');
  const bin = join(prefix, 'bin', 'acp-inspect');
  const env = { XDG_DATA_HOME: join(t.dir, 'xdg-no-scripts'), NO_COLOR: '1' };

  it('doctor names the fix, and the fix (run as printed) builds both', async () => {
    const r = await npm(['install', '-g', '--prefix', prefix, '--ignore-scripts', '--prefer-offline', tgz], t.dir);
    expect(r.code, text(r)).toBe(0);
    const before = await run(bin, ['doctor'], { env, cwd: t.dir });
    expect(before.code).toBe(1);
    const fix = /fix: run `(npm rebuild -g --allow-scripts=acp-inspect,better-sqlite3 acp-inspect better-sqlite3)`/.exec(before.stdout.toString())?.[1];
    expect(fix, before.stdout.toString()).toBeDefined();
    // As printed; only the global prefix is this test's, not the machine's.
    const built = await run('/bin/sh', ['-c', fix!], { cwd: t.dir, env: { ...NPM_ENV, ...localSqlitePrebuild(), npm_config_prefix: prefix }, timeoutMs: INSTALL_MS });
    expect(built.code, text(built)).toBe(0);
    const after = await run(bin, ['doctor'], { env, cwd: t.dir });
    expect(after.code, after.stdout.toString()).toBe(0);
    expect(after.stdout.toString()).toMatch(/^ok +native forwarder loads/m);
  }, INSTALL_MS + 10_000);
});

describe('a devDependency of a new project, installed with npm skipping install scripts', () => {
  const project = join(t.dir, 'project');
  const bin = join(project, 'node_modules', '.bin', 'acp-inspect');
  const env = { XDG_DATA_HOME: join(t.dir, 'xdg-project'), ACP_INSPECT_DB: join(t.dir, 'project.sqlite'), NO_COLOR: '1' };
  const acp = (args: string[], input?: string) => run(bin, args, { env, input, cwd: project, timeoutMs: 60_000 });

  beforeAll(async () => {
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-client', type: 'module', private: true }));
    const r = await npm(['install', '-D', tgz, '--prefer-offline', '--ignore-scripts'], project);
    expect(r.code, text(r)).toBe(0);
  }, INSTALL_MS + 10_000);

  it('doctor names both missing builds and, for each, the command that fixes it in a project', async () => {
    const r = await acp(['doctor']);
    expect(r.code).toBe(1);
    const out = r.stdout.toString();
    expect(out).toMatch(/^FAIL +native SQLite module \(better-sqlite3\) does not load: it was not built: npm skipped its install script/m);
    expect(out).toContain('fix: run `npm install-scripts approve acp-inspect better-sqlite3 && npm rebuild acp-inspect better-sqlite3`');
    expect(out).toMatch(/^warn +native forwarder not built: npm skipped acp-inspect's install script/m);
    expect(out).toContain('fix: run `npm install-scripts approve acp-inspect && npm rebuild acp-inspect`');
  });

  it('the tap still forwards the session untouched and says in one line why nothing is recorded', async () => {
    const frame = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}\n';
    const r = await acp(['--', process.execPath, join(PEERS, 'echo-agent.mjs')], frame);
    expect(r.code).toBe(0);
    expect(r.stdout.toString()).toBe(frame);
    const ours = r.stderr.split('\n').filter((l) => l.startsWith('acp-inspect'));
    expect(ours.length, r.stderr).toBe(1);
    expect(ours[0]).toMatch(/native SQLite module \(better-sqlite3\) does not load.*npm install-scripts approve acp-inspect better-sqlite3/);
    expect(r.stderr).not.toMatch(/Tried:|→ \//);
  });

  it('check reads a transcript file, and the docs\' fixture test passes with `import { mockAgent } from \'acp-inspect\'`', async () => {
    const check = await acp(['check', SAMPLE]);
    expect([0, 1], text(check)).toContain(check.code);
    expect(check.stdout.toString()).toMatch(/initialize/);

    // The user's own SDK and vitest (linked from this checkout); acp-inspect is the installed tarball.
    mkdirSync(join(project, 'node_modules', '@agentclientprotocol'), { recursive: true });
    // (acp-inspect depends on the SDK itself since it bridges remote agents: npm has installed it then.)
    const sdk = join(project, 'node_modules', '@agentclientprotocol', 'sdk');
    if (!existsSync(sdk)) symlinkSync(join(ROOT, 'node_modules', '@agentclientprotocol', 'sdk'), sdk);
    symlinkSync(join(ROOT, 'node_modules', 'vitest'), join(project, 'node_modules', 'vitest'));
    mkdirSync(join(project, 'test', 'fixtures'), { recursive: true });
    copyFileSync(SAMPLE, join(project, 'test', 'fixtures', 'session.jsonl'));
    const block = readmeCodeBlocks(readFileSync(join(ROOT, 'docs', 'replay.md'), 'utf8'), 'ts').find((b) => b.startsWith('// test/session.test.ts'));
    expect(block).toBeDefined();
    writeFileSync(join(project, 'test', 'session.test.ts'), block!);
    const r = await run(process.execPath, [join(project, 'node_modules', 'vitest', 'vitest.mjs'), 'run', 'test/session.test.ts'],
      { cwd: project, env: { CI: 'true', ACP_INSPECT_RECORD: '' }, timeoutMs: 60_000 });
    expect(text(r)).toMatch(/1 passed/);
    expect(r.code).toBe(0);
  });

  it('the fix doctor prints for the forwarder builds it', async () => {
    const before = (await acp(['doctor'])).stdout.toString();
    const fix = /fix: run `(npm install-scripts approve acp-inspect && npm rebuild acp-inspect)`/.exec(before)?.[1];
    expect(fix, before).toBeDefined();
    const r = await run('/bin/sh', ['-c', fix!], { cwd: project, env: NPM_ENV, timeoutMs: 120_000 });
    expect(r.code, text(r)).toBe(0);
    const after = (await acp(['doctor'])).stdout.toString();
    expect(after).toMatch(/^ok +native forwarder loads/m);
  });
});
