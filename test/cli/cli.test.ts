/** The CLI's record-keeping commands through the real binary, and their one-line errors. */
import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, ROOT, cli, tempDir } from '../helpers.js';

let cleanup = () => {};
afterEach(() => cleanup());
const SAMPLE = join(ROOT, 'recordings', 'sdk-example.jsonl');

function oneLineError(r: { code: number | null; stderr: string }, pattern: RegExp) {
  expect(r.code).not.toBe(0);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^acp-inspect: /);
  expect(lines[0]).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('list, show, export, import, rm', () => {
  it('imports a transcript, lists it, shows it, exports it losslessly, and removes it', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const db = join(t.dir, 'db.sqlite');
    const empty = await cli(['list', '--json', '--db', db]);
    expect(JSON.parse(empty.stdout.toString())).toEqual([]);

    const imp = await cli(['import', SAMPLE, '--db', db, '--name', 'sample']);
    expect(imp.code, imp.stderr).toBe(0);
    const id = imp.stdout.toString().trim();
    expect(id).toBe('1');

    const list = JSON.parse((await cli(['list', '--json', '--db', db])).stdout.toString());
    expect(list[0]).toMatchObject({ id: 1, name: 'sample', frames: 15 });
    const table = (await cli(['list', '--db', db])).stdout.toString();
    expect(table).toMatch(/^ID\s+NAME/);
    expect(table).toContain('sample');

    const show = (await cli(['show', 'latest', '--db', db])).stdout.toString();
    // JSON-RPC ids are id=N; #N is the item number.
    expect(show).toMatch(/C→A request\s+initialize\s+id=0 /);
    expect(show).toMatch(/C←A result\s+session\/prompt\s+id=2 \d/);
    expect(show).not.toMatch(/ #\d/);

    const out = join(t.dir, 'out.jsonl');
    const exp = await cli(['export', id, '-o', out, '--db', db, '--no-redact']);
    expect(exp.code, exp.stderr).toBe(0);
    const original = readFileSync(SAMPLE, 'utf8').split('\n').slice(1);
    expect(readFileSync(out, 'utf8').split('\n').slice(1)).toEqual(original);
    // export → import → export is lossless, header included
    const imp2 = await cli(['import', out, '--db', db]);
    const exp2 = await cli(['export', imp2.stdout.toString().trim(), '--db', db, '--no-redact']);
    const first = readFileSync(out, 'utf8').split('\n');
    const second = exp2.stdout.toString().split('\n');
    expect(second.slice(1)).toEqual(first.slice(1));

    const rm = await cli(['rm', id, '--db', db]);
    expect(rm.code).toBe(0);
    expect(JSON.parse((await cli(['list', '--json', '--db', db])).stdout.toString()).map((r: any) => r.id)).toEqual([2]);
  });

  it('answers bad input with one line and a non-zero exit', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const db = join(t.dir, 'db.sqlite');
    await cli(['import', SAMPLE, '--db', db]);
    oneLineError(await cli(['show', '42', '--db', db]), /no recording with id 42.*acp-inspect list/);
    oneLineError(await cli(['export', 'abc', '--db', db]), /not a recording id/);
    oneLineError(await cli(['rm', '7', '--db', db]), /no recording with id 7/);
    oneLineError(await cli(['import', join(t.dir, 'missing.jsonl'), '--db', db]), /does not exist/);
    oneLineError(await cli(['show', 'latest', '--db', join(t.dir, 'nope.sqlite')]), /does not exist/);
    const bad = join(t.dir, 'bad.jsonl');
    writeFileSync(bad, '{"dir":"c2a","raw":"{}"}\nthis is not json\n');
    oneLineError(await cli(['import', bad, '--db', db]), /bad\.jsonl: line 2: not JSON/);
    const corrupt = join(t.dir, 'corrupt.sqlite');
    writeFileSync(corrupt, 'garbage'.repeat(1000));
    oneLineError(await cli(['list', '--db', corrupt]), /corrupt/);
    oneLineError(await cli(['list', '--bogus']), /unknown option '--bogus'/);
    oneLineError(await cli(['frobnicate']), /unknown command/);
    mkdirSync(join(t.dir, 'folder.jsonl'));
    oneLineError(await cli(['import', join(t.dir, 'folder.jsonl'), '--db', db]), /is a folder/);
    // nothing was lost or changed by the failures
    expect(JSON.parse((await cli(['list', '--json', '--db', db])).stdout.toString())).toHaveLength(1);
  });
});

describe('a reader that stops early', () => {
  it('ends `check --json | head` quietly, with the exit code the findings give', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    // Updates for a session never created: one error each, far more output than a pipe holds.
    const file = join(t.dir, 'many.jsonl');
    const lines = [JSON.stringify({ acpInspect: 'recording', version: 1 })];
    for (let i = 0; i < 20_000; i++) {
      const raw = JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'nope', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `piece ${i}` } } } });
      lines.push(JSON.stringify({ t: i, dir: 'a2c', raw }));
    }
    writeFileSync(file, lines.join('\n') + '\n');
    const child = spawn(process.execPath, [BIN, 'check', file, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    // Read the first chunk, then stop reading, as `head -1` does.
    const first = await new Promise<string>((res) => child.stdout.once('data', (d: Buffer) => { child.stdout.destroy(); res(d.toString()); }));
    expect(first).toMatch(/^\{"seq":/);
    const code = await new Promise<number | null>((res) => child.on('close', (c) => res(c)));
    expect(stderr).toBe('');
    expect(code).toBe(1);
  });
});
