import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers.js';
import { createApp, type InspectorApp } from '../../src/server/index.js';
import type { TimelinePage, ItemDetail, MethodStats, TurnDetail, TurnInfo, LiveEvent, RecordingSummary, TimelineGroups } from '../../src/view/contract.js';
import { Store } from '../../src/store/store.js';
import { serializeTranscript } from '../../src/transcript/format.js';
import { addBigRecording, ItemBuilder, handshake, makeDb, promptTurn } from './fixture.js';

const TOKEN = 'api-token';
const HOST = '127.0.0.1:4600';
let app: InspectorApp;
let db: ReturnType<typeof makeDb>;

beforeAll(() => {
  db = makeDb();
  app = createApp({ dbPath: db.dbPath, token: TOKEN, allowedHosts: [HOST], pollMs: 20 });
});
afterAll(() => {
  app.close();
  db.cleanup();
});

const get = async <T>(path: string): Promise<{ status: number; body: T }> => {
  const res = await app.request(`http://${HOST}${path}`, { headers: { host: HOST, authorization: `Bearer ${TOKEN}` } });
  return { status: res.status, body: (await res.json()) as T };
};
const send = (method: string, path: string, body?: string) =>
  app.request(`http://${HOST}${path}`, { method, body, headers: { host: HOST, authorization: `Bearer ${TOKEN}`, origin: `http://${HOST}` } });

