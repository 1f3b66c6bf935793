/**
 * Hostile bytes through the real tap: frames of tens of MB, invalid UTF-8, NUL bytes, whitespace-only
 * lines, CRLF, a JSON array, one-byte writes. All are forwarded byte-exact both ways and recorded so
 * that the stored frames give back the exact bytes, and export → import → export is lossless.
 * Also: --max-frame-bytes (stored frames cut and marked, forwarding never) and --redact.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTmp, run, start, writeAgent, withStore, tapLines, rpc } from './helpers.js';
import type { Frame } from '../../src/wire/frame.js';

const tmp = makeTmp();
afterAll(() => tmp.cleanup());
const node = process.execPath;

/** An agent that writes back exactly what it reads (a byte pipe), via blocking writes. */
const mirror = writeAgent(tmp.dir, 'mirror', `
const fs = require('node:fs');
process.stdin.on('data', (b) => { let o = 0; while (o < b.length) { try { o += fs.writeSync(1, b, o); } catch (e) { if (e.code !== 'EAGAIN') throw e; } } });
`);

/** Bytes of the stored frames of one direction, joined back with \\n. */
function storedBytes(frames: Frame[]): Buffer {
  const parts: Buffer[] = [];
  frames.forEach((f, i) => {
    if (i) parts.push(Buffer.from('\n'));
    parts.push(f.rawBase64 !== undefined ? Buffer.from(f.rawBase64, 'base64') : Buffer.from(f.raw, 'utf8'));
  });
  return Buffer.concat(parts);
}

