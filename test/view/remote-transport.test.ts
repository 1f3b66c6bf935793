/**
 * A remote agent's transport in the views, from recordings written here line by line as the bridge
 * records them (a POST's event after its frame, a stream's events ahead of the frames they carry,
 * other streams' events between): the timeline's transport cell of each frame (the in-memory source
 * of the HTML report; the server's is driven in test/ui/remote-transport.e2e.test.ts), and the
 * waterfall's split of a POSTed request into network time and the agent's.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/server/index.js';
import { Store } from '../../src/store/store.js';
import { HttpSource } from '../../ui/src/api.js';
import { parseTranscript } from '../../src/transcript/format.js';
import { RULES, summarizeState } from '../../src/check/index.js';
import { checkStream } from '../../src/check-run/run.js';
import { decodeReport, encodeReport, reportData } from '../../src/view/report-data.js';
import { MemorySource } from '../../src/view/memory-source.js';
import { buildWaterfall, ariaLabelOf } from '../../src/view/waterfall.js';
import type { TransportData } from '../../src/wire/transport-event.js';

const S = 'sess-1';
const CONN = 'conn-1';

class Rec {
  private lines: string[] = [JSON.stringify({ acpInspect: 'recording', version: 1 })];
  t = 0;
  at(t: number): this { this.t = t; return this; }
  msg(dir: 'c2a' | 'a2c', m: object): this { this.lines.push(JSON.stringify({ t: this.t, dir, raw: JSON.stringify({ jsonrpc: '2.0', ...m }) })); return this; }
  ev(d: TransportData): this { this.lines.push(JSON.stringify({ t: this.t, dir: 'event', type: 'transport', data: d })); return this; }
  text(): string { return `${this.lines.join('\n')}\n`; }
}

/** A session over Streamable HTTP as the bridge records it; `statusAfterAnswer`: the prompt's 202 comes after its answer. */
function http(statusAfterAnswer = false): Rec {
  const r = new Rec()
    .at(0).ev({ op: 'connect', transport: 'http', url: 'http://h/acp' })
    .at(1).msg('c2a', { id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })
    .at(4).ev({ op: 'post', transport: 'http', method: 'POST', status: 200, connectionId: CONN, rpc: { id: 0, method: 'initialize', kind: 'request' } })
    .at(5).msg('a2c', { id: 0, result: { protocolVersion: 1, agentCapabilities: {} } })
    .at(10).msg('c2a', { id: 1, method: 'session/new', params: { cwd: '/p', mcpServers: [] } })
    .at(12).ev({ op: 'post', transport: 'http', method: 'POST', status: 202, connectionId: CONN, rpc: { id: 1, method: 'session/new', kind: 'request' } })
    .at(14).ev({ op: 'sse-message', transport: 'http', stream: 'connection', connectionId: CONN, rpc: { id: 1, kind: 'response' } })
    .at(15).msg('a2c', { id: 1, result: { sessionId: S } })
    .at(20).msg('c2a', { id: 2, method: 'session/prompt', params: { sessionId: S, prompt: [{ type: 'text', text: 'go' }] } })
    // The session's stream opens between the prompt's frame and its POST's event.
    .at(21).ev({ op: 'sse-open', transport: 'http', method: 'GET', status: 200, stream: 'session', connectionId: CONN, sessionId: S });
  if (!statusAfterAnswer) r.at(25).ev({ op: 'post', transport: 'http', method: 'POST', status: 202, connectionId: CONN, sessionId: S, rpc: { id: 2, method: 'session/prompt', sessionId: S, kind: 'request' } });
  // Two updates and the answer: their events read off the stream ahead of the frames.
  r.at(40).ev({ op: 'sse-message', transport: 'http', stream: 'session', connectionId: CONN, sessionId: S, rpc: { method: 'session/update', sessionId: S, kind: 'notification' } })
    .at(41).ev({ op: 'sse-message', transport: 'http', stream: 'session', connectionId: CONN, sessionId: S, rpc: { method: 'session/update', sessionId: S, kind: 'notification' } })
    .at(42).ev({ op: 'sse-message', transport: 'http', stream: 'session', connectionId: CONN, sessionId: S, rpc: { id: 2, kind: 'response' } })
    .at(43).msg('a2c', { method: 'session/update', params: { sessionId: S, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a' } } } })
    .at(43).msg('a2c', { method: 'session/update', params: { sessionId: S, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'b' } } } })
    .at(44).msg('a2c', { id: 2, result: { stopReason: 'end_turn' } });
  if (statusAfterAnswer) r.at(50).ev({ op: 'post', transport: 'http', method: 'POST', status: 202, connectionId: CONN, sessionId: S, rpc: { id: 2, method: 'session/prompt', sessionId: S, kind: 'request' } });
  return r;
}

async function cells(text: string): Promise<{ page: Awaited<ReturnType<MemorySource['page']>>; byFrame: string[] }> {
  const rec = parseTranscript(text);
  const d = reportData(rec, checkStream(rec.items, []).findings, RULES, summarizeState, 'note');
  const page = await new MemorySource(decodeReport(encodeReport(d)).recording).page(1, '', 0, 100);
  return { page, byFrame: page.rows.filter((r) => r.dir === 'c2a' || r.dir === 'a2c').map((r) => `${r.method} ${JSON.stringify(r.transport ?? null)}`) };
}

describe('the timeline\'s transport cells', () => {
  it('each frame of an HTTP recording: its POST and status, the stream its message came on, found past other events', async () => {
    const { page, byFrame } = await cells(http().text());
    expect(page.transport).toBe('http');
    expect(byFrame).toEqual([
      'initialize {"via":"POST","status":200}',
      'initialize null', // in the POST's body: no stream event
      'session/new {"via":"POST","status":202}',
      'session/new {"via":"SSE","stream":"connection"}',
      `session/prompt {"via":"POST","status":202,"sessionId":"${S}"}`,
      `session/update {"via":"SSE","stream":"session","sessionId":"${S}"}`,
      `session/update {"via":"SSE","stream":"session","sessionId":"${S}"}`,
      `session/prompt {"via":"SSE","stream":"session","sessionId":"${S}"}`,
    ]);
    // Events and the rows between keep no cell.
    expect(page.rows.filter((r) => r.dir === 'event').every((r) => r.transport === undefined)).toBe(true);
  });

  it('the server answers the same cells as the in-memory source, page by page', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'acp-remote-cells-'));
    const dbPath = join(dir, 'db.sqlite');
    const store = Store.open(dbPath);
    const ids = [http().text(), http(true).text()].map((t) => store.importRecording(parseTranscript(t)));
    store.close();
    const HOST = '127.0.0.1:4734';
    const app = createApp({ dbPath, token: 't', allowedHosts: [HOST] });
    try {
      const server = new HttpSource('', ((url: string, init?: RequestInit) => app.request(`http://${HOST}${url}`, { ...init, headers: { host: HOST, authorization: 'Bearer t' } })) as typeof fetch);
      for (const [k, text] of [http().text(), http(true).text()].entries()) {
        const mem = (await cells(text)).page;
        // Pages of 3 rows: a page's cells come from events outside it.
        for (let offset = 0; offset < mem.total; offset += 3) {
          const a = await server.page(ids[k]!, '', offset, 3);
          expect(a.transport).toBe('http');
          expect(a.rows.map((r) => [r.seq, r.transport ?? null])).toEqual(mem.rows.slice(offset, offset + 3).map((r) => [r.seq, r.transport ?? null]));
        }
        // A filtered page (the frames alone) likewise.
        const f = await server.page(ids[k]!, 'dir:a2c', 0, 50);
        expect(f.rows.map((r) => r.transport ?? null)).toEqual(mem.rows.filter((r) => r.dir === 'a2c').map((r) => r.transport ?? null));
      }
    } finally {
      app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a notification takes only an event of its own session', async () => {
    const text = http().text().replace(/"rpc":\{"method":"session\/update","sessionId":"sess-1"/g, '"rpc":{"method":"session/update","sessionId":"other"');
    const { byFrame } = await cells(text);
    expect(byFrame.filter((l) => l.startsWith('session/update'))).toEqual(['session/update null', 'session/update null']);
  });

  it('a WebSocket recording shows WS on every frame; a recording without transport events shows nothing', async () => {
    const ws = new Rec().at(0).ev({ op: 'connect', transport: 'ws', url: 'ws://h/acp' })
      .at(1).msg('c2a', { id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })
      .at(2).ev({ op: 'ws-open', transport: 'ws', status: 101, connectionId: CONN })
      .at(5).msg('a2c', { id: 0, result: { protocolVersion: 1, agentCapabilities: {} } });
    const w = await cells(ws.text());
    expect(w.page.transport).toBe('ws');
    expect(w.byFrame).toEqual(['initialize {"via":"WS"}', 'initialize {"via":"WS"}']);
    const stdio = http().text().split('\n').filter((l) => !l.includes('"type":"transport"')).join('\n');
    const s = await cells(stdio);
    expect(s.page.transport).toBeUndefined();
    expect(s.page.rows.every((r) => r.transport === undefined)).toBe(true);
  });
});

