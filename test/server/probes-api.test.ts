/** The probe runs' API: the list, one run with its report, and a clear 404 for a run that is not there. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type InspectorApp } from '../../src/server/index.js';
import { Store } from '../../src/store/store.js';
import { createProbeRun, finishProbeRun } from '../../src/store/probe-runs.js';
import { buildReport } from '../../src/probe/report.js';
import { makeDb } from './fixture.js';

const TOKEN = 'probe-token';
const HOST = '127.0.0.1:4601';
let app: InspectorApp;
let db: ReturnType<typeof makeDb>;
let done: number;
let running: number;

beforeAll(() => {
  db = makeDb();
  const store = Store.open(db.dbPath);
  done = createProbeRun(store, 'agent');
  finishProbeRun(store, done, buildReport('agent', { name: 'agent-x', version: '1', command: ['x'] }, [
    { id: 'initialize', title: 't', tier: 'required', status: 'pass', spec: '9 rule 2', why: 'ok', recording: db.id, findings: [] },
  ], { run: done }));
  running = createProbeRun(store, 'client');
  store.close();
  app = createApp({ dbPath: db.dbPath, token: TOKEN, allowedHosts: [HOST], pollMs: 20 });
});
afterAll(() => {
  app.close();
  db.cleanup();
});

const get = async (path: string) => {
  const res = await app.request(`http://${HOST}${path}`, { headers: { host: HOST, authorization: `Bearer ${TOKEN}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & Array<Record<string, unknown>> };
};

describe('the probe runs API', () => {
  it('lists the runs newest first, with their verdict (none while running)', async () => {
    const r = await get('/api/probes');
    expect(r.body.map((x) => [x.id, x.probe, x.target, x.verdict])).toEqual([[running, 'client', null, null], [done, 'agent', 'agent-x', 'conformant']]);
  });

  it('gives one run with its report', async () => {
    const r = await get(`/api/probes/${done}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: done, verdict: 'conformant', report: { probe: 'agent', run: done, scenarios: [{ id: 'initialize', recording: db.id }] } });
    expect((await get(`/api/probes/${running}`)).body).toMatchObject({ id: running, report: null });
  });

  it('answers 404 with a message for a run that is not there', async () => {
    expect(await get('/api/probes/999')).toMatchObject({ status: 404, body: { error: expect.stringContaining('no probe run 999') } });
    expect((await get('/api/probes/abc')).status).toBe(404);
  });
});
