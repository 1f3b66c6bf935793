#!/usr/bin/env node
// Re-records the sample recordings in recordings/ by running real ACP peers through the tap:
//   sdk-example.jsonl      the ACP SDK's example client ⇄ tap ⇄ the SDK's example agent
//   stdout-pollution.jsonl the same, with the agent launched by a wrapper that logs to stdout
//                          (the most common real ACP bug), so the checker has something to say.
// Machine paths are replaced with neutral ones (/home/dev/project, node) so the files are portable.
// usage: npm run build && node scripts/record-samples.js
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'acp-inspect.js');
const examples = join(root, 'node_modules', 'acp-sdk-v1-examples', 'dist', 'examples');
const work = mkdtempSync(join(tmpdir(), 'acp-samples-'));
const db = join(work, 'samples.sqlite');
const q = (s) => `'${s.replace(/'/g, `'\\''`)}'`;

function record(name, agentCmd) {
  const tap = `${q(process.execPath)} ${q(bin)} --db ${q(db)} --name ${q(name)} -- ${agentCmd}`;
  const r = spawnSync(process.execPath, [join(examples, 'client.js')], {
    cwd: work,
    input: '1\n',
    env: { ...process.env, PATH: `${join(root, 'test', 'peers', 'bin')}:${process.env.PATH}`, ACP_TEST_AGENT: tap },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.status !== 0) throw new Error(`client failed: ${r.stderr}`);
  const out = spawnSync(process.execPath, [bin, 'export', 'latest', '--db', db], { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(out.stderr);
  const text = out.stdout
    .split(work).join('/home/dev/project')
    .split(examples).join('/home/dev/acp-sdk/examples')
    .split(process.execPath).join('node');
  const file = join(root, 'recordings', `${name}.jsonl`);
  writeFileSync(file, text);
  console.log(`wrote ${file}`);
}

try {
  record('sdk-example', `${q(process.execPath)} ${q(join(examples, 'agent.js'))}`);
  record('stdout-pollution', `sh -c ${q(`echo "Starting example agent v1.9.0..."; exec ${q(process.execPath)} ${q(join(examples, 'agent.js'))}`)}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