describe('hostile frames through the tap', () => {
  it('forwards and records odd bytes exactly; export → import → export is identical', async () => {
    const db = join(tmp.dir, 'odd.db');
    const big = Buffer.from(rpc({ id: 99, method: 'session/prompt', params: { image: 'A'.repeat(24 * 1024 * 1024) } }));
    const pieces: Buffer[] = [
      Buffer.from(rpc({ id: 1, method: 'initialize', params: { protocolVersion: 1 } }) + '\n'),
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x22, 0x7d, 0x0a]), // {"a":"<invalid UTF-8>"}
      Buffer.from('{"nul":"a\u0000b"}\u0000\n'),
      Buffer.from('   \t \n'),
      Buffer.from('\n'),
      Buffer.from(rpc({ id: 2, method: 'x' }) + '\r\n'),
      Buffer.from('[' + rpc({ id: 3, method: 'batch' }) + ',' + rpc({ id: 4, method: 'batch' }) + ']\n'),
      Buffer.from('not json at all, an agent logging to stdout ✓ 日本\n'),
      Buffer.concat([big, Buffer.from('\n')]),
      Buffer.from(rpc({ id: 5, method: 'emoji', params: { s: '😀 é' } }) + '\n'),
      Buffer.from('final line without newline'),
    ];
    const input = Buffer.concat(pieces);
    const r = start(['--db', db, '--', node, mirror]);
    // One-byte writes for the multi-byte characters, the rest in odd chunks.
    const stdin = r.child.stdin!;
    const write = (b: Buffer) => new Promise<void>((res) => { if (stdin.write(b)) res(); else stdin.once('drain', () => res()); });
    for (const p of pieces) {
      if (p.length < 200) for (let i = 0; i < p.length; i++) await write(p.subarray(i, i + 1));
      else for (let i = 0; i < p.length; i += 777_777) await write(p.subarray(i, i + 777_777));
    }
    stdin.end();
    const res = await r.done;
    expect(res.code).toBe(0);
    expect(tapLines(res.stderr)).toEqual([]);
    expect(res.stdout.equals(input)).toBe(true);

    const items = withStore(db, (s) => s.readItems(s.resolveRef('latest')));
    const c2a = items.filter((i) => i.dir === 'c2a') as Frame[];
    const a2c = items.filter((i) => i.dir === 'a2c') as Frame[];
    expect(c2a).toHaveLength(11);
    expect(storedBytes(c2a).equals(input)).toBe(true);
    expect(storedBytes(a2c).equals(input)).toBe(true);
    expect(c2a[1]!.kind).toBe('invalid');
    expect(c2a[6]!.parseError).toMatch(/array/i);
    expect(c2a[8]!.size).toBe(big.length);

    const file1 = join(tmp.dir, 'odd-1.jsonl');
    const file2 = join(tmp.dir, 'odd-2.jsonl');
    const ex1 = await run(['export', 'latest', '--db', db, '--no-redact', '-o', file1]);
    expect(ex1.code).toBe(0);
    const imp = await run(['import', file1, '--db', db]);
    expect(imp.code).toBe(0);
    const id = imp.stdout.toString().trim();
    const ex2 = await run(['export', id, '--db', db, '--no-redact', '-o', file2]);
    expect(ex2.code).toBe(0);
    const body = (f: string) => readFileSync(f, 'utf8').split('\n').slice(1).join('\n');
    expect(body(file2)).toBe(body(file1));
    expect(statSync(file1).size).toBeGreaterThan(24 * 1024 * 1024);
  });

  it('--max-frame-bytes caps what is stored, never what is forwarded', async () => {
    const db = join(tmp.dir, 'cap.db');
    const long = rpc({ id: 1, method: 'session/prompt', params: { text: 'é'.repeat(5000) } }) + '\n';
    const short = rpc({ id: 2, method: 'x' }) + '\n';
    const res = await run(['--db', db, '--max-frame-bytes', '1001', '--', node, mirror], { input: long + short });
    expect(res.code).toBe(0);
    expect(res.stdout.toString()).toBe(long + short);
    const frames = withStore(db, (s) => s.readItems(s.resolveRef('latest')).filter((i) => i.dir === 'c2a') as Frame[]);
    expect(frames[0]!.truncated).toBe(true);
    expect(frames[0]!.size).toBe(Buffer.byteLength(long) - 1);
    const stored = frames[0]!.rawBase64 !== undefined ? Buffer.from(frames[0]!.rawBase64, 'base64') : Buffer.from(frames[0]!.raw);
    expect(stored.length).toBe(1001);
    expect(stored.equals(Buffer.from(long).subarray(0, 1001))).toBe(true);
    expect(frames[1]!.truncated).toBeUndefined();
    expect(frames[1]!.raw).toBe(short.trim());
    // The export marks it too.
    const ex = await run(['export', 'latest', '--db', db]);
    const line = ex.stdout.toString().split('\n').find((l) => l.includes('"dir":"c2a"'));
    expect(line, `export printed: ${ex.stdout.toString().slice(0, 500)} / ${ex.stderr}`).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ truncated: true, size: Buffer.byteLength(long) - 1 });
  });

  it('a bad --max-frame-bytes value is one line and exit 2, before anything starts', async () => {
    for (const bad of ['-5', 'lots', '1e3', '99999999999999999999']) {
      const res = await run(['--max-frame-bytes', bad, '--', node, mirror]);
      expect(res.code).toBe(2);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toMatch(/^acp-inspect: .*max-frame-bytes/);
    }
  });

  it('--redact stores no secret while forwarding them untouched; export redacts by default, --no-redact keeps them', async () => {
    const db = join(tmp.dir, 'secrets.db');
    const secretFrames = [
      rpc({ id: 1, method: 'session/new', params: { cwd: '/w', mcpServers: [{ name: 'gh', command: '/bin/gh-mcp', args: [], env: [{ name: 'GITHUB_TOKEN', value: 'ghp_SECRET_ONE' }] }, { type: 'http', name: 'h', url: 'https://m.example', headers: [{ name: 'Authorization', value: 'Bearer SECRET_TWO' }] }] } }),
      rpc({ id: 2, method: 'providers/set', params: { providerId: 'p', apiType: 'anthropic', baseUrl: 'https://api.example', headers: { 'x-api-key': 'SECRET_THREE' } } }),
      rpc({ id: 'a', method: 'terminal/create', params: { sessionId: 's', command: 'npm', env: [{ name: 'NPM_TOKEN', value: 'SECRET_FOUR' }] } }),
    ];
    const input = secretFrames.join('\n') + '\n';
    const res = await run(['--db', db, '--redact', '--', node, mirror], { input });
    expect(res.stdout.toString()).toBe(input);
    for (const f of [db, `${db}-wal`]) {
      let bytes: Buffer;
      try { bytes = readFileSync(f); } catch { continue; }
      expect(bytes.includes('SECRET_')).toBe(false);
    }
    const frames = withStore(db, (s) => s.readItems(s.resolveRef('latest')).filter((i) => i.dir === 'c2a') as Frame[]);
    expect(frames.map((f) => f.method)).toEqual(['session/new', 'providers/set', 'terminal/create']);
    expect((frames[0]!.json as any).params.mcpServers[0].env[0]).toEqual({ name: 'GITHUB_TOKEN', value: '<redacted>' });

    // Without --redact the database keeps the secrets; export hides them unless asked.
    const db2 = join(tmp.dir, 'secrets-kept.db');
    await run(['--db', db2, '--', node, mirror], { input });
    const redacted = await run(['export', 'latest', '--db', db2]);
    expect(redacted.stdout.toString()).not.toContain('SECRET_');
    expect(redacted.stdout.toString()).toContain('GITHUB_TOKEN');
    const kept = await run(['export', 'latest', '--db', db2, '--no-redact']);
    for (const n of ['ONE', 'TWO', 'THREE', 'FOUR']) expect(kept.stdout.toString()).toContain(`SECRET_${n}`);
    writeFileSync(join(tmp.dir, 'unused'), '');
  });
});

