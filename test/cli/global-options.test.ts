/**
 * Options every command has go before or after the command name, as in git, npm or docker
 * (`acp-inspect --db FILE list`); the tap form keeps its options before `--`. The argument
 * rewriting in-process over the real command tree; every command through the real binary.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Command } from 'commander';
import { BIN, ROOT, cli, stopProcess, tempDir } from '../helpers.js';
import { buildProgram } from '../../src/cli/program.js';
import { GLOBAL_OPTIONS, hoistGlobalOptions, missingCommand } from '../../src/cli/global-options.js';

const SAMPLE = join(ROOT, 'recordings', 'sdk-example.jsonl');
const program = buildProgram();

/** Every command path of the program: ['list'], ['note'], ['note', 'list'], ... */
function paths(cmd: Command, prefix: string[] = []): string[][] {
  return cmd.commands.flatMap((c) => [[...prefix, c.name()], ...paths(c, [...prefix, c.name()])]);
}

describe('hoistGlobalOptions', () => {
  it('moves leading global options to just after the command, for every command and subcommand', () => {
    const all = paths(program);
    expect(all.map((p) => p.join(' '))).toEqual(expect.arrayContaining(['list', 'check', 'note', 'note list', 'tap', 'serve', 'mcp']));
    for (const p of all) {
      expect(hoistGlobalOptions(['--db', 'F.sqlite', '--json', ...p, 'x', '--other'], program), p.join(' ')).toEqual([...p, '--db', 'F.sqlite', '--json', 'x', '--other']);
      expect(hoistGlobalOptions(['--db=F.sqlite', ...p, 'x'], program)).toEqual([...p, '--db=F.sqlite', 'x']);
      expect(hoistGlobalOptions([...p, 'x', '--db', 'F.sqlite'], program)).toEqual([...p, 'x', '--db', 'F.sqlite']);
    }
    expect(hoistGlobalOptions(['ls', '--json'], program)).toEqual(['ls', '--json']);
    expect(hoistGlobalOptions(['--json', 'ls'], program)).toEqual(['ls', '--json']);
    expect(hoistGlobalOptions(['-h', 'note', 'rm'], program)).toEqual(['note', 'rm', '-h']);
  });

  it('leaves alone what is not a global option before a known command, and the tap form', () => {
    expect(hoistGlobalOptions(['--db', 'F', 'nosuch'], program)).toEqual(['--db', 'F', 'nosuch']);
    expect(hoistGlobalOptions(['--speed', '1', 'replay', 'x'], program)).toEqual(['--speed', '1', 'replay', 'x']);
    expect(hoistGlobalOptions(['--db', 'F', '--name', 'L', '--', 'agent', 'list'], program)).toEqual(['--db', 'F', '--name', 'L', '--', 'agent', 'list']);
    expect(hoistGlobalOptions(['--help'], program)).toEqual(['--help']);
  });

  it('says what is missing when global options come with no command, or an unknown one', () => {
    expect(missingCommand(['--db', 'F.sqlite'], program)).toBe('--db F.sqlite goes with a command, e.g. acp-inspect --db FILE list, or the tap: acp-inspect --db FILE -- <agent command>');
    expect(missingCommand(['--db'], program)).toMatch(/^--db goes with a command/);
    expect(missingCommand(['--json', 'lsit'], program)).toBe('unknown command "lsit"');
    for (const fine of [['--db', 'F', 'list'], ['list'], ['--db', 'F', '--', 'agent'], ['--db', 'F', '--name', 'x', '--', 'a'], ['--help'], []]) expect(missingCommand(fine, program), fine.join(' ')).toBeUndefined();
  });

  it('is offered by every command that reads the database (the tap parses its own --db)', () => {
    expect(GLOBAL_OPTIONS).toContain('--db');
    for (const p of paths(program)) {
      let c: Command = program;
      for (const name of p) c = c.commands.find((x) => x.name() === name)!;
      if (c.name() === 'tap' || c.name() === 'help') continue;
      if (c.commands.length > 0 && c.options.length === 0) continue; // a group (probe): its subcommands take the options
      expect(c.options.map((o) => o.long), p.join(' ')).toContain('--db');
    }
  });
});