describe('the JSON API', () => {
  it('lists recordings and searches them by name', async () => {
    expect((await get<RecordingSummary[]>('/api/recordings')).body.map((r) => r.name)).toEqual(['fixture session']);
    expect((await get<RecordingSummary[]>('/api/recordings?search=nothing-like-this')).body).toEqual([]);
  });

  it('pages the timeline and filters it in SQL with key:value terms', async () => {
    const all = (await get<TimelinePage>(`/api/recordings/${db.id}/items?limit=5`)).body;
    expect(all.total).toBe(36);
    expect(all.rows.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(all.rows[0]).toMatchObject({ dir: 'c2a', kind: 'request', method: 'initialize', id: 0, responseSeq: 3 });
    expect(all.rows[2]).toMatchObject({ kind: 'result', replyTo: 1, latency: 13 });
    const next = (await get<TimelinePage>(`/api/recordings/${db.id}/items?limit=5&offset=5`)).body;
    expect(next.prevT).toBe(all.rows[4]!.t);
    const q = (s: string) => get<TimelinePage>(`/api/recordings/${db.id}/items?limit=100&q=${encodeURIComponent(s)}`);
    expect((await q('method:session/prompt')).body.rows.map((r) => r.kind)).toEqual(['request', 'result', 'request', 'result']);
    expect((await q('dir:stderr')).body.rows.map((r) => r.preview)).toEqual(['agent: starting up']);
    expect((await q('is:error')).body.rows.map((r) => r.kind)).toEqual(['error', 'invalid']);
    expect((await q('-method:session/update dir:agent kind:request')).body.rows.map((r) => r.method))
      .toEqual(['session/request_permission', 'fs/read_text_file', 'session/request_permission', 'fs/read_text_file']);
    expect((await q('method:fs/*')).body.total).toBe(4);
    // A negated term keeps what it says nothing about: stderr lines have no method.
    expect((await q('-method:session/update')).body.rows.some((r) => r.dir === 'stderr')).toBe(true);
    expect((await q('-session:nothing-like-this')).body.total).toBe(36);
    expect((await q('"Turn number 2"')).body.total).toBe(1);
    expect((await q('severity:warning')).body.rows.map((r) => r.findings)).toEqual([['warning']]);
    const turn = (await q('turn:6')).body;
    expect(turn.rows[0]!.seq).toBe(6);
    expect(turn.rows[turn.rows.length - 1]).toMatchObject({ method: 'session/prompt', kind: 'result' });
    const bad = await get<{ error: string }>(`/api/recordings/${db.id}/items?q=dir:up`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('dir:c2a');
  });

  it('finds the position of an item in a filtered list', async () => {
    const pos = (await get<{ index: number; matches: boolean }>(`/api/recordings/${db.id}/position?seq=20&q=method%3Asession%2Fprompt`)).body;
    expect(pos).toMatchObject({ index: 2, matches: true });
  });

  it('details an item with its pair, findings, model state and the diff of a patching update', async () => {
    const d = (await get<ItemDetail>(`/api/recordings/${db.id}/items/3`)).body;
    expect(d.item).toMatchObject({ seq: 3, kind: 'result' });
    expect(d.pair).toMatchObject({ seq: 1, method: 'initialize' });
    expect(d.state).toBeTypeOf('object');
    const upd = (await get<ItemDetail>(`/api/recordings/${db.id}/items/16`)).body;
    expect(upd.patch).toMatchObject({ entity: 'toolCall', key: 'call-2', previousSeq: 15, before: { status: 'in_progress', title: 'Edit main.ts' }, after: { status: 'completed' } });
    const last = (await get<{ seq: number }[]>(`/api/recordings/${db.id}/findings`)).body;
    const withFinding = (await get<ItemDetail>(`/api/recordings/${db.id}/items/${last[0]!.seq}`)).body;
    expect(withFinding.findings[0]).toMatchObject({ severity: 'error', rule: 'fixture-error-rule', spec: '4.4 rule 8' });
    expect((await get(`/api/recordings/${db.id}/items/9999`)).status).toBe(404);
    expect((await get('/api/recordings/77/items/1')).status).toBe(404);
  });

  it('computes per-method counts and latency percentiles', async () => {
    const stats = (await get<MethodStats[]>(`/api/recordings/${db.id}/stats`)).body;
    const perm = stats.find((s) => s.method === 'session/request_permission')!;
    expect(perm).toMatchObject({ count: 4, requests: 2, p50: 1500, p99: 1500, max: 1500 });
    expect(stats.find((s) => s.method === 'session/set_mode')).toMatchObject({ errors: 1 });
  });

  it('lists prompt turns and summarizes one: message, tool calls, plan, permission wait, fs calls', async () => {
    const turns = (await get<TurnInfo[]>(`/api/recordings/${db.id}/turns`)).body;
    expect(turns.map((t) => [t.seq, t.stopReason, t.prompt])).toEqual([[6, 'end_turn', 'Fix the bug in main.ts'], [20, 'end_turn', 'Turn number 2']]);
    const t = (await get<TurnDetail>(`/api/recordings/${db.id}/turns/6`)).body;
    // Chunks join into one text; a tool call between chunks starts a new paragraph.
    expect(t.message).toBe('I will **read** the file `main.ts` first.\n\n- one\n- two <script>alert(1)</script>\n\nDone.');
    expect(t.toolCalls).toEqual([expect.objectContaining({ toolCallId: 'call-2', status: 'completed', title: 'Edit main.ts', diffs: [expect.objectContaining({ path: '/home/dev/project/main.ts' })] })]);
    expect(t.plan?.map((e) => e.status)).toEqual(['completed', 'completed']);
    expect(t.permissions).toEqual([expect.objectContaining({ seq: 11, outcome: 'selected allow', waitedMs: 1500 })]);
    expect(t.calls).toEqual([expect.objectContaining({ method: 'fs/read_text_file', summary: '/home/dev/project/main.ts' })]);
    expect((await get(`/api/recordings/${db.id}/turns/7`)).status).toBe(404);
  });

  it('lays prompt turns over the filtered timeline for grouping: list index ranges, empty turns left out', async () => {
    const all = (await get<TimelineGroups>(`/api/recordings/${db.id}/groups`)).body;
    expect(all.total).toBe(36);
    expect(all.turns.map((t) => [t.seq, t.from, t.to, t.stopReason])).toEqual([[6, 5, 19, 'end_turn'], [20, 19, 33, 'end_turn']]);
    expect(all.turns[0]).toMatchObject({ sessionId: 'sess-1', prompt: 'Fix the bug in main.ts', endSeq: 19 });
    // The session first shows in the answer to session/new (seq 5, list index 4).
    expect(all.sessions).toEqual([{ sessionId: 'sess-1', from: 4 }]);
    const fs = (await get<TimelineGroups>(`/api/recordings/${db.id}/groups?q=${encodeURIComponent('method:fs/*')}`)).body;
    expect(fs.total).toBe(4);
    expect(fs.turns.map((t) => [t.from, t.to])).toEqual([[0, 2], [2, 4]]);
    expect((await get<TimelineGroups>(`/api/recordings/${db.id}/groups?q=dir:stderr`)).body.turns).toEqual([]);
    const bad = await get<{ error: string }>(`/api/recordings/${db.id}/groups?q=dir:sideways`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('unknown direction');
  });

  it('exports a recording as one self-contained .html report, redacted unless ?redact=0', async () => {
    const res = await app.request(`http://${HOST}/api/recordings/${db.id}/export?format=html`, { headers: { host: HOST, authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('content-disposition')).toContain(`acp-recording-${db.id}.html`);
    const html = await res.text();
    expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-/);
    expect(html).toContain('id="acp-inspect-data"');
    const raw = await app.request(`http://${HOST}/api/recordings/${db.id}/export?format=html&redact=0`, { headers: { host: HOST, authorization: `Bearer ${TOKEN}` } });
    expect(await raw.text()).toContain('NOT redacted');
  });

  it('exports a transcript (redacted by default), imports it back, and deletes a recording', async () => {
    const res = await app.request(`http://${HOST}/api/recordings/${db.id}/export`, { headers: { host: HOST, authorization: `Bearer ${TOKEN}` } });
    expect(res.headers.get('content-disposition')).toContain('attachment');
    const text = await res.text();
    expect(text.split('\n')[0]).toContain('"acpInspect":"recording"');
    const imp = await send('POST', '/api/import?name=round-trip', text);
    expect(imp.status).toBe(201);
    const { id } = (await imp.json()) as { id: number };
    expect((await get<TimelinePage>(`/api/recordings/${id}/items?limit=1`)).body.total).toBe(36);
    // A capture of another tool (the UI's Import button takes what the CLI's import takes).
    const foreign = await send('POST', '/api/import', readFileSync(join(ROOT, 'recordings', 'foreign', 'sdk-example.acp-devtools.json'), 'utf8'));
    expect(foreign.status).toBe(201);
    expect(((await foreign.json()) as { items: number }).items).toBe(15);
    const bad = await send('POST', '/api/import', 'not a transcript\n');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error.length).toBeGreaterThan(5);
    expect((await send('DELETE', `/api/recordings/${id}`)).status).toBe(200);
    expect((await get(`/api/recordings/${id}`)).status).toBe(404);
    expect((await send('DELETE', `/api/recordings/${id}`)).status).toBe(404);
  });

  it('refuses to delete a recording that is still being recorded', async () => {
    const store = Store.open(db.dbPath);
    const id = store.createRecording({ name: 'running', status: 'running', hostPid: process.pid });
    store.close();
    expect((await send('DELETE', `/api/recordings/${id}`)).status).toBe(400);
  });

  it('streams new items and findings written by another connection over SSE', async () => {
    const store = Store.open(db.dbPath);
    const id = store.createRecording({ name: 'streamed', status: 'running', hostPid: process.pid });
    const b = new ItemBuilder();
    handshake(b);
    store.appendItems(id, b.take());
    const res = await app.request(`http://${HOST}/api/events?recording=${id}`, { headers: { host: HOST, authorization: `Bearer ${TOKEN}` } });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    const events: LiveEvent[] = [];
    let buf = '';
    const until = async (pred: () => boolean) => {
      while (!pred()) {
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buf += new TextDecoder().decode(value);
        let k: number;
        while ((k = buf.indexOf('\n\n')) !== -1) {
          const chunk = buf.slice(0, k);
          buf = buf.slice(k + 2);
          const data = chunk.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
          if (data) events.push(JSON.parse(data) as LiveEvent);
        }
      }
    };
    await until(() => events.some((e) => e.type === 'hello'));
    promptTurn(b, 2, 'streamed turn');
    store.appendItems(id, b.take());
    store.appendFindings(id, [{ seq: 7, severity: 'info', rule: 'streamed-rule', message: 'hello' }]);
    await until(() => events.some((e) => e.type === 'findings') && events.filter((e) => e.type === 'items').flatMap((e) => (e as { rows: { seq: number }[] }).rows).some((r) => r.seq === b.seq));
    const seqs = events.flatMap((e) => (e.type === 'items' ? e.rows.map((r) => r.seq) : []));
    expect(seqs).toEqual(Array.from({ length: b.seq - 5 }, (_, i) => i + 6));
    expect(events.find((e) => e.type === 'findings')).toMatchObject({ findings: [{ seq: 7, rule: 'streamed-rule' }] });
    await reader.cancel();
    store.close();
  });

  it('pages a 100,000-item recording and filters it by method through the indexes', async () => {
    const id = addBigRecording(db.dbPath, 100_000);
    const t0 = performance.now();
    const first = (await get<TimelinePage>(`/api/recordings/${id}/items?limit=200`)).body;
    const t1 = performance.now();
    let filtered = (await get<TimelinePage>(`/api/recordings/${id}/items?limit=200&q=method%3Asession%2Fprompt`)).body;
    const t2 = performance.now();
    // A filter still being run when its time is spent answers its rows so far, marked partial; asking
    // again gets more until the count is final.
    for (let k = 0; filtered.partial && k < 200; k++) {
      expect(filtered.rows.every((r) => r.method === 'session/prompt')).toBe(true);
      await new Promise((r) => setTimeout(r, 50));
      const again = (await get<TimelinePage>(`/api/recordings/${id}/items?limit=200&q=method%3Asession%2Fprompt`)).body;
      expect(again.total).toBeGreaterThanOrEqual(filtered.total);
      filtered = again;
    }
    expect(filtered.partial).toBeUndefined();
    const tail = (await get<TimelinePage>(`/api/recordings/${id}/items?limit=200&offset=99900&q=${encodeURIComponent('-method:session/update')}`)).body;
    const t3 = performance.now();
    const end = (await get<TimelinePage>(`/api/recordings/${id}/items?limit=200&offset=${first.total - 200}`)).body;
    const t4 = performance.now();
    expect(end.rows[199]!.seq).toBe(first.total);
    expect(first.total).toBeGreaterThanOrEqual(100_000);
    expect(first.rows).toHaveLength(200);
    expect(filtered.rows.every((r) => r.method === 'session/prompt')).toBe(true);
    expect(filtered.total).toBe(Math.ceil((first.total - 5) / 14) * 2);
    expect(tail.offset).toBe(99900);
    console.log(`100k items: first page ${(t1 - t0).toFixed(0)} ms, method filter ${(t2 - t1).toFixed(0)} ms, deep page of a negated filter ${(t3 - t2).toFixed(0)} ms, last page (state folded from the start) ${(t4 - t3).toFixed(0)} ms`);
  });
});
