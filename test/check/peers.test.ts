/**
 * Real peers: conformant exchanges recorded between real ACP implementations must raise no error.
 * - the SDK 1.9.0 example client and agent (run unchanged; the client's `npx tsx agent.ts` is
 *   answered by a shim that runs the compiled agent.js through the tee),
 * - a client and an agent written on the 2.4.0 SDK API (test/check/peers/), which exercise auth,
 *   modes, fs, terminals, permissions, cancellation, list, load and close.
 * Then violations are planted into the real recording and must be found.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTranscript } from '../../src/transcript/format.js';
import { checkRecording, type Finding } from '../../src/check/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'acp-check-peers-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const errors = (f: Finding[]) => f.filter((x) => x.severity === 'error');

function checkFile(file: string): Finding[] {
  return checkRecording(parseTranscript(readFileSync(file, 'utf8')));
}

describe('SDK 1.9.0 example client ↔ example agent', () => {
  const out = join(tmp, 'sdk-example.jsonl');
  beforeAll(() => {
    const bin = join(tmp, 'bin');
    execFileSync('mkdir', ['-p', bin]);
    writeFileSync(join(bin, 'npx'), `#!/bin/sh\nagent=$(echo "$2" | sed 's/\\.ts$/.js/')\nexec "${process.execPath}" "${join(here, 'peers', 'tee-agent.mjs')}" "${out}" -- "${process.execPath}" "$agent"\n`);
    chmodSync(join(bin, 'npx'), 0o755);
    const r = spawnSync(process.execPath, [join(root, 'node_modules', 'acp-sdk-v1-examples', 'dist', 'examples', 'client.js')], {
      input: '1\n', // the example client asks which permission option to pick
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(r.stdout).toContain('end_turn');
  });

  it('raises no error on the recorded exchange', () => {
    const f = checkFile(out);
    const rec = parseTranscript(readFileSync(out, 'utf8'));
    expect(rec.items.filter((i) => i.dir === 'a2c' || i.dir === 'c2a').length).toBeGreaterThan(10);
    expect(errors(f)).toEqual([]);
    // The example peers send neither clientInfo nor agentInfo: SHOULD-level, so warnings only.
    expect(f.map((x) => x.rule).sort()).toEqual(['missing-agent-info', 'missing-client-info']);
  });
});

describe('2.4.0 SDK client ↔ agent (auth, modes, fs, terminals, permissions, cancel, list, load, close)', () => {
  const out = join(tmp, 'rich.jsonl');
  let text = '';
  beforeAll(() => {
    execFileSync(process.execPath, [join(here, 'peers', 'rich-client.mjs'), out], { timeout: 120_000, stdio: ['ignore', 'ignore', 'inherit'] });
    text = readFileSync(out, 'utf8');
  });

  it('raises no finding at all on the recorded exchange', () => {
    expect(text).toContain('"stopReason\\":\\"cancelled\\"');
    expect(checkFile(out)).toEqual([]);
  });

  /** Replaces the first raw line matching `find` in the real recording and checks it. */
  function plant(find: RegExp, replace: (raw: Record<string, unknown>) => unknown): Finding[] {
    const lines = text.trimEnd().split('\n');
    const i = lines.findIndex((l) => find.test(l));
    expect(i).toBeGreaterThanOrEqual(0);
    const o = JSON.parse(lines[i]!) as { raw: string };
    const raw = replace(JSON.parse(o.raw) as Record<string, unknown>);
    lines[i] = JSON.stringify({ ...o, raw: typeof raw === 'string' ? raw : JSON.stringify(raw) });
    return checkRecording(parseTranscript(lines.join('\n') + '\n'));
  }

  it('finds a permission answered "selected" after session/cancel', () => {
    const f = plant(/outcome\\":\{\\"outcome\\":\\"cancelled/, (m) => ({ ...m, result: { outcome: { outcome: 'selected', optionId: 'yes' } } }));
    expect(errors(f).map((x) => x.rule)).toEqual(['permission-not-cancelled']);
  });

  it('finds a terminal used after release', () => {
    const f = plant(/terminal\/wait_for_exit/, (m) => ({ ...m, method: 'terminal/release' }));
    expect(errors(f).map((x) => x.rule)).toContain('terminal-released');
  });

  it('finds agent logging on stdout', () => {
    const f = plant(/fs\/write_text_file/, () => '[debug] writing NOTES.md');
    expect(f.find((x) => x.rule === 'not-json')?.message).toMatch(/stderr/);
  });

  it('finds set_mode with a mode that was not advertised', () => {
    const f = plant(/session\/set_mode/, (m) => ({ ...m, params: { sessionId: 'sess-1', modeId: 'yolo' } }));
    expect(errors(f).map((x) => x.rule)).toEqual(['set-mode-unadvertised']);
  });
});
