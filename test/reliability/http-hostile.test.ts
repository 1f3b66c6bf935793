/**
 * Hostile requests against the server app (in-process, app.request): wrong methods, huge and
 * negative numbers, unknown ids, bad uploads, hostile filters. Each gets a 4xx (never a 500 or a
 * stack trace) and the stored data stays unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { makeTmp, run, withStore, rpc } from './helpers.js';
import { writeFileSync } from 'node:fs';
import { createApp, type InspectorApp } from '../../src/server/index.js';

const TOKEN = 'reliability-token-0123456789';
const HOST = '127.0.0.1:4999';
const tmp = makeTmp();
const db = join(tmp.dir, 'http.db');
let app: InspectorApp;
let before = '';

const dump = () => withStore(db, (s) => JSON.stringify([
  s.db.prepare('SELECT * FROM recordings ORDER BY id').all(),
  s.db.prepare('SELECT recording_id, seq, raw FROM items ORDER BY recording_id, seq').all(),
]));

beforeAll(async () => {
  const file = join(tmp.dir, 'r.jsonl');
  writeFileSync(file, [
    JSON.stringify({ acpInspect: 'recording', version: 1, name: 'r' }),
    JSON.stringify({ t: 0, dir: 'c2a', raw: rpc({ id: 0, method: 'initialize', params: { protocolVersion: 1 } }) }),
    JSON.stringify({ t: 1, dir: 'a2c', raw: rpc({ id: 0, result: { protocolVersion: 1 } }) }),
    JSON.stringify({ t: 2, dir: 'c2a', raw: rpc({ id: 1, method: 'session/prompt', params: { sessionId: 's', prompt: [] } }) }),
  ].join('\n') + '\n');
  expect((await run(['import', file, '--db', db])).code).toBe(0);
  app = createApp({ dbPath: db, token: TOKEN, allowedHosts: [HOST] });
  before = dump();
});
afterAll(() => {
  app?.close();
  tmp.cleanup();
});

const req = (method: string, path: string, body?: BodyInit) =>
  app.request(`http://${HOST}${path}`, { method, body, headers: { host: HOST, authorization: `Bearer ${TOKEN}` } });

const HUGE = '9'.repeat(40);
/** [method, path, body, accept2xx]: the last marks input that may be answered normally (clamped, empty). */
const cases: [string, string, BodyInit?, boolean?][] = [
  ['GET', '/api/recordings/999'],
  ['GET', `/api/recordings/${HUGE}`],
  ['GET', '/api/recordings/-1'],
  ['GET', '/api/recordings/abc'],
  ['GET', '/api/recordings/1.5'],
  ['GET', '/api/recordings/999/items'],
  ['GET', '/api/recordings/999/export'],
  ['GET', '/api/recordings/999/findings'],
  ['GET', '/api/recordings/999/stats'],
  ['GET', '/api/recordings/999/turns'],
  ['GET', '/api/recordings/1/items/999999'],
  ['GET', `/api/recordings/1/items/${HUGE}`],
  ['GET', '/api/recordings/1/items/-5'],
  ['GET', '/api/recordings/1/items?offset=-1'],
  ['GET', '/api/recordings/1/items?limit=abc'],
  ['GET', `/api/recordings/1/items?offset=${HUGE}`, undefined, true],
  ['GET', '/api/recordings/1/items?q=%28%28%28', undefined, true],
  ['GET', '/api/recordings/1/items?q=method%3A'],
  ['GET', '/api/recordings/1/position?seq=-3'],
  ['GET', '/api/recordings/1/turns/2'],
  ['GET', `/api/recordings/1/turns/${HUGE}`],
  ['DELETE', '/api/recordings/999'],
  ['DELETE', `/api/recordings/${HUGE}`],
  ['DELETE', '/api/recordings'],
  ['PUT', '/api/recordings/1'],
  ['POST', '/api/recordings/1'],
  ['PATCH', '/api/recordings/1/items'],
  ['POST', '/api/import', 'this is not JSON\n'],
  ['POST', '/api/import', '{"acpInspect":"recording","version":"x"}\n'],
  ['POST', '/api/import', '{"acpInspect":"recording","version":99}\n'],
  ['POST', '/api/import', '{"t":"soon","dir":"c2a","raw":"{}"}\n'],
  ['POST', '/api/import', randomBytes(2048)],
  ['GET', '/api/import'],
  ['GET', '/api/../../etc/passwd'],
  ['GET', '/api/recordings/%00'],
];

describe('hostile HTTP requests', () => {
  it.each(cases)('%s %s → 4xx with a JSON or text error, never 5xx', async (method, path, body, accept2xx) => {
    const res = await req(method, path, body);
    const text = await res.text();
    if (!accept2xx) expect(res.status, `${method} ${path}: ${res.status} ${text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
    expect(res.status, `${method} ${path}: ${text.slice(0, 200)}`).toBeLessThan(500);
    expect(text).not.toMatch(/\n\s+at |node:internal/);
  });

  it('left the stored data unchanged', () => {
    expect(dump()).toBe(before);
  });
});
