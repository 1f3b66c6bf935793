#!/usr/bin/env node
/** The baseline: a bare Node.js pass-through. Spawns the agent and pipes stdin/stdout, nothing else. */
import { spawn } from 'node:child_process';

const [cmd, ...args] = process.argv.slice(2);
const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
child.stdin.on('error', () => {});
child.on('exit', (code) => process.exit(code ?? 1));
