#!/usr/bin/env node
// Byte-exact relay in front of an agent: logs what the agent reads (agent-in.bin) and writes
// (agent-out.bin), passes stderr through, exits with the agent's code (128+n on signal).
// usage: bytetee.mjs LOGDIR -- cmd args...
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';

const [dir, sep, cmd, ...args] = process.argv.slice(2);
if (sep !== '--') process.exit(2);
mkdirSync(dir, { recursive: true });
writeFileSync(`${dir}/agent-in.bin`, ''); writeFileSync(`${dir}/agent-out.bin`, '');
const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.on('data', (d) => { appendFileSync(`${dir}/agent-in.bin`, d); child.stdin.write(d); });
process.stdin.on('end', () => child.stdin.end());
child.stdin.on('error', () => {});
child.stdout.on('data', (d) => { appendFileSync(`${dir}/agent-out.bin`, d); process.stdout.write(d); });
let exited;
child.on('exit', (code, signal) => { exited = code ?? 128 + (constants.signals[signal] ?? 0); });
child.stdout.on('close', () => { const fin = () => (exited === undefined ? setTimeout(fin, 10) : process.exit(exited)); fin(); });
for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, () => child.kill(s));