describe('the waterfall\'s network time', () => {
  it('splits a POSTed request at its status: network before, the agent\'s after', () => {
    const wf = buildWaterfall(parseTranscript(http().text()).items);
    const turn = wf.spans.find((s) => s.type === 'turn')!;
    expect(turn).toMatchObject({ start: 20, end: 44, network: 25, httpStatus: 202 });
    expect(ariaLabelOf(turn)).toBe('prompt turn “go” 24 ms (network 5.0 ms to HTTP 202, agent 19 ms)');
    expect(wf.spans.find((s) => s.label === 'initialize')).toMatchObject({ network: 4, httpStatus: 200 });
  });

  it('leaves a request whole when its status came after its answer, or nothing gives one', () => {
    const late = buildWaterfall(parseTranscript(http(true).text()).items);
    expect(late.spans.find((s) => s.type === 'turn')!.network).toBeUndefined();
    const stdio = http().text().split('\n').filter((l) => !l.includes('"type":"transport"')).join('\n');
    const wf = buildWaterfall(parseTranscript(stdio).items);
    expect(wf.spans.some((s) => s.network !== undefined || s.httpStatus !== undefined)).toBe(false);
    expect(ariaLabelOf(wf.spans.find((s) => s.type === 'turn')!)).toBe('prompt turn “go” 24 ms');
  });
});
