#!/usr/bin/env node
// Test helper: a minimal recorder used before/alongside the real tap. Spawns the agent command,
// forwards stdin/stdout/stderr unchanged, and writes a transcript (.jsonl) of every line.
// usage: node tee.mjs OUT.jsonl -- <agent command> [args...]
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const dd = process.argv.indexOf('--');
const out = process.argv[2];
const cmd = process.argv.slice(dd + 1);
const start = performance.now();
const lines = [JSON.stringify({ acpInspect: 'recording', version: 1, name: 'tee', command: cmd, cwd: process.cwd() })];
const now = () => Math.round((performance.now() - start) * 1000) / 1000;
const child = spawn(cmd[0], cmd.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
function splitter(dir, sink) {
  let buf = '';
  return (chunk) => {
    sink(chunk);
    buf += chunk.toString('utf8');
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      lines.push(JSON.stringify({ t: now(), dir, raw: buf.slice(0, i) }));
      buf = buf.slice(i + 1);
    }
  };
}
process.stdin.on('data', splitter('c2a', (c) => child.stdin.write(c)));
process.stdin.on('end', () => child.stdin.end());
child.stdout.on('data', splitter('a2c', (c) => process.stdout.write(c)));
child.stderr.on('data', splitter('stderr', (c) => process.stderr.write(c)));
const flush = () => writeFileSync(out, lines.join('\n') + '\n');
child.on('exit', (code) => { flush(); process.exit(code ?? 0); });
process.on('SIGTERM', () => { flush(); child.kill(); process.exit(0); });
