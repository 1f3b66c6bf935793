#!/usr/bin/env node
// An agent that starts a long-lived grandchild (as real agents start native helpers), prints the
// grandchild's pid on stderr, then idles. Used to check the tap ends the whole process group.
import { spawn } from 'node:child_process';
const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
process.stderr.write(`grandchild ${g.pid}\n`);
process.stdin.on('data', (c) => process.stdout.write(c));
setInterval(() => {}, 1000);
