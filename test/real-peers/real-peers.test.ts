/**
 * Recordings of real third-party ACP peers made through the tap (recordings/real/, see its README):
 * - every recording is checked and its findings compared with the `*.expected.json` beside it
 *   (seq, severity, rule, spec; an entry may carry a `note`). An expected error must carry a note
 *   saying why it is a real violation by the peer: conformant real peers must raise no error.
 *   Regenerate after a deliberate checker change with
 *   UPDATE_REAL=1 npx vitest run test/real-peers, then review the diff (notes are kept).
 * - every recording survives parse → serialize unchanged (export → import → export is lossless),
 *   and holds no machine path.
 * - replay: a real agent's recording (an older SDK's example agent) is played to the SDK 1.9.0
 *   example client, and a real client's recording is played to the SDK 1.9.0 example agent.
 * The third-party packages themselves are not needed: only their recordings are in the repo.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTranscript, serializeTranscript } from '../../src/transcript/format.js';
import { checkRecording } from '../../src/check/index.js';
import { BIN, EXAMPLE_AGENT, ROOT, cli, run, runExampleClient, sh, tempDir } from '../helpers.js';

const dir = join(ROOT, 'recordings', 'real');
const files = readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort();
const read = (f: string) => readFileSync(join(dir, f), 'utf8');

interface Expected {
  seq: number;
  severity: string;
  rule: string;
  spec: string;
  note?: string;
}

describe('recordings of real third-party peers', () => {
  it('there are real-peer recordings, each with its expected findings', () => {
    expect(files.length).toBeGreaterThanOrEqual(10);
    for (const f of files) expect(existsSync(join(dir, f.replace(/\.jsonl$/, '.expected.json'))), f).toBe(true);
  });

  for (const f of files) {
    it(`${f} gives the expected findings, and no error that is not a noted real violation`, () => {
      const got = checkRecording(parseTranscript(read(f))).map(({ seq, severity, rule, spec }) => ({ seq, severity, rule, spec }));
      const expectedFile = join(dir, f.replace(/\.jsonl$/, '.expected.json'));
      const expected = (existsSync(expectedFile) || !process.env.UPDATE_REAL ? JSON.parse(readFileSync(expectedFile, 'utf8')) : []) as Expected[];
      if (process.env.UPDATE_REAL) {
        const notes = new Map(expected.filter((e) => e.note).map((e) => [`${e.seq} ${e.rule}`, e.note]));
        const next = got.map((g) => (notes.has(`${g.seq} ${g.rule}`) ? { ...g, note: notes.get(`${g.seq} ${g.rule}`) } : g));
        writeFileSync(expectedFile, JSON.stringify(next, null, 1) + '\n');
        return;
      }
      expect(got).toEqual(expected.map(({ seq, severity, rule, spec }) => ({ seq, severity, rule, spec })));
      for (const e of expected) if (e.severity === 'error') expect(e.note, `${f}: error ${e.rule} at #${e.seq} needs a note`).toMatch(/real violation/);
    });
  }

  it('every recording is lossless through parse and serialize, and anonymized', () => {
    for (const f of files) {
      const text = read(f);
      expect(serializeTranscript(parseTranscript(text)), f).toBe(text);
      for (const leak of ['/tmp/', '/root', '/work/', '/Users/']) expect(text.includes(leak), `${f} contains ${leak}`).toBe(false);
    }
  });

  it('every recording has frames in both directions and ends with the agent\'s exit (the client probe is the agent: no process to exit)', () => {
    for (const f of files) {
      const rec = parseTranscript(read(f));
      const items = rec.items;
      expect(items.some((i) => i.dir === 'c2a'), f).toBe(true);
      expect(items.some((i) => i.dir === 'a2c'), f).toBe(true);
      if ((rec.header as { probe?: { kind?: string } }).probe?.kind === 'client') continue;
      expect(items.filter((i) => i.dir === 'event').map((i) => (i as { type?: string }).type), f).toContain('exit');
    }
  });
});

describe('replaying real peers', () => {
  it('an old SDK example agent (0.26.0, as recorded) serves the SDK 1.9.0 example client to the end of its turn', async () => {
    const rec = join(dir, 'sdk-0.13-client-sdk-0.26-agent.jsonl');
    const r = await runExampleClient(`${sh(process.execPath)} ${sh(BIN)} replay --as agent ${sh(rec)}`);
    expect(r.stdout.toString()).toContain('Agent completed with: end_turn');
    expect(r.stderr).toMatch(/replay: done: 4 matched \(0 with differences\), 0 unmatched/);
  });

  /** Runs the 2.4.0-SDK harness client (client.mjs flags) against `replay --as agent` of a real recording. */
  async function clientAgainst(recording: string, flags: string[]): Promise<string> {
    const t = tempDir('acp-real-replay-');
    try {
      const client = join(ROOT, 'test', 'real-peers', 'harness', 'client.mjs');
      const r = await run(process.execPath, [client, t.dir, '--cwd', t.dir, ...flags, '--', process.execPath, BIN, 'replay', '--as', 'agent', join(dir, recording)], { timeoutMs: 40_000 });
      return r.stderr;
    } finally {
      t.cleanup();
    }
  }

  it('codex-acp (a Rust agent, as recorded) serves a 2.4.0-SDK client through auth, set_mode, a cancelled turn and close', async () => {
    const out = await clientAgainst('codex-acp-cancelled-turn.jsonl', ['--auth', 'codex-api-key', '--list', '--set-mode', '--prompt', 'List the files in this project.', '--cancel-after', '300', '--close']);
    expect(out).toContain('[client] session/prompt ok {"stopReason":"cancelled"}');
    expect(out).toContain('[client] session/close ok');
    expect(out).toMatch(/replay: done: 8 matched \(0 with differences\), 0 unmatched/);
  });

  const toolsPrompt = ['--prompt', 'Read the README, list the files and write NOTES.md.'];
  it('claude-code-acp (as recorded) takes a 2.4.0-SDK client through fs, terminal and permission requests', async () => {
    const out = await clientAgainst('claude-code-acp-tools.jsonl', toolsPrompt);
    expect(out).toContain('[client] session/prompt ok {"stopReason":"end_turn"}');
    expect(out).toMatch(/replay: done: 11 matched \(0 with differences\), 0 unmatched/);
  });

  it('claude-code-acp (as recorded) ends the turn cancelled when the client cancels during a permission request', async () => {
    const out = await clientAgainst('claude-code-acp-tools-cancel.jsonl', [...toolsPrompt, '--cancel-on-permission']);
    expect(out).toContain('[client] session/prompt ok {"stopReason":"cancelled"}');
    expect(out).toMatch(/replay: done: 6 matched \(0 with differences\), 0 unmatched/);
  });

  it('codex-acp (as recorded) takes a 2.4.0-SDK client through a plan and a permission request with a string id', async () => {
    const out = await clientAgainst('codex-acp-tools.jsonl', ['--auth', 'codex-api-key', '--prompt', 'List the files, plan, and write NOTES.md.']);
    expect(out).toContain('[client] update plan');
    expect(out).toContain('[client] session/prompt ok {"stopReason":"end_turn"}');
    expect(out).toMatch(/replay: done: 5 matched \(0 with differences\), 0 unmatched/);
  });

  it('the zed 0.4.5 example client (as recorded) drives the SDK 1.9.0 example agent to an equivalent exchange', async () => {
    const t = tempDir('acp-real-replay-');
    try {
      const r = await cli(['replay', '--as', 'client', join(dir, 'zed-acp-0.4.5-examples.jsonl'), '--cwd', t.dir, '--', process.execPath, EXAMPLE_AGENT], { timeoutMs: 40_000 });
      expect(r.stdout.toString()).toMatch(/replay: equivalent: 11 agent frames matched; 0 changed, 0 missing, 0 extra/);
      expect(r.code).toBe(0);
    } finally {
      t.cleanup();
    }
  });
});
