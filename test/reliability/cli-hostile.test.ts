/**
 * Hostile input for every CLI command: unknown ids, huge and negative numbers, malformed JSONL, a
 * transcript that is not JSON, wrong types in the header, a folder instead of a file, bad flags.
 * Each answer is one line on stderr, a non-zero exit, no stack trace, and stored data unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync, chmodSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { makeTmp, run, withStore, rpc } from './helpers.js';
import { Store } from '../../src/store/store.js';

const tmp = makeTmp();
const db = join(tmp.dir, 'data.db');
const f = (name: string, text: string | Buffer) => {
  const p = join(tmp.dir, name);
  writeFileSync(p, text);
  return p;
};
const good = [
  JSON.stringify({ acpInspect: 'recording', version: 1, name: 'good' }),
  JSON.stringify({ t: 0, dir: 'c2a', raw: rpc({ id: 0, method: 'initialize', params: { protocolVersion: 1 } }) }),
  JSON.stringify({ t: 1, dir: 'a2c', raw: rpc({ id: 0, result: { protocolVersion: 1 } }) }),
].join('\n') + '\n';

/** Everything stored, as one string: compared before and after each hostile command. */
function dump(): string {
  return withStore(db, (s) => JSON.stringify([
    s.db.prepare('SELECT * FROM recordings ORDER BY id').all(),
    s.db.prepare('SELECT recording_id, seq, raw FROM items ORDER BY recording_id, seq').all(),
    s.db.prepare('SELECT * FROM findings ORDER BY recording_id, seq, rowid').all(),
  ]));
}

let before = '';
const files: Record<string, string> = {};

beforeAll(async () => {
  const goodFile = f('good.jsonl', good);
  for (let i = 0; i < 2; i++) expect((await run(['import', goodFile, '--db', db])).code).toBe(0);
  files.notJson = f('not-json.jsonl', 'hello, this is not JSON\nat all\n');
  files.malformed = f('malformed.jsonl', good + '{"t":2,"dir":"c2a","raw":\n');
  files.binary = f('binary.jsonl', randomBytes(4096));
  files.versionType = f('version-type.jsonl', '{"acpInspect":"recording","version":"one"}\n');
  files.versionNew = f('version-new.jsonl', '{"acpInspect":"recording","version":99}\n');
  files.nameType = f('name-type.jsonl', '{"acpInspect":"recording","version":1,"name":5}\n');
  files.commandType = f('command-type.jsonl', '{"acpInspect":"recording","version":1,"command":"node agent.js"}\n');
  files.tType = f('t-type.jsonl', '{"t":"soon","dir":"c2a","raw":"{}"}\n');
  files.dirType = f('dir-type.jsonl', '{"t":1,"dir":5,"raw":"{}"}\n');
  files.noRaw = f('no-raw.jsonl', '{"t":1,"dir":"c2a"}\n');
  files.arrayLine = f('array-line.jsonl', '[1,2,3]\n');
  files.folder = join(tmp.dir, 'a-folder.jsonl');
  mkdirSync(files.folder);
  files.garbageDb = f('garbage.db', randomBytes(8192));
  before = dump();
});
afterAll(() => tmp.cleanup());

