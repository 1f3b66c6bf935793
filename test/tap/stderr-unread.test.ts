/**
 * A client that never reads the tap's stderr (many pipe it and look only when something fails): the
 * agent's stderr floods past any pipe's size, and the session must go on. The tap keeps reading the
 * agent's stderr, records every line, forwards what the client's pipe and a bounded queue take, and
 * the recording says how much was not forwarded. Native and JavaScript forwarding alike.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cli, tempDir } from '../helpers.js';
import { parseTranscript } from '../../src/transcript/format.js';

const t = tempDir('acp-inspect-stderr-');
afterAll(() => t.cleanup());

const LINES = 40_000; // 4 MB of stderr: far past a pipe (64 KiB) and the tap's queue (1 MiB)
const agent = join(t.dir, 'noisy-agent.mjs');
writeFileSync(agent, `
const line = 'x'.repeat(95);
for (let i = 0; i < ${LINES}; i++) process.stderr.write(String(i).padStart(5, '0') + line + '\\n');
process.stderr.write('', () => {
  process.stdout.write('{"jsonrpc":"2.0","method":"ready"}\\n');
});
process.stdin.on('data', (c) => process.stdout.write(c));
process.stdin.on('end', () => process.exit(0));
`);

describe.each([['native', '1'], ['JavaScript', '0']])('a client that never reads stderr (%s forwarding)', (_name, native) => {
  it('does not stop the session: frames flow both ways, the agent exits, every stderr line is recorded', async () => {
    const db = join(t.dir, `stderr-${native}.sqlite`);
    // stderr is a pipe nobody reads (no listener: it fills and stays full).
    const tap = spawn(process.execPath, [BIN, '--db', db, '--', process.execPath, agent], { env: { ...process.env, ACP_INSPECT_NATIVE: native }, stdio: ['pipe', 'pipe', 'pipe'] });
    tap.stderr.pause();
    let out = '';
    const seen = (s: string) => new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${s} on stdout within 20 s; got ${JSON.stringify(out.slice(0, 200))}`)), 20_000);
      const check = () => { if (out.includes(s)) { clearTimeout(timer); resolve(); } };
      tap.stdout.on('data', (b: Buffer) => { out += b.toString(); check(); });
      check();
    });
    try {
      await seen('"ready"');
      tap.stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
      await seen('"ping"');
      tap.stdin.end();
      const code = await new Promise<number | null>((resolve) => tap.on('exit', resolve));
      expect(code).toBe(0);
    } finally {
      tap.kill('SIGKILL');
    }
    const exp = await cli(['export', 'latest', '--db', db, '--no-redact']);
    expect(exp.code, exp.stderr).toBe(0);
    const rec = parseTranscript(exp.stdout.toString());
    const stderr = rec.items.filter((i) => i.dir === 'stderr');
    expect(stderr).toHaveLength(LINES);
    expect(stderr.every((i, n) => 'raw' in i && i.raw.startsWith(String(n).padStart(5, '0')))).toBe(true);
    const dropped = rec.items.find((i) => i.dir === 'event' && i.type === 'stderr-not-forwarded');
    expect(dropped, 'the recording says what was not forwarded').toBeDefined();
    expect((dropped as { data: { bytes: number } }).data.bytes).toBeGreaterThan(1_000_000);
    expect(rec.header.status).toBe('complete');
  });
});
