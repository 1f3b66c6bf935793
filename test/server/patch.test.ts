/**
 * The item detail's patch (the Diff tab): read backwards from the item and stopped at the frame that
 * starts the entity, it must be the same as folding every earlier update of the session — near and
 * far (past the backward window) from the start, for each kind of entity, with ids reused and
 * another session using the same ids.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type InspectorApp } from '../../src/server/index.js';
import { PATCH_WINDOW } from '../../src/server/queries.js';
import type { ItemDetail } from '../../src/view/contract.js';
import { Store } from '../../src/store/store.js';
import { entityPatch, patchTarget } from '../../src/view/patch.js';
import type { Frame } from '../../src/wire/frame.js';
import { handshake, ItemBuilder, makeDb, SID } from './fixture.js';

const TOKEN = 'patch-token';
const HOST = '127.0.0.1:4602';
let app: InspectorApp;
let db: ReturnType<typeof makeDb>;
let rec: number;
let frames: Frame[];

const upd = (sessionId: string, update: Record<string, unknown>) => ({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update } });

beforeAll(() => {
  db = makeDb();
  const store = Store.open(db.dbPath);
  try {
    const b = new ItemBuilder();
    handshake(b);
    b.frame('c2a', { jsonrpc: '2.0', id: 9, method: 'session/new', params: { cwd: '/w', mcpServers: [] } });
    b.frame('a2c', { jsonrpc: '2.0', id: 9, result: { sessionId: 'sess-2' } });
    const s1 = (u: Record<string, unknown>) => b.frame('a2c', upd(SID, u));
    const s2 = (u: Record<string, unknown>) => b.frame('a2c', upd('sess-2', u));
    const filler = (n: number) => { for (let i = 0; i < n; i++) s1({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `word ${i} ` } }); };
    // Entities started long before the backward window: found by the full read.
    s1({ sessionUpdate: 'tool_call', toolCallId: 'far', title: 'Far call', status: 'pending' });
    s1({ sessionUpdate: 'plan', entries: [{ content: 'a', status: 'pending', priority: 'high' }] });
    s1({ sessionUpdate: 'compaction_update', compactionId: 'cmp-1', status: 'in_progress' });
    s1({ sessionUpdate: 'tool_call_update', toolCallId: 'orphan', status: 'in_progress' });
    filler(PATCH_WINDOW + 10);
    s1({ sessionUpdate: 'tool_call_update', toolCallId: 'far', status: 'in_progress' });
    s1({ sessionUpdate: 'compaction_summary_chunk', compactionId: 'cmp-1', content: { type: 'text', text: 'so far' } });
    s1({ sessionUpdate: 'tool_call_update', toolCallId: 'orphan', status: 'completed' });
    // Near ones, an id announced twice, and the other session using the same id.
    s1({ sessionUpdate: 'tool_call', toolCallId: 'near', title: 'First', status: 'pending' });
    s2({ sessionUpdate: 'tool_call', toolCallId: 'near', title: 'Other session', status: 'pending' });
    s1({ sessionUpdate: 'tool_call_update', toolCallId: 'near', status: 'in_progress' });
    filler(20);
    s1({ sessionUpdate: 'tool_call', toolCallId: 'near', title: 'Again', status: 'pending' });
    s2({ sessionUpdate: 'tool_call_update', toolCallId: 'near', status: 'completed' });
    s1({ sessionUpdate: 'tool_call_update', toolCallId: 'near', title: 'Again, renamed', status: 'completed' });
    s1({ sessionUpdate: 'plan', entries: [{ content: 'a', status: 'completed', priority: 'high' }] });
    s1({ sessionUpdate: 'current_mode_update', currentModeId: 'code' });
    filler(5);
    s1({ sessionUpdate: 'current_mode_update', currentModeId: 'ask' });
    s1({ sessionUpdate: 'config_option_update', configOptions: [{ id: 'model', name: 'Model', type: 'select', currentValue: 'x', options: [] }] });
    s1({ sessionUpdate: 'config_option_update', configOptions: [] });
    s1({ sessionUpdate: 'compaction_update', compactionId: 'cmp-1', status: 'completed' });
    s1({ sessionUpdate: 'tool_call_update', toolCallId: 'far_', status: 'completed' });
    rec = store.createRecording({ name: 'patches', status: 'complete', command: ['agent'] });
    store.appendItems(rec, b.take());
    frames = [...store.iterateItems(rec)].filter((i): i is Frame => i.dir === 'a2c' || i.dir === 'c2a');
  } finally {
    store.close();
  }
  app = createApp({ dbPath: db.dbPath, token: TOKEN, allowedHosts: [HOST], pollMs: 20 });
});
afterAll(() => {
  app.close();
  db.cleanup();
});

const detail = async (seq: number): Promise<ItemDetail> => {
  const res = await app.request(`http://${HOST}/api/recordings/${rec}/items/${seq}?state=0`, { headers: { host: HOST, authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  return await res.json() as ItemDetail;
};

describe('the patch of a session update', () => {
  it('is the fold of every earlier update of its session, near and far, for each entity', async () => {
    let checked = 0;
    let far = 0;
    for (const f of frames) {
      const target = patchTarget(f);
      if (!target) continue;
      const earlier = frames.filter((e) => e.seq < f.seq && e.method === 'session/update' && e.sessionId === f.sessionId);
      const want = entityPatch(target, earlier, f);
      const got = (await detail(f.seq)).patch;
      expect(got, `item ${f.seq}`).toEqual(want);
      checked++;
      if (want.previousSeq !== null && f.seq - want.previousSeq > PATCH_WINDOW) far++;
    }
    expect(checked).toBeGreaterThan(15);
    expect(far).toBeGreaterThanOrEqual(3); // far, orphan and the compaction were read past the window
  });

  it('takes the latest announcement of a reused id, and only from its own session', async () => {
    const last = frames.filter((f) => f.sessionId === SID && JSON.stringify(f.json).includes('Again, renamed'))[0]!;
    const p = (await detail(last.seq)).patch!;
    expect(p).toMatchObject({ entity: 'toolCall', key: 'near', before: { title: 'Again', status: 'pending' }, after: { title: 'Again, renamed', status: 'completed' } });
    const other = frames.filter((f) => f.sessionId === 'sess-2' && f.seq > last.seq - 5 && JSON.stringify(f.json).includes('"completed"'))[0]!;
    expect((await detail(other.seq)).patch).toMatchObject({ before: { title: 'Other session', status: 'pending' }, after: { status: 'completed' } });
  });
});
