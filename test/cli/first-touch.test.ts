/**
 * A newcomer's first mistakes through the real binary: each gets one line that says the fix, and
 * nothing claims more than happened.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeDiffs, diffJson } from '../../src/replay/json-diff.js';
import { describeReply, type Reply } from '../../src/probe/connection.js';
import { errorText } from '../../src/probe/client/scenario.js';
import { BIN, cli, PEERS, ROOT, run, tempDir } from '../helpers.js';

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

  it('tap --help is its usage; a -h after -- is the agent\'s', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const help = await cli(['tap', '--help']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout.toString()).toMatch(/^Usage: acp-inspect tap \[--db FILE\] .* -- <agent command> \[args\.\.\.\]/);
    const agent = await cli(['tap', '--db', join(t.dir, 'db.sqlite'), '--', '/bin/sh', '-c', 'echo "$@"', 'sh', '-h']);
    expect(agent.code, agent.stderr).toBe(0);
    expect(agent.stdout.toString()).toBe('-h\n');
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
    let rec: { status: string; incomplete: boolean; incompleteReason?: string } | undefined;
    for (let i = 0; i < 100; i++) {
      const list = await cli(['list', '--json', '--db', db]);
      rec = JSON.parse(list.stdout.toString())[0];
      if (rec && rec.status !== 'running' && rec.status !== 'interrupted') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(rec).toMatchObject({ status: 'incomplete', incomplete: true, incompleteReason: 'the agent did not start: command not found' });
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

describe('wording', () => {
  it('pluralises counts: 1 item, 1 error', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const file = join(t.dir, 'one.jsonl');
    writeFileSync(file, `${JSON.stringify({ t: 0, dir: 'a2c', raw: '{"jsonrpc":"2.0","id":5,"result":{}}' })}\n`);
    const db = join(t.dir, 'db.sqlite');
    const imp = await cli(['import', file, '--db', db]);
    expect(imp.stderr).toBe(`imported 1 item from ${file} as recording 1\n`);
    const exp = await cli(['export', '1', '--db', db, '-o', join(t.dir, 'out.jsonl')]);
    expect(exp.stderr).toBe(`wrote 1 item to ${join(t.dir, 'out.jsonl')}\n`);
    const check = await cli(['check', file]);
    expect(check.stdout.toString()).toMatch(/^.*one\.jsonl: 1 frame checked — 1 error, 0 warnings, 0 info\n/);
    expect(check.stdout.toString()).toContain('(1 finding)');
  });

  it('says a field only one side has is "not in b", not "not in the b"', () => {
    const [line] = describeDiffs(diffJson({ x: 1 }, { x: 1, y: 2 }), { recorded: 'a', live: 'b' });
    expect(line).toBe('y: b 2, not in a');
    expect(describeDiffs(diffJson({ x: 1 }, { x: 1, y: 2 }))[0]).toBe('y: live 2, not in the recording');
  });

  it('quotes an error message that has quotes of its own once, not ""Method not found"', () => {
    expect(describeReply({ error: { code: -32601, message: '"Method not found": _x/y' } } as Reply)).toBe('error -32601 "\\"Method not found\\": _x/y"');
    expect(describeReply({ error: { code: -32603, message: 'Internal error' } } as Reply)).toBe('error -32603 "Internal error"');
    expect(errorText({ code: -32601, message: '"Method not found": _x/y' })).toBe('error -32601 "\\"Method not found\\": _x/y"');
  });

  it('names the default database this environment gives in --help', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const env = { ...process.env, XDG_DATA_HOME: t.dir, ACP_INSPECT_DB: '' };
    for (const cmd of ['show', 'list', 'check']) {
      const r = await cli([cmd, '--help'], { env });
      const help = r.stdout.toString().replace(/\s+/g, ' ');
      expect(help, cmd).toContain(`default: ${join(t.dir, 'acp-inspect', 'recordings.sqlite')}`);
      expect(help, cmd).not.toMatch(/default: ~\/\.local\/share/);
    }
    const own = await cli(['show', '--help'], { env: { ...env, ACP_INSPECT_DB: join(t.dir, 'mine.sqlite') } });
    expect(own.stdout.toString().replace(/\s+/g, ' ')).toContain(`default: ${join(t.dir, 'mine.sqlite')}`);
  });
});

describe('--no-color', () => {
  it('is taken by every command, before or after its name', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const db = join(t.dir, 'db.sqlite');
    expect((await cli(['import', join(ROOT, 'recordings', 'sdk-example.jsonl'), '--db', db, '--no-color'])).code).toBe(0);
    const runs: string[][] = [
      ['list'], ['show', '1'], ['check', '1'], ['check', '--rules'], ['export', '1', '-o', join(t.dir, 'x.jsonl')], ['note', 'list'],
      ['diff', '1', '1'], ['doctor'], ['probe', 'agent', '--list'], ['probe', 'client', '--list'], ['prune', '--keep', '5'], ['index'],
    ];
    for (const args of runs) {
      for (const line of [[...args, '--db', db, '--no-color'], ['--no-color', '--db', db, ...args]]) {
        const r = await cli(line);
        expect(r.code, `${line.join(' ')}: ${r.stderr}`).toBe(0);
        expect(r.stdout.toString()).not.toContain('\x1b[');
      }
    }
    // Commands that serve (serve, mcp) list it in their help; the tap takes it before --.
    for (const cmd of ['serve', 'mcp', 'replay', 'rm']) expect((await cli([cmd, '--help'])).stdout.toString(), cmd).toContain('--no-color');
    const tap = await cli(['--no-color', '--db', db, '--', process.execPath, '-e', '']);
    expect(tap.code, tap.stderr).toBe(0);
  });

  // A terminal (script(1) gives the command one): show colours there, unless told not to.
  it.skipIf(!existsSync('/usr/bin/script'))('turns show\'s colour off on a terminal, as NO_COLOR does', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const db = join(t.dir, 'db.sqlite');
    expect((await cli(['import', join(ROOT, 'recordings', 'sdk-example.jsonl'), '--db', db])).code).toBe(0);
    const onTty = (args: string[], env: NodeJS.ProcessEnv = {}) =>
      run('/usr/bin/script', ['-qec', [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' '), '/dev/null'], { env: { ...env, NO_COLOR: env.NO_COLOR ?? '' } });
    const coloured = await onTty(['show', '1', '--db', db]);
    expect(coloured.stdout.toString()).toContain('\x1b[');
    const plain = await onTty(['show', '1', '--db', db, '--no-color']);
    expect(plain.stdout.toString()).toContain('initialize');
    expect(plain.stdout.toString()).not.toContain('\x1b[');
    const env = await onTty(['show', '1', '--db', db], { NO_COLOR: '1' });
    expect(env.stdout.toString()).not.toContain('\x1b[');
  });
});
