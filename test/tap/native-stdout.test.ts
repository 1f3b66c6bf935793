/**
 * The native forwarder puts the client's end of the agent's output (the tap's stdout) in
 * non-blocking mode itself when it is a pipe or a socket, so a client that stops reading is waited
 * for in poll(), never inside a splice() that may hold the agent's pipe locked (see forward.c,
 * client_nonblocking). A regular file is left as it is. Nothing in JavaScript sets the flag for it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type StdioOptions } from 'node:child_process';
import { createRequire } from 'node:module';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Socket } from 'node:net';
import { ROOT } from '../helpers.js';
import { makeTmp, writeAgent } from '../reliability/helpers.js';
import type { NativeForwarder } from '../../src/tap/native.js';

const ADDON = join(ROOT, 'native', 'build', 'Release', 'acp_forward.node');
const BIN = join(ROOT, 'bin', 'acp-inspect.js');
const O_NONBLOCK = 0o4000;
const tmp = makeTmp();
afterAll(() => tmp.cleanup());

/** Answers `go` with `ready`, then waits for its stdin to end. */
const agent = writeAgent(tmp.dir, 'ready', `process.stdin.on('data', () => process.stdout.write('ready\\n')); process.stdin.on('end', () => process.exit(0));`);

/** The flags of the tap's fd 1 once it forwards (read from /proc), given what its stdout is. */
async function stdoutFlags(stdout: number | 'pipe', read: () => Promise<void>): Promise<number> {
  const child = spawn(process.execPath, [BIN, '--db', join(tmp.dir, 'r.db'), '--', process.execPath, agent], {
    stdio: ['pipe', stdout, 'pipe'] as StdioOptions,
    env: { ...process.env, ACP_INSPECT_DB: undefined },
  });
  const done = new Promise((res) => child.on('exit', res));
  child.stdin!.write('go\n');
  if (child.stdout) await new Promise<void>((res) => child.stdout!.once('data', () => res()));
  else await read();
  const flags = parseInt(/^flags:\s+([0-7]+)/m.exec(readFileSync(`/proc/${child.pid}/fdinfo/1`, 'utf8'))![1]!, 8);
  child.stdout?.resume();
  child.stdin!.end();
  await done;
  return flags;
}

describe.skipIf(!existsSync(ADDON) || process.env.ACP_INSPECT_NATIVE === '0' || process.platform !== 'linux')('the native forwarder and the tap\'s stdout', () => {
  it('sets O_NONBLOCK on a socket stdout (what Node\'s child_process gives)', async () => {
    expect(await stdoutFlags('pipe', async () => undefined) & O_NONBLOCK).toBe(O_NONBLOCK);
  });

  it('sets O_NONBLOCK on a pipe stdout (what most editors give)', async () => {
    const fwd = createRequire(import.meta.url)(ADDON) as NativeForwarder;
    const [inR, inW, outR, outW] = fwd.pipes();
    fwd.closeFd(inR);
    fwd.closeFd(inW);
    const reader = new Socket({ fd: outR, readable: true, writable: false });
    const first = new Promise<void>((res) => reader.once('data', () => res()));
    try {
      expect(await stdoutFlags(outW, () => first) & O_NONBLOCK).toBe(O_NONBLOCK);
    } finally {
      fwd.closeFd(outW);
      reader.destroy();
    }
  });

  it('leaves a regular file as it is', async () => {
    const file = join(tmp.dir, 'out.txt');
    const fd = openSync(file, 'w');
    try {
      const flags = await stdoutFlags(fd, async () => {
        while (!readFileSync(file, 'utf8').includes('ready')) await new Promise((res) => setTimeout(res, 10));
      });
      expect(flags & O_NONBLOCK).toBe(0);
    } finally {
      closeSync(fd);
    }
  });
});
