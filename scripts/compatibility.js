#!/usr/bin/env node
// Reruns the compatibility matrix of docs/compatibility.md: `probe agents` on the agents of
// docs/compatibility/agents.json (the SDK's example agents), and, with --real, on real agents from the
// npm registry installed into a scratch folder outside the repository, each with a temporary HOME and
// a scripted model server on 127.0.0.1 (nothing leaves the machine).
//   node scripts/compatibility.js [--real] [--out DIR] [--only ID,...]   (--only: those agents of the matrix)
// Writes DIR/matrix.json, DIR/matrix.html (and each agent's report beside it), DIR/matrix.sqlite with
// every scenario's recording; prints the matrix.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OPENAI_PACKAGES, openaiAgents } from './compatibility-openai.js';
import { GEMINI_QWEN_AUGGIE_PACKAGES, geminiQwenAuggieAgents } from './compatibility-gemini-qwen-auggie.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const real = args.includes('--real');
const out = resolve(args.includes('--out') ? args[args.indexOf('--out') + 1] : mkdtempSync(join(tmpdir(), 'acp-compat-')));
const only = args.includes('--only') ? args[args.indexOf('--only') + 1].split(',') : undefined;
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
  const pkgs = ['@agentclientprotocol/claude-agent-acp@0.49.0', ...OPENAI_PACKAGES, ...GEMINI_QWEN_AUGGIE_PACKAGES];
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
  agents.push(...await openaiAgents({ root: ROOT, out, scratch, children }));
  agents.push(...await geminiQwenAuggieAgents({ root: ROOT, out, scratch, children }));
}
if (only) {
  const unknown = only.filter((id) => !agents.some((a) => a.id === id));
  if (unknown.length) {
    for (const c of children) try { process.kill(-c.pid, 'SIGTERM'); } catch { /* gone */ }
    console.error(`compatibility: no agent ${unknown.join(', ')}${real ? '' : ' (the real agents need --real)'}`);
    process.exit(2);
  }
  agents.splice(0, agents.length, ...agents.filter((a) => only.includes(a.id)));
}

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
