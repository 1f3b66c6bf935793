/**
 * The waterfall's spans and the insights, computed from recordings written here frame by frame:
 * who the time belongs to, how spans nest and end, the marks (errors, failed, cancelled, never
 * ended), the collapsed idle gaps, and each automatic insight with a recording that has it and one
 * that does not.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parseTranscript } from '../../src/transcript/format.js';
import { buildWaterfall, ariaLabelOf, fmtDuration, frameAt, TimeAxis, GAP_SHOWN_MS, type WaterfallSpan } from '../../src/view/waterfall.js';
import { computeInsights, quantile, bucketOf, LATENCY_BUCKETS } from '../../src/view/insights.js';

const SID = 'sess-1';

/** A transcript built line by line: `at(ms)` sets the clock, `c2a`/`a2c` add frames. */
class Rec {
  private lines: string[] = [JSON.stringify({ acpInspect: 'recording', version: 1 })];
  t = 0;
  at(t: number): this { this.t = t; return this; }
  private put(dir: string, msg: unknown): this { this.lines.push(JSON.stringify({ t: this.t, dir, raw: JSON.stringify({ jsonrpc: '2.0', ...(msg as object) }) })); return this; }
  c2a(msg: unknown): this { return this.put('c2a', msg); }
  a2c(msg: unknown): this { return this.put('a2c', msg); }
  upd(update: unknown): this { return this.a2c({ method: 'session/update', params: { sessionId: SID, update } }); }
  items() { return parseTranscript(this.lines.join('\n')).items; }
}

function start(r = new Rec()): Rec {
  return r.at(0).c2a({ id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true }, terminal: true } } })
    .at(5).a2c({ id: 0, result: { protocolVersion: 1, agentCapabilities: {}, agentInfo: { name: 'agent-x', version: '1.0' } } })
    .at(10).c2a({ id: 1, method: 'session/new', params: { cwd: '/p', mcpServers: [] } })
    .at(20).a2c({ id: 1, result: { sessionId: SID } });
}

