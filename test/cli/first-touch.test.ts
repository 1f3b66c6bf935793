/**
 * A newcomer's first mistakes through the real binary: each gets one line that says the fix, and
 * nothing claims more than happened.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { cli, PEERS, ROOT, tempDir } from '../helpers.js';

let cleanup = () => {};
afterEach(() => cleanup());

function oneLine(r: { code: number | null; stderr: string }): string {
  expect(r.code).not.toBe(0);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  return lines[0]!;
}

describe('the tap without --', () => {
  const agent = join(PEERS, 'echo-agent.mjs');

  it('says to put -- before the agent command, with the corrected line', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const db = join(t.dir, 'db.sqlite');
    const cases: [string[], string][] = [
      [['--name', 'x', 'node', agent], `acp-inspect --name x -- node ${agent}`],
      [['node', agent], `acp-inspect -- node ${agent}`],
      [['tap', '--name', 'my agent', 'node', agent], `acp-inspect tap --name 'my agent' -- node ${agent}`],
      [['--db', db, '--ui', agent], `acp-inspect --db ${db} --ui -- ${agent}`],
      [['--otlp', 'http://localhost:4318', 'node', agent], `acp-inspect --otlp http://localhost:4318 -- node ${agent}`],
    ];
    for (const [args, fixed] of cases) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(oneLine(r)).toBe(`acp-inspect: put \`--\` before the agent's command: ${fixed}`);
      expect(r.stdout.length).toBe(0);
    }
  });

  it('leaves a mistyped command to the "did you mean" it deserves', async () => {
    const r = await cli(['lsit']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'lsit'/);
    expect(r.stderr).toMatch(/Did you mean list\?/);
    expect(r.stderr).not.toMatch(/--` before/);
    // An option that is not the tap's is still commander's to name.
    const o = await cli(['--nmae', 'x', 'node', 'agent.js']);
    expect(o.stderr).toMatch(/unknown option '--nmae'/);
  });
});

describe('a tap of a command that does not exist', () => {
  it('exits 127, leaves a recording that is not complete, and check does not pass it', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const db = join(t.dir, 'db.sqlite');
    const tap = await cli(['--db', db, '--', 'acp-inspect-no-such-agent', '--x']);
    expect(tap.code).toBe(127);
    expect(oneLine(tap)).toBe('acp-inspect: cannot start agent "acp-inspect-no-such-agent": command not found');
    // The recording may still be finishing in a detached indexer: wait until it is no longer running.
    let rec: { status: string; incomplete: boolean } | undefined;
    for (let i = 0; i < 100; i++) {
      const list = await cli(['list', '--json', '--db', db]);
      rec = JSON.parse(list.stdout.toString())[0];
      if (rec && rec.status !== 'running' && rec.status !== 'interrupted') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(rec).toMatchObject({ status: 'incomplete', incomplete: true });
    const show = await cli(['show', '1', '--db', db]);
    expect(show.stdout.toString()).toMatch(/spawn-error/);

    for (const args of [['check', '1'], ['check', 'latest'], ['check', 'latest', '--json']]) {
      const r = await cli([...args, '--db', db]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(oneLine(r)).toBe('acp-inspect: recording 1: nothing to check: its agent did not start ("acp-inspect-no-such-agent": command not found); fix the agent\'s command and record it again');
      expect(r.stdout.length).toBe(0);
    }
    // The same from its transcript.
    const file = join(t.dir, 'failed.jsonl');
    expect((await cli(['export', '1', '--db', db, '-o', file])).code).toBe(0);
    const f = await cli(['check', file]);
    expect(f.code).toBe(2);
    expect(oneLine(f)).toMatch(/^acp-inspect: .*failed\.jsonl: nothing to check: its agent did not start/);
  });
});

describe('check latest', () => {
  it('names the recording by its id, not "latest"', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const db = join(t.dir, 'db.sqlite');
    for (let i = 0; i < 2; i++) expect((await cli(['import', join(ROOT, 'recordings', 'sdk-example.jsonl'), '--db', db])).code).toBe(0);
    const r = await cli(['check', 'latest', '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.toString()).toMatch(/^recording 2: 15 frames checked — 0 errors, 2 warnings, 0 info\n/);
  });
});
