/**
 * The probe matrices' API over a real store made by `acp-inspect probe agents` on the test agents:
 * the list with each agent's verdict, one matrix as its `--json` printed it, the recordings its cells
 * name that were deleted since, and a clear 404 for a matrix that is not there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PEERS, cli, tempDir } from '../helpers.js';
import { createApp, type InspectorApp } from '../../src/server/index.js';
import type { Matrix } from '../../src/probe/agents.js';

const TOKEN = 'matrix-token';
const HOST = '127.0.0.1:4602';
const AGENT = join(PEERS, 'probe-agent.mjs');
let tmp: ReturnType<typeof tempDir>;
let db: string;
let app: InspectorApp;
let m: Matrix;

beforeAll(async () => {
  tmp = tempDir('acp-matrices-api-');
  db = join(tmp.dir, 'm.sqlite');
  const config = join(tmp.dir, 'agents.json');
  writeFileSync(config, JSON.stringify({
    agents: [
      { id: 'clean', command: [process.execPath, AGENT], env: { PROBE_AGENT_STORE: tmp.dir } },
      { id: 'broken', command: [process.execPath, '-e', 'process.exit(3)'] },
    ],
  }));
  const r = await cli(['probe', 'agents', '--config', config, '--db', db, '--json', '--timeout', '4000'], { timeoutMs: 120_000 });
  expect(r.code).toBe(2);
  m = JSON.parse(r.stdout.toString()) as Matrix;
  app = createApp({ dbPath: db, token: TOKEN, allowedHosts: [HOST], pollMs: 20 });
}, 180_000);
afterAll(() => {
  app?.close();
  tmp?.cleanup();
});

const call = async (path: string, method = 'GET') => {
  const res = await app.request(`http://${HOST}${path}`, { method, headers: { host: HOST, authorization: `Bearer ${TOKEN}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & Array<Record<string, unknown>> };
};

describe('the probe matrices API', () => {
  it('lists the matrix with its agents and their verdicts', async () => {
    expect(m.id).toEqual(expect.any(Number));
    const r = await call('/api/matrices');
    expect(r.status).toBe(200);
    expect(r.body).toEqual([{ id: m.id, startedAt: m.startedAt, endedAt: expect.any(String), agents: [
      { id: 'clean', verdict: 'conformant', couldNotRun: false },
      { id: 'broken', verdict: null, couldNotRun: true },
    ] }]);
  });

  it('gives one matrix as the command printed it, and names the recordings deleted since', async () => {
    const r = await call(`/api/matrices/${m.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: m.id, startedAt: m.startedAt, endedAt: expect.any(String), gone: [] });
    expect(r.body.matrix).toEqual(m);
    const cell = m.agents[0]!.cells['prompt-resource-link']!;
    expect(cell).toMatchObject({ status: 'pass', tier: 'required', recording: expect.any(Number) });
    expect((await call(`/api/recordings/${cell.recording}`, 'DELETE')).status).toBe(200);
    expect((await call(`/api/matrices/${m.id}`)).body.gone).toEqual([cell.recording]);
  });

  it('answers 404 with a message for a matrix that is not there', async () => {
    expect(await call('/api/matrices/999')).toMatchObject({ status: 404, body: { error: expect.stringContaining('no probe matrix 999') } });
    expect((await call('/api/matrices/abc')).status).toBe(404);
  });
});