/** A turn at `t0`: a chunk after 300 ms, a Read tool call with an fs read, an edit with a permission wait of `waitMs`. */
function turn(r: Rec, id: number, t0: number, waitMs = 2000, stop = 'end_turn'): Rec {
  return r.at(t0).c2a({ id, method: 'session/prompt', params: { sessionId: SID, prompt: [{ type: 'text', text: `fix bug ${id}` }] } })
    .at(t0 + 300).upd({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Looking.' } })
    .at(t0 + 400).upd({ sessionUpdate: 'tool_call', toolCallId: `r${id}`, title: 'Read file.ts', kind: 'read', status: 'in_progress' })
    .at(t0 + 410).a2c({ id: id * 100, method: 'fs/read_text_file', params: { sessionId: SID, path: '/p/file.ts' } })
    .at(t0 + 430).c2a({ id: id * 100, result: { content: 'x' } })
    .at(t0 + 1600).upd({ sessionUpdate: 'tool_call_update', toolCallId: `r${id}`, status: 'completed' })
    .at(t0 + 1700).upd({ sessionUpdate: 'tool_call', toolCallId: `e${id}`, title: 'Edit file.ts', kind: 'edit', status: 'pending' })
    .at(t0 + 1710).a2c({ id: id * 100 + 1, method: 'session/request_permission', params: { sessionId: SID, toolCall: { toolCallId: `e${id}` }, options: [{ optionId: 'ok', name: 'Allow', kind: 'allow_once' }] } })
    .at(t0 + 1710 + waitMs).c2a({ id: id * 100 + 1, result: { outcome: { outcome: 'selected', optionId: 'ok' } } })
    .at(t0 + 1720 + waitMs).upd({ sessionUpdate: 'tool_call_update', toolCallId: `e${id}`, status: 'completed' })
    .at(t0 + 1800 + waitMs).a2c({ id, result: { stopReason: stop } });
}

const byLabel = (spans: WaterfallSpan[], re: RegExp) => spans.filter((s) => re.test(s.label));

describe('the waterfall spans', () => {
  it('nest a turn, its tool calls, the fs read and the permission wait, each owned by whose time it is', () => {
    const wf = buildWaterfall(turn(start(), 2, 1000).items());
    const labels = wf.spans.map((s) => `${'  '.repeat(s.depth)}${ariaLabelOf(s)} [${s.owner}]`);
    expect(labels).toEqual([
      'initialize 5.0 ms [agent]',
      `session ${SID} 4.8 s [none]`,
      '  session/new 10 ms [agent]',
      '  prompt turn “fix bug 2” 3.8 s [agent]',
      '    tool call Read file.ts 1.2 s [agent]',
      '      fs/read_text_file /p/file.ts 20 ms [client]',
      '    tool call Edit file.ts 2.0 s [agent]',
      '      permission wait 2.0 s [user]',
    ]);
    const t = wf.spans.find((s) => s.type === 'turn')!;
    expect(t.firstChunk! - t.start).toBe(300);
    expect(t.stopReason).toBe('end_turn');
    const perm = wf.spans.find((s) => s.type === 'permission')!;
    expect([perm.seq, perm.endSeq, perm.stopReason]).toEqual([12, 13, 'ok']);
    // Every item's time is there, in order, for playback.
    expect(wf.frames.seq).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    expect(frameAt(wf.frames, 1000)).toBe(4);
    expect(frameAt(wf.frames, -1)).toBe(-1);
  });

  it('mark error responses, failed tool calls, tool calls a cancelled turn left open and requests never answered', () => {
    const r = start()
      .at(100).c2a({ id: 2, method: 'session/prompt', params: { sessionId: SID, prompt: [{ type: 'text', text: 'go' }] } })
      .at(110).upd({ sessionUpdate: 'tool_call', toolCallId: 'a', title: 'Run tests', kind: 'execute', status: 'in_progress' })
      .at(120).a2c({ id: 7, method: 'terminal/create', params: { sessionId: SID, command: 'npm', args: ['test'] } })
      .at(130).c2a({ id: 7, error: { code: -32603, message: 'no shell' } })
      .at(140).upd({ sessionUpdate: 'tool_call_update', toolCallId: 'a', status: 'failed' })
      .at(150).upd({ sessionUpdate: 'tool_call', toolCallId: 'b', title: 'Think', kind: 'think', status: 'in_progress' })
      .at(160).c2a({ method: 'session/cancel', params: { sessionId: SID } })
      .at(170).a2c({ id: 2, result: { stopReason: 'cancelled' } })
      .at(200).c2a({ id: 3, method: 'session/prompt', params: { sessionId: SID, prompt: [{ type: 'text', text: 'again' }] } })
      .at(210).upd({ sessionUpdate: 'tool_call', toolCallId: 'c', title: 'Search', kind: 'search', status: 'pending' })
      .at(220).a2c({ id: 3, result: { stopReason: 'end_turn' } })
      .at(230).a2c({ id: 9, method: 'fs/read_text_file', params: { sessionId: SID, path: '/p/x' } });
    const wf = buildWaterfall(r.items());
    const mark = (re: RegExp) => byLabel(wf.spans, re).map((s) => `${s.status}${s.note ? ` ${s.note}` : ''}`);
    expect(mark(/^terminal\/create npm test$/)).toEqual(['error -32603 no shell']);
    expect(mark(/^tool call Run tests$/)).toEqual(['failed failed']);
    expect(mark(/^tool call Think$/)).toEqual(['cancelled turn cancelled']);
    expect(mark(/^prompt turn “go”$/)).toEqual(['cancelled']);
    expect(mark(/^tool call Search$/)).toEqual(['unfinished last status pending']);
    expect(mark(/^prompt turn “again”$/)).toEqual(['ok']);
    expect(mark(/^fs\/read_text_file/)).toEqual(['unfinished no response']);
    expect(ariaLabelOf(byLabel(wf.spans, /^terminal\/create/)[0]!)).toBe('terminal/create npm test 10 ms, error (-32603 no shell)');
  });

  it('give a terminal its life from create to release, owned by the editor', () => {
    const r = start()
      .at(100).c2a({ id: 2, method: 'session/prompt', params: { sessionId: SID, prompt: [] } })
      .at(110).a2c({ id: 7, method: 'terminal/create', params: { sessionId: SID, command: 'make' } })
      .at(115).c2a({ id: 7, result: { terminalId: 't1' } })
      .at(120).a2c({ id: 8, method: 'terminal/wait_for_exit', params: { sessionId: SID, terminalId: 't1' } })
      .at(2120).c2a({ id: 8, result: { exitCode: 2 } })
      .at(2130).a2c({ id: 9, method: 'terminal/release', params: { sessionId: SID, terminalId: 't1' } })
      .at(2135).c2a({ id: 9, result: {} })
      .at(2200).a2c({ id: 2, result: { stopReason: 'end_turn' } });
    const wf = buildWaterfall(r.items());
    const term = wf.spans.find((s) => s.type === 'terminal')!;
    expect([term.label, term.start, term.end, term.owner, term.note]).toEqual(['terminal make', 110, 2135, 'client', 'exit code 2']);
    const ins = computeInsights(r.items(), wf);
    // The turn waited 2 s on the editor (the terminal calls); the terminal's life is not counted twice.
    expect(ins.turns[0]!.clientMs).toBe(5 + 2000 + 5);
    expect(ins.insights.map((i) => i.kind)).toContain('waiting-client');
  });

  it('collapse idle gaps over 30 s on the time axis, and map times through them both ways', () => {
    const r = turn(turn(start(), 2, 1000), 3, 1000 + 3800 + 10 * 60_000);
    const wf = buildWaterfall(r.items());
    expect(wf.gaps).toEqual([{ from: 4800, to: 604_800 }]);
    const ax = new TimeAxis(wf.start, wf.end, wf.gaps);
    expect(ax.length).toBe(wf.end - wf.start - (600_000 - GAP_SHOWN_MS));
    for (const t of [0, 100, 4800, 5000, 300_000, 604_800, 605_000, wf.end]) expect(ax.fromAxis(ax.toAxis(t))).toBeCloseTo(t, 6);
    expect(ax.toAxis(604_800) - ax.toAxis(4800)).toBe(GAP_SHOWN_MS);
    // A short pause is not a gap.
    expect(buildWaterfall(turn(turn(start(), 2, 1000), 3, 1000 + 3800 + 29_000).items()).gaps).toEqual([]);
  });

  it('say durations the way the bars\' names do', () => {
    expect([0.42, 85.4, 1234, 59_999, 125_000, 3_780_000].map(fmtDuration)).toEqual(['0.4 ms', '85 ms', '1.2 s', '60.0 s', '2 min 5 s', '1 h 3 min']);
    // 43.5 ms from a transcript's times (75.623 − 32.123) is 43.49999999999999 in floating point:
    // it must round as the stored times' 43.5 does, or the static viewer and the server disagree.
    expect(fmtDuration(75.623 - 32.123)).toBe(fmtDuration(43.5));
    expect(fmtDuration(43.5)).toBe('44 ms');
  });

  it('read the recordings of real agents without losing a request', () => {
    for (const f of ['recordings/real/claude-agent-acp-tools-cancel.jsonl', 'recordings/sdk-example.jsonl']) {
      const items = parseTranscript(readFileSync(f, 'utf8')).items;
      const wf = buildWaterfall(items);
      const requests = items.filter((i) => (i.dir === 'c2a' || i.dir === 'a2c') && i.kind === 'request').length;
      expect(wf.spans.filter((s) => s.type !== 'session' && s.type !== 'tool' && s.type !== 'terminal').length, f).toBe(requests);
      for (const s of wf.spans) {
        expect(s.end, f).toBeGreaterThanOrEqual(s.start);
        if (s.parent !== null) expect(wf.spans[s.parent]!.id, f).toBeLessThan(s.id);
      }
    }
  });
});

describe('the insights', () => {
  it('compute latency percentiles and the histogram per method, nearest rank', () => {
    expect(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.5)).toBe(5);
    expect(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9)).toBe(9);
    expect(quantile([], 0.5)).toBeNull();
    expect([0.5, 1, 1.5, 60_000, 70_000].map(bucketOf)).toEqual([0, 0, 1, LATENCY_BUCKETS.length - 1, LATENCY_BUCKETS.length]);
    const r = start();
    for (let k = 0; k < 20; k++) r.at(1000 + k * 100).c2a({ id: 10 + k, method: 'session/set_mode', params: { sessionId: SID, modeId: 'a' } }).at(1000 + k * 100 + (k === 19 ? 1500 : 10)).a2c({ id: 10 + k, result: {} });
    const ins = computeInsights(r.items(), buildWaterfall(r.items()));
    const m = ins.methods.find((x) => x.method === 'session/set_mode')!;
    expect([m.requests, m.answered, m.p50, m.p90, m.p99, m.max]).toEqual([20, 20, 10, 10, 1500, 1500]);
    expect(m.histogram[bucketOf(10)]).toBe(19);
    expect(m.histogram[bucketOf(1500)]).toBe(1);
    expect(ins.slowest[0]).toMatchObject({ method: 'session/set_mode', latency: 1500, seq: 4 + 2 * 19 + 1 });
    // One request 150× the median: a long tail and a single outlier, both pointing at it.
    const kinds = ins.insights.map((i) => i.kind);
    expect(kinds).toContain('long-tail');
    expect(ins.insights.find((i) => i.kind === 'outlier')!.seqs[0]).toBe(43);
  });

  it('split each turn between the agent, the editor and the user, with the time to first chunk', () => {
    const items = turn(start(), 2, 1000, 5000).items();
    const ins = computeInsights(items, buildWaterfall(items));
    expect(ins.turns).toEqual([expect.objectContaining({ seq: 5, durationMs: 6800, ttfcMs: 300, userMs: 5000, clientMs: 20, agentMs: 1780, stopReason: 'end_turn', toolCalls: 2 })]);
    expect(ins.permissions).toEqual([expect.objectContaining({ waitMs: 5000, outcome: 'ok', answered: true })]);
    expect(ins.tools.map((k) => [k.kind, k.count, k.p50])).toEqual([['edit', 1, 5020], ['read', 1, 1200]]);
    const wait = ins.insights.find((i) => i.kind === 'waiting-user')!;
    expect(wait.seqs).toEqual([5]);
    expect(wait.title).toBe('Turn #5 spent 74% of its 6.8 s waiting on the user');
    // A quick answer is not worth a look.
    const quick = turn(start(), 2, 1000, 100).items();
    expect(computeInsights(quick, buildWaterfall(quick)).insights.map((i) => i.kind)).not.toContain('waiting-user');
  });

  it('find bursts of errors, group errors by code, and name tool calls that never reached a final status', () => {
    const r = start();
    for (let k = 0; k < 4; k++) r.at(1000 + k * 500).c2a({ id: 10 + k, method: 'session/load', params: { sessionId: 'x', cwd: '/', mcpServers: [] } }).at(1010 + k * 500).a2c({ id: 10 + k, error: { code: -32002, message: 'Resource not found' } });
    r.at(20_000).c2a({ id: 20, method: 'session/set_mode', params: {} }).at(20_010).a2c({ id: 20, error: { code: -32602, message: 'Invalid params' } });
    r.at(21_000).c2a({ id: 21, method: 'session/prompt', params: { sessionId: SID, prompt: [] } })
      .at(21_010).upd({ sessionUpdate: 'tool_call', toolCallId: 'z', title: 'Hang', kind: 'fetch', status: 'in_progress' })
      .at(21_020).a2c({ id: 21, result: { stopReason: 'end_turn' } });
    const ins = computeInsights(r.items(), buildWaterfall(r.items()));
    expect(ins.errors.map((e) => [e.code, e.count, e.methods])).toEqual([[-32002, 4, ['session/load']], [-32602, 1, ['session/set_mode']]]);
    const burst = ins.insights.filter((i) => i.kind === 'error-burst');
    expect(burst).toHaveLength(1);
    expect(burst[0]!.seqs).toHaveLength(4);
    const unfinished = ins.insights.find((i) => i.kind === 'unfinished-tool')!;
    expect(unfinished.title).toBe('1 tool call never reached a final status');
    expect(unfinished.detail).toContain('tool call Hang');
    // Bursts lead, then the rest.
    expect(ins.insights[0]!.kind).toBe('error-burst');
    // Two errors far apart are no burst.
    const calm = start().at(1000).c2a({ id: 9, method: 'x/y', params: {} }).at(1001).a2c({ id: 9, error: { code: 1, message: 'a' } })
      .at(60_000).c2a({ id: 10, method: 'x/y', params: {} }).at(60_001).a2c({ id: 10, error: { code: 1, message: 'a' } }).items();
    expect(computeInsights(calm, buildWaterfall(calm)).insights.map((i) => i.kind)).not.toContain('error-burst');
  });

  it('count frames and bytes over time and find the busiest second', () => {
    const r = start();
    for (let k = 0; k < 30; k++) r.at(3000 + k * 10).upd({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x' } });
    r.at(9000).upd({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'y' } });
    const items = r.items();
    const ins = computeInsights(items, buildWaterfall(items));
    expect(ins.throughput.frames.reduce((a, b) => a + b, 0)).toBe(items.length);
    expect(ins.throughput.bytes.reduce((a, b) => a + b, 0)).toBe(ins.bytes);
    expect(ins.throughput.frames[3]).toBe(30);
    const busy = ins.insights.find((i) => i.kind === 'busiest-second')!;
    expect(busy.title).toMatch(/^The busiest second: 30 frames/);
    expect(busy.seqs).toEqual([5, 34]);
    // A longer recording: buckets of several seconds, each frame in the bucket its time after the first item's falls in.
    const long = start();
    for (let k = 0; k < 200; k++) long.at(1000 + k * 1733).upd({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'z'.repeat(k) } });
    const li = long.items();
    const lins = computeInsights(li, buildWaterfall(li));
    const { bucketMs, frames, bytes } = lins.throughput;
    expect(bucketMs).toBe(3000);
    const want = new Array<number>(frames.length).fill(0);
    const wantBytes = new Array<number>(frames.length).fill(0);
    for (const it of li) {
      if (it.dir !== 'c2a' && it.dir !== 'a2c') continue;
      const b = Math.min(frames.length - 1, Math.floor((it.t - li[0]!.t) / bucketMs));
      want[b]!++;
      wantBytes[b]! += it.size;
    }
    expect(frames).toEqual(want);
    expect(bytes).toEqual(wantBytes);
  });
});
