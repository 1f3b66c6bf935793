/**
 * The item detail without the model state (?state=0) and the state alone (.../items/:seq/state):
 * the detail of a far item answers before the checker's model is folded up to it, and the default
 * answer is the same bytes as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type InspectorApp } from '../../src/server/index.js';
import type { ItemDetail, ItemState } from '../../src/view/contract.js';
import { addBigRecording, makeDb } from './fixture.js';

const TOKEN = 'state-token';
const HOST = '127.0.0.1:4601';
let app: InspectorApp;
let db: ReturnType<typeof makeDb>;
let big: number;

beforeAll(() => {
  db = makeDb();
  big = addBigRecording(db.dbPath, 20_000);
  app = createApp({ dbPath: db.dbPath, token: TOKEN, allowedHosts: [HOST], pollMs: 20 });
});
afterAll(() => {
  app.close();
  db.cleanup();
});

const text = async (path: string): Promise<{ status: number; text: string }> => {
  const res = await app.request(`http://${HOST}${path}`, { headers: { host: HOST, authorization: `Bearer ${TOKEN}` } });
  return { status: res.status, text: await res.text() };
};

/** The detail as the route has always answered it: item, pair, findings, state, stateSummary, patch in this order. */
function withState(d: ItemDetail, s: ItemState): string {
  const { item, pair, findings, patch } = d;
  return JSON.stringify({ item, pair, findings, state: s.state, ...(s.stateSummary !== undefined ? { stateSummary: s.stateSummary } : {}), ...(patch ? { patch } : {}) });
}

describe('the item detail and its model state apart', () => {
  it('?state=0 leaves out state and stateSummary; /state gives them; together they are the default answer byte for byte', async () => {
    for (const seq of [1, 3, 16, 35, 36]) {
      const full = await text(`/api/recordings/${db.id}/items/${seq}`);
      const bare = await text(`/api/recordings/${db.id}/items/${seq}?state=0`);
      const st = await text(`/api/recordings/${db.id}/items/${seq}/state`);
      expect([full.status, bare.status, st.status]).toEqual([200, 200, 200]);
      const d = JSON.parse(bare.text) as ItemDetail;
      expect('state' in d).toBe(false);
      expect('stateSummary' in d).toBe(false);
      const s = JSON.parse(st.text) as ItemState;
      expect(Object.keys(s).sort()).toEqual(['state', 'stateSummary']);
      expect(full.text).toBe(withState(d, s));
    }
    // The patch of an update that changes an earlier entity is there without the state too.
    const upd = JSON.parse((await text(`/api/recordings/${db.id}/items/16?state=0`)).text) as ItemDetail;
    const full16 = JSON.parse((await text(`/api/recordings/${db.id}/items/16`)).text) as ItemDetail;
    expect(upd.patch).toEqual(full16.patch);
  });

  it('answers an unknown item with the same 404 on both', async () => {
    for (const p of [`/api/recordings/${db.id}/items/9999`, `/api/recordings/${db.id}/items/9999?state=0`, `/api/recordings/${db.id}/items/9999/state`]) {
      const r = await text(p);
      expect(r.status).toBe(404);
      expect(JSON.parse(r.text)).toEqual({ error: `recording ${db.id} has no item 9999` });
    }
    expect((await text('/api/recordings/77/items/1/state')).status).toBe(404);
  });

  it('gives a far item without folding to it, then the state once folded, and folds once for two asks', async () => {
    const seq = 19_990;
    const bare = JSON.parse((await text(`/api/recordings/${big}/items/${seq}?state=0`)).text) as ItemDetail;
    expect(bare.item.seq).toBe(seq);
    expect('state' in bare).toBe(false);
    // Nothing was folded for the bare detail.
    expect(app.models.foldedTo(big)).toBe(0);
    const [a, b] = await Promise.all([text(`/api/recordings/${big}/items/${seq}/state`), text(`/api/recordings/${big}/items/${seq}/state`)]);
    expect(a.text).toBe(b.text);
    const s = JSON.parse(a.text) as ItemState;
    expect(s.stateSummary).toBeTruthy();
    expect(JSON.stringify(s.state)).toContain('sess-1');
    const folded = app.models.foldedTo(big);
    expect(folded).toBeGreaterThanOrEqual(seq);
    expect(a.text).toBe((await text(`/api/recordings/${big}/items/${seq}/state`)).text);
    expect(app.models.foldedTo(big)).toBe(folded);
    expect(withState(bare, s)).toBe((await text(`/api/recordings/${big}/items/${seq}`)).text);
  });
});
