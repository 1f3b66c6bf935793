/**
 * No probe leaves a process behind, and none hangs on one: the agent runs in a process group of its
 * own, which the probe ends as a whole (stdin closed, SIGTERM, SIGKILL), and a process that keeps
 * the agent's stdout open is not waited for. The process table is read before and after each run,
 * through the real binary.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PEERS, cli, tempDir } from '../helpers.js';
import type { ProbeReport } from '../../src/probe/report.js';

const WRAPPER = join(PEERS, 'probe-agent-wrapper.mjs');
let tmp: ReturnType<typeof tempDir>;
beforeAll(() => { tmp = tempDir('acp-probe-hygiene-'); });
afterAll(() => tmp?.cleanup());

/** Pids of the processes whose command line contains `marker`. */
function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(marker)) pids.push(Number(d));
    } catch { /* gone meanwhile */ }
  }
  return pids;
}

/** Whether `pid` is a live process (a killed one waiting for init to reap it, a zombie, is not). */
const alive = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

describe('probe agent process hygiene', () => {
  it.concurrent.each([['1', 'exits on SIGTERM'], ['term', 'ignores SIGTERM too']])(
    'ends a wrapper script and the agent it left holding stdout (PROBE_AGENT_LINGER=%s: it %s)', async (linger) => {
      const marker = `probe-hygiene-marker-${linger}-${process.pid}`;
      const pidFile = join(tmp.dir, `pids-${linger}`);
      expect(processesWith(marker)).toEqual([]);
      const r = await cli(['probe', 'agent', '--db', join(tmp.dir, `wrap-${linger}.sqlite`), '--json', '--only', 'unknown-method,extension-request', '--timeout', '4000', '--',
        process.execPath, WRAPPER, marker], { env: { PROBE_AGENT_LINGER: linger, PROBE_AGENT_PIDFILE: pidFile }, timeoutMs: 60_000 });
      // Nothing it started is left: neither the wrapper nor the agents under it.
      expect(processesWith(marker)).toEqual([]);
      const pids = readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);
      expect(pids.length).toBeGreaterThanOrEqual(2); // the agent ran (initialize, then each scenario)
      for (const pid of pids) expect(alive(pid), `agent ${pid}`).toBe(false);
      const report = JSON.parse(r.stdout.toString()) as ProbeReport;
      expect(report.scenarios.map((s) => [s.id, s.status])).toEqual([['unknown-method', 'pass'], ['extension-request', 'pass']]);
      expect(r.code).toBe(0);
    });

  it.concurrent('does not wait out a shell whose child keeps stdout open: `bash -c "sleep 60; true"` could not be probed (exit 2) and leaves no sleep behind', async () => {
    const nap = `60.${String(process.pid).padStart(7, '0')}1`; // a duration no other process sleeps
    expect(processesWith(nap)).toEqual([]);
    // The harness gives up after 40 s, well before the sleep would end: a probe waiting for it fails here.
    const r = await cli(['probe', 'agent', '--db', join(tmp.dir, 'sleep.sqlite'), '--json', '--timeout', '3000', '--', 'bash', '-c', `sleep ${nap}; true`], { timeoutMs: 40_000 });
    expect(processesWith(nap)).toEqual([]);
    // No answer, the process running: it could not be probed (a slow start looks the same), one line.
    expect(r.stdout.length).toBe(0);
    expect(r.stderr).toBe('acp-inspect: the agent did not answer initialize within 13000 ms of its start (its start-up included); if it starts slowly, give it a longer --timeout\n');
    expect(r.code).toBe(2);
  });
});
