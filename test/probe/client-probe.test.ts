/**
 * The client probe against real client processes over real pipes: the probe runs in-process on the
 * stdio of test/peers/probe-client.mjs (a complete client), clean and with one defect planted each.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startClientProbe, type ClientProbeRun } from '../../src/probe/client/agent.js';
import { PEERS, tempDir } from '../helpers.js';

interface Outcome { run: ClientProbeRun; stderr: string; code: number | null }

/** Runs the probe in-process against the test client with `defect` planted. */
function probeTestClient(defect: string, opts: { env?: Record<string, string>; only?: string[]; timeoutMs?: number } = {}): Promise<Outcome> {
  const { dir, cleanup } = tempDir('acp-probe-client-');
  const child = spawn(process.execPath, [join(PEERS, 'probe-client.mjs')], {
    cwd: dir, env: { ...process.env, PROBE_DEFECT: defect, ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  let run: ClientProbeRun | undefined;
  const probe = startClientProbe({ input: child.stdout, output: child.stdin, timeoutMs: opts.timeoutMs ?? 5000, only: opts.only, onRunEnd: (r, endTurn) => { run = r; endTurn(['(test)']); } });
  return new Promise((resolve, reject) => {
    child.on('close', async (code) => {
      await probe.done;
      cleanup();
      if (!run) reject(new Error(`no run reported; stderr: ${stderr}`));
      else resolve({ run, stderr, code });
    });
  });
}

const failed = (run: ClientProbeRun): string[] => run.scenarios.filter((s) => s.status === 'fail').map((s) => s.id);

describe('probe client against the test client', () => {
  it('finds nothing wrong with the clean client', async () => {
    const { run, stderr } = await probeTestClient('');
    expect(failed(run)).toEqual([]);
    expect(stderr).toContain('end_turn');
  });

  // Each defect runs against the groups it could break (the whole battery runs for the clean client
  // above): every scenario of those but the defect's own must still pass.
  const DEFECTS: Record<string, { groups: string[]; failed: string[]; timeoutMs?: number }> = {
    'read-ignores-line-limit': { groups: ['fs'], failed: ['fs-read-line-limit'] },
    'missing-file-empty': { groups: ['fs'], failed: ['fs-read-missing'] },
    'write-ignored': { groups: ['fs'], failed: ['fs-write'] },
    // Its output requests wait the whole timeout while a command runs, so it leaves out terminal-release
    // (which reads a running command's pid through terminal/output) to keep the test short.
    'output-waits-for-exit': { groups: ['terminal-output-limit', 'terminal-output-running', 'terminal-wait-for-exit', 'terminal-kill'], failed: ['terminal-output-running'], timeoutMs: 1500 },
    'truncate-keeps-start': { groups: ['terminal'], failed: ['terminal-output-limit'] },
    'truncate-splits-char': { groups: ['terminal'], failed: ['terminal-output-limit'] },
    'truncated-flag-false': { groups: ['terminal'], failed: ['terminal-output-limit'] },
    'kill-invalidates-id': { groups: ['terminal'], failed: ['terminal-kill'] },
    'release-keeps-id': { groups: ['terminal'], failed: ['terminal-release'] },
    'release-leaves-running': { groups: ['terminal'], failed: ['terminal-release'] },
    'permission-unoffered-option': { groups: ['permission', 'requests'], failed: ['permission-answer'] },
    'unknown-method-wrong-code': { groups: ['requests', 'updates'], failed: ['unknown-method'] },
    'crash-on-unknown-update': { groups: ['requests', 'updates'], failed: ['update-unknown-kinds'] },
    'cancel-request-drops': { groups: ['permission'], failed: ['cancel-request'], timeoutMs: 1500 },
  };

  it('catches each planted defect, and only that one', async () => {
    const outcomes = await Promise.all(Object.entries(DEFECTS).map(async ([d, x]) =>
      [d, await probeTestClient(d, { only: x.groups, timeoutMs: x.timeoutMs })] as const));
    for (const [d, { run }] of outcomes) {
      const why = run.scenarios.filter((s) => s.status === 'fail').map((s) => `${s.id}: ${s.why}`);
      expect({ defect: d, failed: failed(run) }, why.join('\n')).toEqual({ defect: d, failed: DEFECTS[d]!.failed });
      expect(run.scenarios.filter((s) => s.status === 'pass').length).toBeGreaterThan(0);
    }
  });
});
