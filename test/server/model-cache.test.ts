/**
 * The server's model cache: the state at any item, from a (deflated) checkpoint plus steps, is the
 * state a fold from the start gives; and a background fold stops when no one waits for it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initialState, stepModel } from '../../src/check/index.js';
import { ModelCache } from '../../src/server/model-cache.js';
import { Store } from '../../src/store/store.js';
import { addBigRecording, makeDb } from './fixture.js';

let db: ReturnType<typeof makeDb>;
let store: Store;
let big: number;
let items: number;

beforeAll(() => {
  db = makeDb();
  big = addBigRecording(db.dbPath, 30_000);
  store = Store.open(db.dbPath);
  items = store.getRecording(big)!.items;
});
afterAll(() => {
  store.close();
  db.cleanup();
});

const tick = () => new Promise((r) => setTimeout(r, 20));

describe('the model cache', () => {
  it('gives the state a fold from the start gives, at every kind of distance from a checkpoint', async () => {
    const seqs = [1, 2, 999, 1000, 1001, 1999, 2500, 7777, 14_001, 20_000, 29_998, items - 1, items];
    const cache = new ModelCache(store);
    const got = new Map<number, string>();
    for (const seq of [...seqs].reverse()) got.set(seq, JSON.stringify(await cache.stateAt(big, seq)));
    const s = initialState();
    const want = new Set(seqs);
    for (const item of store.iterateItems(big)) {
      stepModel(s, item);
      if (want.has(item.seq)) expect(got.get(item.seq), `state after ${item.seq}`).toBe(JSON.stringify(s));
    }
    // Asked again, from the checkpoints alone.
    for (const seq of seqs) expect(JSON.stringify(await cache.stateAt(big, seq))).toBe(got.get(seq));
  });

  it('stops folding for a state whose request was aborted', async () => {
    const cache = new ModelCache(store);
    const ac = new AbortController();
    const p = cache.stateAt(big, items, ac.signal);
    ac.abort();
    await expect(p).rejects.toThrow(/cancelled/);
    await tick();
    expect(cache.foldedTo(big)).toBeLessThan(items);
    // Another request still gets it, from the same fold.
    expect((await cache.stateAt(big, items)).lastSeq).toBe(items);
    expect(cache.foldedTo(big)).toBe(items);
  });

  it('folds the state column while a page watches the recording, and stops when none does', async () => {
    let ready = 0;
    let watched = true;
    const cache = new ModelCache(store, () => { ready++; }, () => watched, 0);
    expect(cache.ensureSummaries(big, items)).toBe(false);
    for (let i = 0; i < 500 && ready === 0; i++) await tick();
    expect(ready).toBe(1);
    expect(cache.foldedTo(big)).toBe(items);

    watched = false;
    const idle = new ModelCache(store, () => { ready++; }, () => watched, 0);
    expect(idle.ensureSummaries(big, items)).toBe(false);
    for (let i = 0; i < 10; i++) await tick();
    expect(idle.foldedTo(big)).toBeLessThan(items);
    expect(ready).toBe(1);
  });
});
