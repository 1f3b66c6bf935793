#!/usr/bin/env node
// Runs an agent command and forwards stdin/stdout/stderr unchanged, writing every line of both
// directions into a transcript (JSONL: {"t","dir","raw"}). usage: tee-agent.mjs OUT.jsonl -- cmd args...
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';

const [out, sep, cmd, ...args] = process.argv.slice(2);
if (!out || sep !== '--' || !cmd) {
  process.stderr.write('usage: tee-agent.mjs OUT.jsonl -- cmd args...\n');
  process.exit(2);
}
const w = createWriteStream(out);
const t0 = performance.now();
const rec = (dir, raw) => w.write(JSON.stringify({ t: Math.round((performance.now() - t0) * 1000) / 1000, dir, raw }) + '\n');
const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
function tee(src, dst, dir) {
  let buf = '';
  src.on('data', (d) => {
    dst.write(d);
    buf += d.toString('utf8');
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      rec(dir, buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  });
}
tee(process.stdin, child.stdin, 'c2a');
tee(child.stdout, process.stdout, 'a2c');
let errBuf = '';
child.stderr.on('data', (d) => {
  errBuf += d.toString('utf8');
  for (let i = errBuf.indexOf('\n'); i >= 0; i = errBuf.indexOf('\n')) {
    rec('stderr', errBuf.slice(0, i));
    errBuf = errBuf.slice(i + 1);
  }
});
process.stdin.on('end', () => child.stdin.end());
child.on('exit', (code, signal) => {
  w.write(JSON.stringify({ t: performance.now() - t0, dir: 'event', type: 'exit', data: { code, signal } }) + '\n');
  w.end(() => process.exit(code ?? 0));
});
process.on('SIGTERM', () => child.kill('SIGTERM'));
