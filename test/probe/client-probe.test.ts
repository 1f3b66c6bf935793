/**
 * The client probe against real client processes over real pipes: the probe runs in-process on the
 * stdio of test/peers/probe-client.mjs (a complete client), clean and with one defect planted each.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startClientProbe, type ClientProbeRun } from '../../src/probe/client/agent.js';
import { gradeScenario } from '../../src/probe/client/run.js';
import { PEERS, tempDir } from '../helpers.js';

interface Outcome {
  /** The last battery run. */
  run: ClientProbeRun;
  runs: ClientProbeRun[];
  /** What the test client saw: its stop reasons and the text of the agent messages. */
  seen: { stopReasons: unknown[]; text: string };
  stderr: string;
  code: number | null;
}

/** Runs the probe in-process against the test client with `defect` planted. */
function probeTestClient(defect: string, opts: { env?: Record<string, string>; only?: string[]; timeoutMs?: number } = {}): Promise<Outcome> {
  const { dir, cleanup } = tempDir('acp-probe-client-');
  const child = spawn(process.execPath, [join(PEERS, 'probe-client.mjs')], {
    cwd: dir, env: { ...process.env, PROBE_DEFECT: defect, PROBE_OUT: join(dir, 'client-out.json'), ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const runs: ClientProbeRun[] = [];
  const probe = startClientProbe({ input: child.stdout, output: child.stdin, timeoutMs: opts.timeoutMs ?? 5000, only: opts.only, onRunEnd: (r, endTurn) => {
    // Graded as the command grades it (expectation, then the checker over the exchange), without a database.
    const graded = r.scenarios.map((s) => gradeScenario(r, s));
    runs.push({ ...r, scenarios: r.scenarios.map((s, i) => ({ ...s, status: graded[i]!.status, why: graded[i]!.why, tier: graded[i]!.tier as typeof s.tier })) });
    endTurn(['(where the report is)'], graded);
  } });
  return new Promise((resolve, reject) => {
    child.on('close', async (code) => {
      await probe.done;
      const out = join(dir, 'client-out.json');
      const seen = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) as Outcome['seen'] : { stopReasons: [], text: '' };
      cleanup();
      if (!runs.length) reject(new Error(`no run reported; stderr: ${stderr}`));
      else resolve({ run: runs[runs.length - 1]!, runs, seen, stderr, code });
    });
  });
}

const failed = (run: ClientProbeRun): string[] => run.scenarios.filter((s) => s.status === 'fail').map((s) => s.id);

describe('probe client against the test client', () => {
  it('finds nothing wrong with the clean client', async () => {
    const { run, seen } = await probeTestClient('');
    expect(failed(run)).toEqual([]);
    expect(run.ended).toBe('turn-end');
    expect(seen.stopReasons).toEqual(['end_turn']);
    expect(seen.text).toContain('ACP client probe verdict: CONFORMANT');
    expect(seen.text).toContain('(where the report is)');
    expect(run.scenarios.find((s) => s.id === 'permission-cancel-turn')).toMatchObject({ status: 'skip', ran: false });
    expect(run.scenarios.find((s) => s.id === 'permission-cancel-turn')!.why).toMatch(/needs a person: send "\/probe permission-cancel-turn"/);
  });

  it('runs the groups a /probe prompt names, and answers other prompts with help', async () => {
    const { runs, seen } = await probeTestClient('', { env: { PROBE_PROMPT: '/probe fs, unknown-method\n---\nwhat are you?' } });
    expect(runs).toHaveLength(1);
    expect(runs[0]!.scenarios.map((s) => s.id)).toEqual(['unknown-method', 'fs-write', 'fs-read', 'fs-read-line-limit', 'fs-read-missing']);
    expect(failed(runs[0]!)).toEqual([]);
    expect(seen.stopReasons).toEqual(['end_turn', 'end_turn']);
    expect(seen.text).toContain('it has no model');
  });

  it('grades the person scenario when asked for: Stop while a permission request is shown', async () => {
    const ok = await probeTestClient('', { env: { PROBE_PROMPT: '/probe permission-cancel-turn', PROBE_PRESS_STOP: '1' } });
    expect(ok.run.scenarios).toMatchObject([{ id: 'permission-cancel-turn', status: 'pass' }]);
    expect(ok.run.ended).toBe('cancelled');
    expect(ok.seen.stopReasons).toEqual(['cancelled']);
    const bad = await probeTestClient('stop-answers-selected', { env: { PROBE_PROMPT: '/probe permission-cancel-turn', PROBE_PRESS_STOP: '1' } });
    expect(bad.run.scenarios).toMatchObject([{ id: 'permission-cancel-turn', status: 'fail' }]);
    expect(bad.run.scenarios[0]!.why).toMatch(/answered "probe-allow-once", not cancelled/);
  });

  // Each defect runs against the groups it could break (the whole battery runs for the clean client
  // above): every scenario of those but the defect's own must still pass.
  const DEFECTS: Record<string, { groups: string[]; failed: string[]; timeoutMs?: number }> = {
    'read-ignores-line-limit': { groups: ['fs'], failed: ['fs-read-line-limit'] },
    'missing-file-empty': { groups: ['fs'], failed: ['fs-read-missing'] },
    'write-ignored': { groups: ['fs'], failed: ['fs-write'] },
    'write-answer-not-jsonrpc': { groups: ['fs'], failed: ['fs-write'] },
    // Its output requests wait the whole timeout while a command runs, so it leaves out terminal-release
    // (which reads a running command's pid through terminal/output) to keep the test short.
    'output-waits-for-exit': { groups: ['terminal-output-limit', 'terminal-output-running', 'terminal-wait-for-exit', 'terminal-kill'], failed: ['terminal-output-running'], timeoutMs: 2000 },
    'truncate-keeps-start': { groups: ['terminal'], failed: ['terminal-output-limit'] },
    'truncate-splits-char': { groups: ['terminal'], failed: ['terminal-output-limit'] },
    'truncated-flag-false': { groups: ['terminal'], failed: ['terminal-output-limit'] },
    'kill-invalidates-id': { groups: ['terminal'], failed: ['terminal-kill'] },
    'release-keeps-id': { groups: ['terminal'], failed: ['terminal-release'] },
    'release-leaves-running': { groups: ['terminal'], failed: ['terminal-release'] },
    'permission-unoffered-option': { groups: ['permission', 'requests'], failed: ['permission-answer'] },
    // Answering `cancelled` when nothing was cancelled: what that outcome means otherwise is not shown (2.13): info.
    'permission-always-cancelled': { groups: ['permission'], failed: [] },
    'unknown-method-wrong-code': { groups: ['requests', 'updates'], failed: ['unknown-method'] },
    // A client that disconnects (here: it crashes on an unknown update kind) is graded on what ran; the
    // scenario it cut short is not failed (a client may hang up), but named with the /probe that reruns it.
    'crash-on-unknown-update': { groups: ['requests', 'updates', 'tools'], failed: [] },
    'truncated-always-true': { groups: ['terminal'], failed: ['terminal-wait-for-exit'] },
    'cancel-request-drops': { groups: ['permission'], failed: ['cancel-request'], timeoutMs: 2000 },
  };

  it('catches each planted defect, and only that one', async () => {
    const outcomes = await Promise.all(Object.entries(DEFECTS).map(async ([d, x]) =>
      [d, await probeTestClient(d, { only: x.groups, timeoutMs: x.timeoutMs })] as const));
    for (const [d, { run }] of outcomes) {
      const why = run.scenarios.filter((s) => s.status === 'fail').map((s) => `${s.id}: ${s.why}`);
      if (d === 'write-answer-not-jsonrpc') expect(why.join('\n')).toMatch(/fs-write: the checker found jsonrpc-version at #\d+/);
      expect({ defect: d, failed: failed(run) }, why.join('\n')).toEqual({ defect: d, failed: DEFECTS[d]!.failed });
      expect(run.scenarios.filter((s) => s.status === 'pass').length).toBeGreaterThan(0);
      // Each at its true tier: required only on a "must" (the checker's jsonrpc-version: JSON-RPC's MUST;
      // an answer that never comes after $/cancel_request: 7 rule 2); advisory where the spec only says what a client does.
      const required = d === 'write-answer-not-jsonrpc' || d === 'cancel-request-drops';
      for (const s of run.scenarios.filter((x) => x.status === 'fail')) expect(`${d} ${s.id} ${s.tier}`).toBe(`${d} ${s.id} ${required ? 'required' : 'advisory'}`);
    }
    expect(outcomes.find(([d]) => d === 'permission-always-cancelled')![1].run.scenarios.find((s) => s.id === 'permission-answer')).toMatchObject({ status: 'info', tier: 'info' });
    // A disconnect leaves the scenario running then not finished, and the rest not run, each naming the /probe that runs them.
    const crashed = outcomes.find(([d]) => d === 'crash-on-unknown-update')![1].run;
    expect(crashed.ended).toBe('disconnected');
    expect(crashed.scenarios.find((s) => s.id === 'update-unknown-kinds')).toMatchObject({ status: 'skip', why: expect.stringMatching(/^not finished: the client disconnected during this scenario.*"\/probe update-unknown-kinds /) });
    const after = crashed.scenarios.slice(crashed.scenarios.findIndex((s) => s.id === 'update-unknown-kinds') + 1);
    expect(after.length).toBeGreaterThan(0);
    for (const s of after) expect(s).toMatchObject({ status: 'skip', ran: false, why: expect.stringMatching(/^not run: the client disconnected during update-unknown-kinds; "\/probe update-unknown-kinds [^"]+" runs them$/) });
  });

  it('grades what ran when the client cancels the turn mid-battery, names what did not run, and offers the /probe that runs it', async () => {
    // This client sends session/cancel when it sees an update kind it does not know: its choice.
    const { run, seen } = await probeTestClient('cancel-on-unknown-update', { only: ['requests', 'updates', 'tools'] });
    expect(run.ended).toBe('cancelled');
    expect(failed(run)).toEqual([]);
    // The scenario it cancelled in finished, and passed: graded, saying so.
    expect(run.scenarios.find((s) => s.id === 'update-unknown-kinds')).toMatchObject({ status: 'pass', why: expect.stringContaining('(the client then cancelled the turn)') });
    const at = run.scenarios.findIndex((s) => s.id === 'update-unknown-kinds') + 1;
    expect(run.scenarios.slice(0, at).filter((s) => s.status === 'pass').length).toBeGreaterThan(1);
    const cut = run.scenarios.slice(at);
    expect(cut.length).toBeGreaterThan(0);
    const rerun = `/probe ${cut.map((s) => s.id).join(' ')}`;
    const them = cut.length === 1 ? 'it' : 'them';
    for (const s of cut) expect(s).toMatchObject({ status: 'skip', ran: false, why: `not run: the client cancelled the turn (session/cancel); "${rerun}" runs ${them}` });
    // The turn it cancelled ends cancelled, and the last message says what was not graded and how to run it.
    expect(seen.stopReasons).toEqual(['cancelled']);
    expect(seen.text).toContain(`Not graded: ${cut.length} scenario${cut.length === 1 ? '' : 's'}, because the client cancelled the turn (its choice, not a defect); send "${rerun}" to run ${them}.`);
    expect(seen.text).toContain('CONFORMANT');
  });
});
