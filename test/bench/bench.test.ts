/**
 * `npm run bench` in its quickest mode: not a timing test (nothing here looks at a speed), but proof
 * that the benchmark measures what it claims: every variant delivers every byte unchanged, and every
 * frame of a tap run ends up in its SQLite file with no gap.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, run, tempDir } from '../helpers.js';

const tmp = tempDir('acp-inspect-bench-test-');
afterAll(() => tmp.cleanup());

interface FloodRun {
  floods: Record<string, { bytes: number; frames: number }>;
  recorded?: { c2a: number; a2c: number; gaps: number; status: string };
}

/** Runs `npm run bench --quick` on the named sections with --json: its run, and the JSON it wrote. */
async function quickBench(only: string, file: string): Promise<{ r: Awaited<ReturnType<typeof run>>; json: unknown }> {
  const json = join(tmp.dir, file);
  const r = await run(process.execPath, [join(ROOT, 'scripts', 'bench.js'), '--quick', '--only', only, '--json', json]);
  expect(r.stderr).toBe('');
  return { r, json: r.code === 0 ? JSON.parse(readFileSync(json, 'utf8')) : null };
}

describe('npm run bench --quick', () => {
  it('delivers every byte unchanged through every variant and records every frame of the tap runs', async () => {
    const json = join(tmp.dir, 'bench.json');
    const r = await run(process.execPath, [join(ROOT, 'scripts', 'bench.js'), '--quick', '--only', 'flood,rss,ui', '--json', json], { timeoutMs: 120_000 });
    expect(r.stderr).toBe('');
    const out = r.stdout.toString();
    expect(out).toContain('every byte arrived unchanged and every frame was recorded');
    expect(r.code).toBe(0);
    const res = JSON.parse(readFileSync(json, 'utf8')) as {
      problems: string[];
      flood: { client: string; perRound: Record<string, FloodRun[]> };
      floodPipe: { client: string; perRound: Record<string, FloodRun[]> };
      rss: { recorded: { c2a: number; a2c: number; status: string }; expectedFrames: number; indexFramesPerSec: number | null; sqliteFloor: { rows: number; rowsPerSec: number } | null; cleanIndexing: { lastMs: number; exitMs: number } | null };
      ui: { measured: boolean; firstRowsStatus?: number };
    };
    expect(res.problems).toEqual([]);
    // Through every variant twice: the client on a socket pair, then on pipes.
    expect([res.flood.client, res.floodPipe.client]).toEqual(['socket', 'pipe']);
    for (const flood of [res.flood, res.floodPipe]) {
      expect(Object.keys(flood.perRound).sort()).toEqual(['bare node', 'cat relay', 'direct', 'tap', 'tap --no-check', 'tee relay']);
    }
    for (const [flood, name] of [res.flood, res.floodPipe].flatMap((f) => ['tap', 'tap --no-check'].map((n) => [f, n] as const))) {
      for (const run of flood.perRound[name]!) {
        expect(run.recorded!.gaps).toBe(0);
        expect(run.recorded!.status).toBe('complete');
        // 2 setup requests, a warm-up flood and 3 sized floods, 50 pings: one request each way, plus the updates.
        const updates = 2000 + Object.values(run.floods).reduce((a, f) => a + f.frames, 0);
        expect(run.recorded!.c2a).toBe(2 + 4 + 50);
        expect(run.recorded!.a2c).toBe(2 + 4 + 50 + updates);
      }
    }
    // The quick memory flood (32 MiB) fits the recorder's ring: all of it is recorded too.
    expect(res.rss.recorded.c2a + res.rss.recorded.a2c).toBe(res.rss.expectedFrames);
    expect(res.rss.recorded.status).toBe('complete');
    // Its last frame was seen stored, so the indexing rate is a number.
    expect(res.rss.indexFramesPerSec).toBeGreaterThan(0);
    // SQLite's own rate on the same rows, the indexing rate's peer, copied every row of the recording.
    expect(res.rss.sqliteFloor?.rows).toBeGreaterThanOrEqual(res.rss.expectedFrames);
    expect(res.rss.sqliteFloor?.rowsPerSec).toBeGreaterThan(0);
    // The same flood's log, left unindexed and indexed after a sync: its last row was seen, and it exited.
    expect(res.rss.cleanIndexing?.lastMs).toBeGreaterThan(0);
    expect(res.rss.cleanIndexing?.exitMs).toBeGreaterThan(0);
    if (res.ui.measured) expect(res.ui.firstRowsStatus).toBe(200);
  });

  it('compares two runs of one scenario through the served UI and `acp-inspect diff`, and both find the same differences', async () => {
    const { r, json } = await quickBench('compare', 'bench-compare.json');
    expect(r.code).toBe(0);
    const res = json as {
      problems: string[];
      compare: { measured: boolean; api: { status: number; changed: number; missing: number; extra: number }; cli: { exit: number; summary: string } };
    };
    expect(res.problems).toEqual([]);
    expect(res.compare.measured).toBe(true);
    expect(res.compare.api.status).toBe(200);
    expect(res.compare.cli.exit).toBe(1);
    // The runs differ somewhere, and the view and the command count the same differences.
    expect(res.compare.api.changed + res.compare.api.missing + res.compare.api.extra).toBeGreaterThan(0);
    expect(res.compare.cli.summary).toContain(`${res.compare.api.changed} changed, ${res.compare.api.missing} missing, ${res.compare.api.extra} extra`);
  });
  it('measures remote agents through the bridge and the proxy beside the direct connection, every update arriving on every path', async () => {
    const { r, json } = await quickBench('remote', 'bench-remote.json');
    expect(r.code).toBe(0);
    const res = json as {
      problems: string[];
      remote: { rows: { path: string; p50Ms: number; updatesPerS: number; throughputRatio: number; coldUpdatesPerS: number; coldThroughputRatio: number }[] };
      targets: { what: string }[];
    };
    // A path that lost or duplicated an update is a problem (the client counts them), not a number.
    expect(res.problems).toEqual([]);
    expect(res.remote.rows.map((x) => x.path)).toEqual(['http direct', 'http proxy', 'http bridge', 'ws direct', 'ws proxy', 'ws bridge']);
    for (const row of res.remote.rows) {
      expect(row.p50Ms).toBeGreaterThan(0);
      expect(row.updatesPerS).toBeGreaterThan(0);
      // The first turn of each connection (cold) is measured apart from the second (warm).
      expect(row.coldUpdatesPerS).toBeGreaterThan(0);
      expect(Number.isFinite(row.coldThroughputRatio)).toBe(true);
    }
    // Side by side: each bridge and proxy path is held to the two targets.
    expect(res.targets.filter((t) => t.what.includes('(issue 42)'))).toHaveLength(8);
    expect(r.stdout.toString()).toContain('## Remote agents');
  });
});
