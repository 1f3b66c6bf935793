/**
 * The agent's output reaches the client by whatever its end of the tap's stdout is: a socket (what
 * Node's child_process gives), a pipe (what most editors give), a regular file, a file opened for
 * appending, or a terminal. The native forwarder hands it on with splice() where the kernel allows
 * it (not to a file opened for appending: there it copies); with ACP_INSPECT_ZERO_COPY=0 it always
 * copies. Every case: every byte arrives unchanged, in order, and
 * every line is recorded.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, PEERS, cli, run, sh, tempDir } from '../helpers.js';
import { parseTranscript } from '../../src/transcript/format.js';
import type { Frame } from '../../src/wire/frame.js';

let cleanup = () => {};
afterEach(() => cleanup());

const ECHO = join(PEERS, 'echo-agent.mjs');
const hasScript = existsSync('/usr/bin/script');

/** About 3 MiB of lines of many sizes (one of 1 MiB), each with its number, and a last line without `\n`. */
function traffic(): { input: Buffer; lines: number } {
  const parts: string[] = [];
  for (let i = 0; i < 4000; i++) parts.push(`${JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { i, text: 'x'.repeat((i * 37) % 1500) } })}\n`);
  parts.push(`${JSON.stringify({ jsonrpc: '2.0', method: 'big', params: { text: 'y'.repeat(1 << 20) } })}\n`);
  parts.push('{"jsonrpc":"2.0","method":"last"}');
  return { input: Buffer.from(parts.join('')), lines: parts.length };
}

type End = 'socket' | 'pipe' | 'file' | 'append' | 'terminal';

/** Runs the tap in front of the echo agent with `input`, its stdout going to the given kind of end; returns what arrived. */
async function through(end: End, dir: string, db: string, input: Buffer, env: NodeJS.ProcessEnv): Promise<Buffer> {
  const tap = `${sh(process.execPath)} ${sh(BIN)} --db ${sh(db)} -- ${sh(process.execPath)} ${sh(ECHO)}`;
  if (end === 'socket') {
    const r = await run(process.execPath, [BIN, '--db', db, '--', process.execPath, ECHO], { input, env });
    expect(r.code, r.stderr).toBe(0);
    return r.stdout;
  }
  const inFile = join(dir, 'in');
  const out = join(dir, 'out');
  writeFileSync(inFile, input);
  if (end === 'append') writeFileSync(out, 'before\n');
  const cmd = {
    pipe: `${tap} < ${sh(inFile)} 2>/dev/null | cat > ${sh(out)}`,
    file: `${tap} < ${sh(inFile)} > ${sh(out)} 2>/dev/null`,
    append: `${tap} < ${sh(inFile)} >> ${sh(out)} 2>/dev/null`,
    // `script` gives the tap a terminal as its stdout; raw mode so the terminal passes bytes as they are.
    terminal: `script -qec ${sh(`stty raw -echo; ${tap} < ${sh(inFile)} 2>/dev/null`)} /dev/null > ${sh(out)}`,
  }[end];
  const r = await run('sh', ['-c', cmd], { env, timeoutMs: 60_000 });
  expect(r.code, r.stderr).toBe(0);
  const got = readFileSync(out);
  return end === 'append' ? got.subarray('before\n'.length) : got;
}

async function recordedA2c(db: string): Promise<Buffer[]> {
  const r = await cli(['export', 'latest', '--db', db, '--no-redact']);
  expect(r.code, r.stderr).toBe(0);
  const rec = parseTranscript(r.stdout.toString());
  return rec.items.filter((i): i is Frame => i.dir === 'a2c').map((f) => (f.rawBase64 ? Buffer.from(f.rawBase64, 'base64') : Buffer.from(f.raw)));
}

const ends: End[] = ['socket', 'pipe', 'file', 'append', 'terminal'];

for (const zeroCopy of ['1', '0']) {
  describe(`the agent's output to each kind of client end (ACP_INSPECT_ZERO_COPY=${zeroCopy})`, () => {
    for (const end of ends) {
      it.skipIf(end === 'terminal' && !hasScript)(`${end}: every byte arrives unchanged and every line is recorded`, async () => {
        const t = tempDir();
        cleanup = t.cleanup;
        const db = join(t.dir, 'r.sqlite');
        const { input, lines } = traffic();
        const got = await through(end, t.dir, db, input, { ACP_INSPECT_ZERO_COPY: zeroCopy });
        expect(got.length).toBe(input.length);
        expect(got.equals(input)).toBe(true);
        const frames = await recordedA2c(db);
        expect(frames).toHaveLength(lines);
        expect(Buffer.concat(frames.map((f, k) => (k < lines - 1 ? Buffer.concat([f, Buffer.from('\n')]) : f))).equals(input)).toBe(true);
      });
    }
  });
}
