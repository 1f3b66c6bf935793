#!/usr/bin/env node
// `npm start`: the demo. Serves the UI over a fresh demo database holding the sample recordings,
// then records a real ACP session live through the tap (the ACP SDK's example client ⇄ acp-inspect ⇄
// the SDK's example agent), so the page shows it arriving. Ctrl-C to stop.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'acp-inspect.js');
const examples = join(root, 'node_modules', 'acp-sdk-v1-examples', 'dist', 'examples');
const once = process.argv.includes('--once'); // record and exit (used by tests)

const dir = join(process.env.ACP_INSPECT_DEMO_DIR ?? join(tmpdir(), 'acp-inspect-demo'));
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true, mode: 0o700 });
const db = join(dir, 'demo.sqlite');
const log = (s) => process.stderr.write(`demo: ${s}\n`);

if (!existsSync(join(root, 'dist', 'src', 'cli', 'main.js'))) {
  log('the project is not built yet; run `npm install` (or `npm run build`) first');
  process.exit(2);
}

function runCli(args, opts = {}) {
  return new Promise((res) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', opts.stdout ?? 'pipe', 'inherit'] });
    let out = '';
    child.stdout?.on('data', (c) => (out += c));
    child.on('close', (code) => res({ code, out }));
  });
}

// 1. The sample recordings, so the UI has something to show at once.
const samples = readdirSync(join(root, 'recordings')).filter((f) => f.endsWith('.jsonl')).sort();
for (const f of samples) await runCli(['import', join(root, 'recordings', f), '--db', db]);
log(`imported ${samples.length} sample recordings into ${db}`);

// 2. The UI.
let server = null;
if (!once) {
  const { startServer } = await import('../dist/src/server/index.js');
  server = await startServer({ dbPath: db, port: Number(process.env.PORT ?? 0) });
  process.stdout.write(`${server.url}\n`);
  log(`open the URL above; the live session below appears as it runs`);
}

// 3. A real session, recorded live through the tap.
log('recording: SDK example client ⇄ acp-inspect tap ⇄ SDK example agent …');
const agentCmd = `'${process.execPath}' '${bin}' --db '${db}' --name 'demo: SDK example client ⇄ agent' -- '${process.execPath}' '${join(examples, 'agent.js')}'`;
const client = spawn(process.execPath, [join(examples, 'client.js')], {
  cwd: dir,
  stdio: ['pipe', 'pipe', 'inherit'],
  env: { ...process.env, PATH: `${join(root, 'test', 'peers', 'bin')}:${process.env.PATH}`, ACP_TEST_AGENT: agentCmd },
});
client.stdin.end('1\n'); // the example client asks which permission option to choose
client.stdout.on('data', (c) => {
  for (const line of String(c).split('\n')) if (line.trim()) process.stderr.write(`  client │ ${line}\n`);
});
await new Promise((r) => client.on('close', r));
log('session recorded. The tap\'s view of it:');
await runCli(['show', 'latest', '--db', db], { stdout: 'inherit' });
await runCli(['check', 'latest', '--db', db], { stdout: 'inherit' });

if (once) process.exit(0);
log(`serving ${server.url} — Ctrl-C to stop`);
process.on('SIGINT', async () => {
  await server.close();
  process.exit(0);
});