type Case = [label: string, args: () => string[], expectLine?: RegExp];
const D = () => ['--db', db];
const cases: Case[] = [
  // unknown ids, huge and negative numbers
  ['show unknown id', () => ['show', '999', ...D()], /no recording with id 999/],
  ['export unknown id', () => ['export', '999', ...D()], /999/],
  ['rm unknown id', () => ['rm', '999', ...D()], /999/],
  ['rm known and unknown ids (all or nothing)', () => ['rm', '1', '999', ...D()], /999/],
  ['check unknown id', () => ['check', '999', ...D()], /999/],
  ['diff unknown id', () => ['diff', '1', '999', ...D()], /999/],
  ['replay unknown id', () => ['replay', '999', '--as', 'agent', ...D()], /999/],
  ['show huge id', () => ['show', '99999999999999999999999', ...D()], /not a recording id|99999/],
  ['export negative id', () => ['export', '-1', ...D()]],
  ['show word id', () => ['show', 'yesterday', ...D()]],
  ['show id with spaces', () => ['show', ' 1 ', ...D()]],
  ['prune --keep negative', () => ['prune', '--keep', '-1', ...D()]],
  ['prune --keep huge', () => ['prune', '--keep', '99999999999999999999999', ...D()], /--keep/],
  ['prune --keep word', () => ['prune', '--keep', 'all', ...D()], /--keep/],
  ['prune --older-than without unit', () => ['prune', '--older-than', '7', ...D()], /--older-than/],
  ['prune --older-than negative', () => ['prune', '--older-than', '-3d', ...D()]],
  ['prune with no rule', () => ['prune', ...D()], /--older-than|--keep/],
  ['serve --port too big', () => ['serve', '--port', '70000', ...D()]],
  ['serve --port negative', () => ['serve', '--port', '-1', ...D()]],
  // files that are not transcripts
  ['import not JSON', () => ['import', files.notJson!, ...D()], /line 1/],
  ['import malformed JSONL', () => ['import', files.malformed!, ...D()], /line 4/],
  ['import binary garbage', () => ['import', files.binary!, ...D()]],
  ['import header version of wrong type', () => ['import', files.versionType!, ...D()], /version/],
  ['import header version from the future', () => ['import', files.versionNew!, ...D()], /newer|upgrade/],
  ['import header name of wrong type', () => ['import', files.nameType!, ...D()], /name/],
  ['import header command of wrong type', () => ['import', files.commandType!, ...D()], /command/],
  ['import item t of wrong type', () => ['import', files.tType!, ...D()], /"t"/],
  ['import item dir of wrong type', () => ['import', files.dirType!, ...D()], /dir/],
  ['import item without raw or frame', () => ['import', files.noRaw!, ...D()], /raw/],
  ['import a JSON array line', () => ['import', files.arrayLine!, ...D()]],
  ['import a folder', () => ['import', files.folder!, ...D()], /folder/],
  ['import a missing file', () => ['import', join(tmp.dir, 'nope.jsonl'), ...D()], /does not exist/],
  ['check not JSON', () => ['check', files.notJson!], /line 1/],
  ['check a folder', () => ['check', files.folder!]],
  ['show not JSON', () => ['show', files.notJson!]],
  ['diff malformed', () => ['diff', files.malformed!, files.notJson!]],
  ['replay not JSON', () => ['replay', files.notJson!, '--as', 'agent']],
  ['export into a folder', () => ['export', '1', '-o', files.folder!, ...D()]],
  // export -o makes a missing folder (test/fixtures/x.jsonl in a new project); under a file it cannot
  ['export into a folder that cannot be made', () => ['export', '1', '-o', join(files.garbageDb!, 'no', 'x.jsonl'), ...D()]],
  // databases that are not databases
  ['list on a garbage database', () => ['list', '--db', files.garbageDb!], /corrupt/],
  ['show on a garbage database', () => ['show', '1', '--db', files.garbageDb!], /corrupt/],
  ['export on a folder as database', () => ['export', '1', '--db', files.folder!]],
  ['show on a missing database', () => ['show', 'latest', '--db', join(tmp.dir, 'missing.db')], /does not exist/],
  ['prune on a missing database', () => ['prune', '--keep', '1', '--db', join(tmp.dir, 'missing2.db')], /does not exist/],
  // bad flags and arguments
  ['unknown command', () => ['frobnicate']],
  ['unknown flag', () => ['list', '--bogus', ...D()], /bogus/],
  ['export missing argument', () => ['export', ...D()]],
  ['rm extra flag', () => ['rm', '1', '--force', ...D()]],
  ['tap without command', () => ['--db', db, '--']],
  ['tap unknown option', () => ['--frob', '--', 'true']],
  ['--db without value', () => ['list', '--db']],
];

describe('hostile CLI input', () => {
  it.concurrent.each(cases)('%s: one line, non-zero exit, no stack', async (_label, args, expectLine) => {
    const res = await run(args(), { env: { ACP_INSPECT_DB: join(tmp.dir, 'env-default.db') } });
    expect(res.code, res.stderr).not.toBe(0);
    expect(res.code).not.toBeNull();
    const lines = res.stderr.trim().split('\n');
    expect(lines, res.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^acp-inspect: /);
    expect(res.stderr).not.toMatch(/\n\s+at |node:internal|TypeError|ReferenceError/);
    if (expectLine) expect(lines[0]).toMatch(expectLine);
    expect(res.stdout.length).toBe(0);
  });

  it('left the stored data unchanged', () => {
    expect(dump()).toBe(before);
  });
});
