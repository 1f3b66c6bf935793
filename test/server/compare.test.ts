/**
 * The Compare view's API: two recordings of the same session where the second runs with other
 * session ids and another cwd (volatile, normalised away), another prompt text (changed), a line
 * fewer (missing) and an update more (extra). Real store, real replay matcher, app.request().
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type InspectorApp } from '../../src/server/index.js';
import type { CompareIndex, CompareResult, CompareRowsPage } from '../../src/view/contract.js';
import { addVariantRecording, makeDb } from './fixture.js';

const TOKEN = 'compare-token';
const HOST = '127.0.0.1:4601';
let app: InspectorApp;
let db: ReturnType<typeof makeDb>;
let variantId: number;

beforeAll(() => {
  db = makeDb();
  variantId = addVariantRecording(db.dbPath, db.id);
  app = createApp({ dbPath: db.dbPath, token: TOKEN, allowedHosts: [HOST], pollMs: 20 });
});
afterAll(() => {
  app.close();
  db.cleanup();
});

const get = async <T>(path: string, auth = true): Promise<{ status: number; body: T }> => {
  const res = await app.request(`http://${HOST}${path}`, { headers: { host: HOST, ...(auth ? { authorization: `Bearer ${TOKEN}` } : {}) } });
  return { status: res.status, body: (await res.json().catch(() => null)) as T };
};

describe('GET /api/compare', () => {
  it('aligns a recording with itself: every frame the same', async () => {
    const { status, body } = await get<CompareResult>(`/api/compare?a=${db.id}&b=${db.id}`);
    expect(status).toBe(200);
    expect(body.same).toBe(true);
    expect(body.rows.every((r) => r.status === 'same' && r.a!.seq === r.b!.seq)).toBe(true);
    expect(body.rows.length).toBe(body.framesA);
  });

  it('normalises volatile ids and paths, and reports the changed prompt, the missing line and the extra update with diffs', async () => {
    const { body } = await get<CompareResult>(`/api/compare?a=${db.id}&b=${variantId}`);
    expect(body.a.id).toBe(db.id);
    expect(body.b.name).toBe('variant run');
    expect(body.same).toBe(false);
    expect({ changed: body.changed, missing: body.missing, extra: body.extra }).toEqual({ changed: 1, missing: 1, extra: 1 });
    const changed = body.rows.filter((r) => r.status === 'changed');
    expect(changed).toHaveLength(1);
    expect(changed[0]!.a!.label).toBe('request session/prompt');
    expect(changed[0]!.diffs!.join('\n')).toContain('params.prompt[0].text: a "Turn number 2", b "Turn number two"');
    expect(changed[0]!.patch).toMatch(/^-\s+"text": "Turn number 2"/m);
    expect(changed[0]!.patch).toMatch(/^\+\s+"text": "Turn number two"/m);
    // The session id and cwd differ on every frame but never show as a difference.
    expect(body.rows.filter((r) => r.status === 'same').length).toBe(body.framesA - 2);
    const missing = body.rows.find((r) => r.status === 'missing')!;
    expect(missing.a!.label).toMatch(/^invalid line/);
    expect(missing.b).toBeUndefined();
    const extra = body.rows.find((r) => r.status === 'extra')!;
    expect(extra.b!.label).toBe('notification session/update available_commands_update');
    expect(extra.reason).toContain('no notification session/update (available_commands_update)');
    // Rows follow the first recording; the extra update comes after the frame its predecessor matched.
    const at = body.rows.findIndex((r) => r.status === 'extra');
    expect(body.rows[at - 1]!.a!.label).toBe('error for session/set_mode');
    expect(body.rows[at + 1]).toBe(missing);
    const aSeqs = body.rows.filter((r) => r.a).map((r) => r.a!.seq);
    expect(aSeqs).toEqual([...aSeqs].sort((x, y) => x - y));
  });

  it('ignores paths the user declares volatile', async () => {
    const { body } = await get<CompareResult>(`/api/compare?a=${db.id}&b=${variantId}&ignore=${encodeURIComponent('params.prompt')}`);
    expect(body.changed).toBe(0);
    expect(body.ignore).toEqual(['params.prompt']);
  });

  it('pages the same rows: the statuses of all rows first, then any range of rows as the whole answer has them', async () => {
    for (const q of ['', `&ignore=${encodeURIComponent('params.prompt')}`, '&merge=1']) {
      const whole = (await get<CompareResult>(`/api/compare?a=${db.id}&b=${variantId}${q}`)).body;
      const { status, body: index } = await get<CompareIndex>(`/api/compare?a=${db.id}&b=${variantId}${q}&paged=1`);
      expect(status).toBe(200);
      const { rows, ...totals } = whole;
      expect({ ...index, id: undefined, total: undefined, statuses: undefined }).toEqual({ ...totals, id: undefined, total: undefined, statuses: undefined });
      expect(index.total).toBe(rows.length);
      expect(index.statuses).toBe(rows.map((r) => ({ same: 's', changed: 'c', missing: 'm', extra: 'x', merged: 'g' })[r.status]).join(''));
      const paged: CompareRowsPage['rows'] = [];
      for (let offset = 0; offset < index.total; offset += 7) {
        const page = await get<CompareRowsPage>(`/api/compare/rows?id=${index.id}&offset=${offset}&limit=7`);
        expect(page.body.offset).toBe(offset);
        paged.push(...page.body.rows);
      }
      expect(paged).toEqual(rows);
    }
  });

  it('keeps the last two paged comparisons, and says to compare again for an older one', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await get<CompareIndex>(`/api/compare?a=${db.id}&b=${db.id}&paged=1`)).body.id);
    expect(new Set(ids).size).toBe(3);
    const gone = await get<{ error: string }>(`/api/compare/rows?id=${ids[0]}&offset=0&limit=5`);
    expect(gone.status).toBe(404);
    expect(gone.body.error).toContain('compare again');
    expect((await get<CompareRowsPage>(`/api/compare/rows?id=${ids[2]}&offset=0&limit=5`)).body.rows).toHaveLength(5);
    expect((await get<{ error: string }>(`/api/compare/rows?id=${ids[2]}&offset=x`)).status).toBe(400);
  });

  it('answers 400 for a missing id, 404 for an unknown one, 401 without the token', async () => {
    const bad = await get<{ error: string }>(`/api/compare?a=${db.id}`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('?a=ID&b=ID');
    expect((await get<{ error: string }>(`/api/compare?a=${db.id}&b=999999`)).status).toBe(404);
    expect((await get<unknown>(`/api/compare?a=${db.id}&b=${db.id}`, false)).status).toBe(401);
    expect((await get<{ error: string }>(`/api/compare?a=${db.id}&b=${db.id}&ignore=${'x,'.repeat(1500)}`)).status).toBe(400);
    expect((await get<{ error: string }>(`/api/compare?a=${db.id}&b=${db.id}&ignore=${'x,'.repeat(60)}`)).body.error).toContain('at most 50');
  });
});
