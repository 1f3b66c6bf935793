#!/usr/bin/env node
/**
 * The benchmark's synthetic ACP agent. Answers `initialize` and `session/new`; a `session/prompt`
 * whose text is `flood SIZE COUNT` gets COUNT `session/update` frames of SIZE bytes and then its
 * result; any other prompt (`ping`) is answered at once. Writes with blocking writes in large chunks
 * so that the agent itself is never the bottleneck. Exits when its stdin ends.
 */
import { writeSync } from 'node:fs';
import { floodChunks, initializeResult, newSessionResult, promptResult } from './frames.js';

const sleeper = new Int32Array(new SharedArrayBuffer(4));

function writeAll(buf) {
  let off = 0;
  while (off < buf.length) {
    try {
      off += writeSync(1, buf, off, buf.length - off);
    } catch (e) {
      if (e.code === 'EAGAIN') Atomics.wait(sleeper, 0, 0, 1);
      else if (e.code === 'EPIPE') process.exit(0);
      else throw e;
    }
  }
}

function onLine(text) {
  let msg;
  try {
    msg = JSON.parse(text);
  } catch {
    return;
  }
  if (msg.method === 'initialize') writeAll(initializeResult(msg.id));
  else if (msg.method === 'session/new') writeAll(newSessionResult(msg.id));
  else if (msg.method === 'session/prompt') {
    const m = /^flood (\d+) (\d+)$/.exec(msg.params?.prompt?.[0]?.text ?? '');
    if (m) for (const c of floodChunks(Number(m[1]), Number(m[2]))) writeAll(c);
    writeAll(promptResult(msg.id));
  }
}

let rest = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (s) => {
  const parts = (rest + s).split('\n');
  rest = parts.pop();
  for (const p of parts) if (p) onLine(p);
});
process.stdin.on('end', () => process.exit(0));