describe('global options before and after the command name, through the binary', () => {
  const t = tempDir('acp-global-');
  const db = join(t.dir, 'db.sqlite');
  beforeAll(async () => {
    const r = await cli(['import', SAMPLE, '--db', db, '--name', 'sample']);
    expect(r.code, r.stderr).toBe(0);
  });
  afterAll(() => t.cleanup());

  /**
   * Runs the command with `opts` before its name. (After it is how every other test runs them, and
   * the rewriting above makes the one the other.)
   */
  async function before(command: string[], rest: string[], opts: string[]): Promise<string> {
    const r = await cli([...opts, ...command, ...rest]);
    expect(r.stderr, `${command.join(' ')}: ${r.stderr}`).not.toMatch(/unknown option|acp-inspect:/);
    expect(r.code, command.join(' ')).toBe(0);
    return r.stdout.toString();
  }

  it('list, ls, show, export, check, diff, doctor, prune and note list read the --db given before the command', async () => {
    const outs = await Promise.all([
      before(['list'], [], ['--db', db, '--json']),
      before(['ls'], [], [`--db=${db}`]),
      before(['show'], ['1'], ['--db', db]),
      before(['export'], ['1'], ['--db', db]),
      before(['check'], ['1'], ['--db', db, '--json']),
      before(['diff'], ['1', 'latest'], ['--db', db, '--json', '--no-color']),
      before(['doctor'], [], ['--db', db, '--json']),
      before(['prune'], ['--keep', '5', '--dry-run'], ['--db', db]),
      before(['note', 'list'], ['1'], ['--db', db, '--json']),
    ]);
    expect(JSON.parse(outs[0]!)[0]).toMatchObject({ id: 1, name: 'sample' });
    expect(outs[1]).toContain('sample');
    expect(outs[2]).toContain('session/prompt');
    expect(outs[3]).toContain('"acpInspect":"recording"');
    expect(outs[4]).toContain('missing-client-info');
    expect(JSON.parse(outs[5]!)).toMatchObject({ same: true });
    expect(outs[6]).toContain(db);
    expect(JSON.parse(outs[8]!)).toEqual([]);
  });

  it('import, note, replay, tap and rm write where a --db before the command says', async () => {
    const a = join(t.dir, 'a.sqlite');
    expect((await cli(['--db', a, 'import', SAMPLE])).stdout.toString()).toBe('1\n');
    const agent = ['--', process.execPath, '-e', 'process.stdin.resume(); process.stdin.on("end", () => process.exit(0))'];
    const [note, replay] = await Promise.all([
      cli(['--db', a, 'note', '1', '3', 'first']),
      // The agent side of a replay reads the recording from the database (no client: it ends at once).
      cli(['--db', a, 'replay', '--as', 'agent', '1']),
      // The tap: global options before `tap`, and the bare tap form.
      cli(['--db', a, 'tap', '--name', 'before', ...agent]),
      cli(['--db', a, '--name', 'bare', ...agent]),
    ]);
    expect(note!.stdout.toString()).toBe('1\n');
    expect(replay!.stderr).toMatch(/^replay: done/m);
    // One after the other: `rm 1` takes the notes with the recording.
    const notes = await cli(['--json', '--db', a, 'note', 'list', '1']);
    expect(JSON.parse(notes.stdout.toString())[0]).toMatchObject({ seq: 3, text: 'first' });
    expect((await cli(['--db', a, 'rm', '1'])).code).toBe(0);
    expect(JSON.parse((await cli(['--db', a, '--json', 'list'])).stdout.toString()).map((r: { name: string }) => r.name).sort()).toEqual(['bare', 'before']);
  });

  it('serve and mcp open the --db given before the command', async () => {
    const started = (args: string[]) => new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      const timer = setTimeout(() => { void stopProcess(child, 'SIGKILL').then(() => reject(new Error(`no answer from ${args.join(' ')}: ${out}`))); }, 120_000);
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (args.includes('serve') ? out.includes('http://') : out.includes('"id":2')) { clearTimeout(timer); void stopProcess(child).then(() => resolve(out)); }
      });
      if (args.includes('mcp')) {
        child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n');
        child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_recordings","arguments":{}}}\n');
      }
    });
    const [served, answered] = await Promise.all([started(['--db', db, 'serve', '--port', '0']), started(['--db', db, 'mcp'])]);
    expect(served).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    expect(answered).toContain('\\"sample\\"');
  });

  it('an option the command does not have is refused by name, pointing at that command\'s help', async () => {
    const r = await cli(['--json', 'serve']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("acp-inspect: unknown option '--json'; see acp-inspect serve --help\n");
    const [m, n, c] = await Promise.all([cli(['--db', 'x.sqlite']), cli(['note', 'list', '--bogus']), cli(['check', '--ignore', 'missing-client-info', SAMPLE])]);
    // A variadic option that took the recording says so.
    expect(c.stderr).toBe('acp-inspect: check needs a recording: an id, latest, or a .jsonl file; --ignore takes every word after it, so name the recording before it (check FILE --ignore RULE); see acp-inspect check --help\n');
    expect(m.stderr).toBe('acp-inspect: --db x.sqlite goes with a command, e.g. acp-inspect --db FILE list, or the tap: acp-inspect --db FILE -- <agent command>; see acp-inspect --help\n');
    expect(n.stderr).toBe("acp-inspect: unknown option '--bogus'; see acp-inspect note list --help\n");
  });
});