describe('a line that never ends', () => {
  it('hundreds of MB without a newline: forwarded whole, stored cut and marked, tap memory bounded', async () => {
    const db = join(tmp.dir, 'endless.db');
    const total = 200 * 1024 * 1024;
    const agent = writeAgent(tmp.dir, 'endless', `
const fs = require('node:fs');
const b = Buffer.alloc(1 << 20, 0x78);
for (let i = 0; i < ${total / (1 << 20)}; i++) { let o = 0; while (o < b.length) { try { o += fs.writeSync(1, b, o); } catch (e) { if (e.code !== 'EAGAIN') throw e; } } }
fs.writeSync(1, '\\n');
process.stderr.write('written\\n');
process.stdin.resume();
`);
    const r = start(['--db', db, '--', node, agent], { readStdout: false });
    let got = 0;
    r.child.stdout!.on('data', (b: Buffer) => { got += b.length; });
    await r.waitStderr('written', 120_000);
    // Wait until the recorder has stored the line (the tap stays up: the agent waits for stdin).
    for (let i = 0; i < 400; i++) {
      let stored = false;
      // The database's file is there a moment before its tables (a read-only open refuses it then).
      try { stored = existsSync(db) && withStore(db, (s) => s.db.prepare(`SELECT count(*) AS n FROM items WHERE dir = 'a2c'`).get() as { n: number }).n > 0; } catch { /* not made yet */ }
      if (stored) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    const peakKb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${r.child.pid}/status`, 'utf8'))![1]);
    r.child.stdin!.end();
    const res = await r.done;
    expect(res.code).toBe(0);
    expect(got).toBe(total + 1);
    expect(tapLines(res.stderr)).toEqual([]);
    // Without a cap the recorder held the whole line (several copies); with it, a bounded amount.
    expect(peakKb).toBeLessThan(800 * 1024);
    const items = withStore(db, (s) => s.readItems(s.resolveRef('latest')));
    const frame = items.find((i) => i.dir === 'a2c') as Frame | undefined;
    // If the recorder fell behind (a burst right at start-up, before its thread runs), a gap was
    // marked and the frame holds what came after it — or there is none, if the gap reached the end.
    const gaps = items.filter((i) => i.dir === 'event' && (i as { type: string }).type === 'gap');
    const status = withStore(db, (s) => s.listRecordings()[0]!.status);
    if (gaps.length > 0 && frame === undefined) {
      expect(status).toBe('incomplete');
      return;
    }
    expect(frame).toBeDefined();
    if (!frame) return;
    expect(Buffer.byteLength(frame.raw)).toBeLessThanOrEqual(64 * 1024 * 1024);
    if (gaps.length === 0) {
      expect(frame.truncated).toBe(true);
      expect(frame.kind).toBe('invalid');
      expect(Buffer.byteLength(frame.raw)).toBe(64 * 1024 * 1024);
      expect(frame.size).toBe(total);
      expect(status).toBe('complete');
    } else {
      expect(frame.size).toBeLessThan(total);
      expect(status).toBe('incomplete');
    }
  });
});
