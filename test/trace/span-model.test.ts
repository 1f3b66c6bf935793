/**
 * The span model as playbooks: transcripts in (through the real parser and checker), a span tree out.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers.js';
import { parseTranscript } from '../../src/transcript/format.js';
import { checkRecording } from '../../src/check/index.js';
import { buildTrace, flattenSpans, TraceFold, type SpanNode } from '../../src/trace/index.js';
import { utf8Length } from '../../src/wire/make-frame.js';
import { redactFrame } from '../../src/redact.js';
import { type Step, chunk, endTurn, err, init, note, prompt, req, res, session, transcript, update } from '../check/helpers.js';

function trace(steps: Step[], opts: Parameters<typeof buildTrace>[2] = {}): SpanNode[] {
  const rec = parseTranscript(transcript(steps));
  return flattenSpans(buildTrace(rec.items, checkRecording(rec), opts));
}
const named = (spans: SpanNode[], name: string) => spans.filter((s) => s.name === name || s.name.startsWith(`${name} `));
const one = (spans: SpanNode[], name: string) => {
  const found = named(spans, name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
};

const TURN: Step[] = [
  ...init({ fs: { readTextFile: true }, terminal: true }, { loadSession: true, promptCapabilities: { image: true } }),
  ...session('s1'),
  ['c2a', prompt(2, 's1', [{ type: 'text', text: 'fix the bug' }])],
  ['a2c', update('s1', { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hmm' } })],
  ['a2c', chunk('s1', 'héllo ')],
  ['a2c', update('s1', { sessionUpdate: 'tool_call', toolCallId: 'tc1', title: 'Read main.ts', kind: 'read', status: 'pending', rawInput: { path: '/p/main.ts' } })],
  ['a2c', req(10, 'session/request_permission', { sessionId: 's1', toolCall: { toolCallId: 'tc1' }, options: [{ optionId: 'yes', name: 'Allow', kind: 'allow_once' }, { optionId: 'no', name: 'Reject', kind: 'reject_once' }] })],
  ['c2a', res(10, { outcome: { outcome: 'selected', optionId: 'yes' } })],
  ['a2c', update('s1', { sessionUpdate: 'tool_call_update', toolCallId: 'tc1', status: 'in_progress' })],
  ['a2c', req(11, 'fs/read_text_file', { sessionId: 's1', path: '/p/main.ts' })],
  ['c2a', res(11, { content: 'code' })],
  ['a2c', update('s1', { sessionUpdate: 'tool_call_update', toolCallId: 'tc1', status: 'completed', rawOutput: { text: 'code' } })],
  ['a2c', update('s1', { sessionUpdate: 'tool_call', toolCallId: 'tc2', title: 'Run tests', kind: 'execute', status: 'in_progress' })],
  ['a2c', req(12, 'terminal/create', { sessionId: 's1', command: 'npm', args: ['test'] })],
  ['c2a', res(12, { terminalId: 'term1' })],
  ['a2c', req(13, 'terminal/wait_for_exit', { sessionId: 's1', terminalId: 'term1' })],
  ['c2a', res(13, { exitCode: 1, signal: null })],
  ['a2c', req(14, 'terminal/release', { sessionId: 's1', terminalId: 'term1' })],
  ['c2a', res(14, {})],
  ['a2c', update('s1', { sessionUpdate: 'tool_call_update', toolCallId: 'tc2', status: 'failed' })],
  ['a2c', update('s1', { sessionUpdate: 'usage_update', used: 1200, size: 200000, cost: { amount: 0.02, currency: 'USD' } })],
  ['a2c', chunk('s1', 'done')],
  ['a2c', res(2, { stopReason: 'end_turn', usage: { totalTokens: 150, inputTokens: 100, outputTokens: 50, thoughtTokens: 7, cachedReadTokens: 30, cachedWriteTokens: 5 } })],
];

describe('the span model', () => {
  it('builds connection → session → turn → tool calls → requests, with parents and times from the items', () => {
    const spans = trace([...TURN, ['event', 'exit', { code: 0, signal: null }]]);
    const root = spans[0]!;
    expect(root.name).toBe('acp connection');
    expect(root.parent).toBeNull();
    expect(root.attributes).toMatchObject({
      'acp.client.name': 'test-client', 'acp.agent.name': 'test-agent', 'gen_ai.agent.name': 'test-agent', 'acp.protocol.version': 1,
      'acp.client.capabilities': ['fs.readTextFile', 'terminal'], 'acp.agent.capabilities': ['loadSession', 'promptCapabilities.image'],
      'process.exit.code': 0, 'acp.sessions': 1,
    });
    const sess = one(spans, 'acp session');
    expect(sess.parent).toBe(root);
    expect(one(spans, 'session/new').parent).toBe(sess);
    expect(one(spans, 'initialize').parent).toBe(root);

    const turn = one(spans, 'invoke_agent');
    expect(turn.name).toBe('invoke_agent test-agent');
    expect(turn.parent).toBe(sess);
    expect(turn.kind).toBe('client');
    expect([turn.start, turn.end]).toEqual([5, 25]); // the prompt's item and its answer's
    expect(turn.attributes).toMatchObject({
      'gen_ai.conversation.id': 's1', 'acp.turn.stop_reason': 'end_turn', 'acp.turn.message_chunks': 2, 'acp.turn.message_bytes': utf8Length('héllo done'),
      'acp.turn.thought_chunks': 1, 'acp.turn.time_to_first_chunk_ms': 1, 'gen_ai.response.time_to_first_chunk': 0.001, 'acp.turn.tool_calls': 2,
      'gen_ai.usage.input_tokens': 100, 'gen_ai.usage.output_tokens': 50, 'gen_ai.usage.reasoning.output_tokens': 7,
      'gen_ai.usage.cache_read.input_tokens': 30, 'gen_ai.usage.cache_creation.input_tokens': 5, 'acp.usage.total_tokens': 150,
      'acp.usage.context_used': 1200, 'acp.usage.context_size': 200000, 'acp.usage.cost.amount': 0.02, 'acp.usage.cost.currency': 'USD',
    });
    expect(utf8Length('héllo done')).toBe(11);

    const read = one(spans, 'execute_tool read');
    expect(read.parent).toBe(turn);
    expect(read.attributes).toMatchObject({ 'gen_ai.tool.call.id': 'tc1', 'acp.tool_call.title': 'Read main.ts', 'gen_ai.tool.name': 'read', 'acp.tool_call.status': 'completed' });
    expect(read.status).toBe('unset');
    const perm = one(spans, 'session/request_permission');
    expect(perm.parent).toBe(read);
    expect(perm.kind).toBe('server');
    expect(perm.attributes).toMatchObject({ 'acp.permission.options': ['yes', 'no'], 'acp.permission.outcome': 'selected', 'acp.permission.option_id': 'yes', 'acp.permission.option_kind': 'allow_once', 'acp.permission.wait_ms': 1 });
    // The agent's fs request while exactly one tool call is in progress is that tool call's work.
    expect(one(spans, 'fs/read_text_file').parent).toBe(read);

    const run = one(spans, 'execute_tool execute');
    expect(run.status).toBe('error');
    expect(run.statusMessage).toMatch(/Run tests failed/);
    expect(one(spans, 'terminal/create').parent).toBe(run);
    const term = one(spans, 'acp terminal');
    expect(term.parent).toBe(sess);
    expect(term.attributes).toMatchObject({ 'acp.terminal.id': 'term1', 'process.exit.code': 1 });
    expect([term.start, term.end]).toEqual([16, 21]); // terminal/create sent → terminal/release answered
    expect(one(spans, 'terminal/release').parent).toBe(run);
  });

  it('carries a remote agent\'s transport: the URL on the connection, a POST\'s status and its answer\'s stream on the request, stream happenings as events', () => {
    const tr = (data: Record<string, unknown>): Step => ['event', 'transport', data];
    const spans = trace([
      tr({ op: 'connect', transport: 'http', url: 'https://agents.example/acp' }),
      ...init(),
      tr({ op: 'post', transport: 'http', method: 'POST', status: 200, connectionId: 'c1', rpc: { id: 0, method: 'initialize', kind: 'request' } }),
      tr({ op: 'sse-open', transport: 'http', method: 'GET', status: 200, stream: 'connection', connectionId: 'c1' }),
      ...session('s1'),
      ['c2a', prompt(2, 's1', [{ type: 'text', text: 'hi' }])],
      tr({ op: 'post', transport: 'http', method: 'POST', status: 202, connectionId: 'c1', sessionId: 's1', rpc: { id: 2, method: 'session/prompt', kind: 'request', sessionId: 's1' } }),
      tr({ op: 'sse-message', transport: 'http', stream: 'session', sessionId: 's1', rpc: { id: 2, kind: 'response' } }),
      ['a2c', endTurn(2)],
      tr({ op: 'sse-close', transport: 'http', stream: 'session', sessionId: 's1', reason: 'broken', message: 'other side closed' }),
    ]);
    const root = spans[0]!;
    expect(root.attributes).toMatchObject({ 'acp.transport': 'http', 'url.full': 'https://agents.example/acp', 'acp.transport.connection_id': 'c1' });
    expect(one(spans, 'invoke_agent').attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 202, 'acp.transport.session_id': 's1', 'acp.transport.stream': 'session' });
    expect(root.events.filter((e) => e.name === 'acp.transport').map((e) => e.attributes)).toEqual([
      { 'acp.transport.op': 'sse-open', 'http.response.status_code': 200, 'acp.transport.stream': 'connection' },
      { 'acp.transport.op': 'sse-close', 'acp.transport.stream': 'session', 'acp.transport.session_id': 's1', 'acp.transport.message': 'other side closed' },
    ]);
    // A stdio recording has no transport attribute.
    expect(trace([...init(), ...session('s1')])[0]!.attributes['acp.transport']).toBeUndefined();
  });

  it('keeps content out unless asked, and redacts it when asked', () => {
    const secretTurn: Step[] = [...init(), ...session('s1'), ['c2a', prompt(2, 's1', [{ type: 'text', text: 'deploy it' }])],
      ['a2c', update('s1', { sessionUpdate: 'tool_call', toolCallId: 'd', title: 'Deploy', kind: 'execute', status: 'completed', rawInput: { target: 'prod', apiKey: 'hunter2-very-secret' } })],
      ['a2c', chunk('s1', 'ok')], ['a2c', endTurn(2)]];
    const plain = trace(secretTurn);
    expect(JSON.stringify(plain.map((s) => s.attributes))).not.toMatch(/deploy it|"ok"|prod|hunter2/);
    const withContent = trace(secretTurn, { content: true, redact: redactFrame });
    const turn = one(withContent, 'invoke_agent');
    const input = turn.attributes['gen_ai.input.messages'] as string;
    expect(JSON.parse(input)).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'deploy it' }] }]);
    const args = one(withContent, 'execute_tool').attributes['gen_ai.tool.call.arguments'] as string;
    expect(JSON.parse(args)).toEqual({ target: 'prod', apiKey: '<redacted>' });
    expect(JSON.parse(turn.attributes['gen_ai.output.messages'] as string)).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: 'ok' }], finish_reason: 'end_turn' }]);
  });

  it('marks a JSON-RPC error with its code and an error status', () => {
    const spans = trace([...init(), ...session('s1'), ['c2a', req(5, '_vendor/set_mode', { sessionId: 's1', modeId: 'nope' })], ['a2c', err(5, -32602, 'unknown mode')]]);
    const s = one(spans, '_vendor/set_mode');
    expect(s.status).toBe('error');
    expect(s.statusMessage).toBe('unknown mode');
    expect(s.attributes).toMatchObject({ 'rpc.jsonrpc.error_code': -32602, 'rpc.response.status_code': '-32602', 'error.type': '-32602', 'rpc.jsonrpc.error_message': 'unknown mode' });
  });

  it('puts findings as events on the span of their frame, with an error status for errors', () => {
    // A prompt for a session nobody opened: an error finding at the prompt's frame.
    const spans = trace([...init(), ['c2a', prompt(2, 'ghost')], ['a2c', endTurn(2)]]);
    const turn = one(spans, 'invoke_agent');
    expect(turn.parent!.name).toBe('acp connection');
    const ev = turn.events.find((e) => e.name === 'acp.finding')!;
    expect(ev.attributes).toMatchObject({ 'acp.finding.severity': 'error', 'acp.finding.rule': expect.any(String), 'acp.finding.spec': expect.any(String), 'acp.seq': 3 });
    expect(ev.t).toBe(3);
    expect(turn.status).toBe('error');
    expect(spans[0]!.attributes['acp.findings.errors']).toBeGreaterThan(0);
  });

  it('keeps at most 1,000 events on a span and counts the rest', () => {
    const steps: Step[] = [...init()];
    for (let i = 0; i < 1100; i++) steps.push(['a2c', 'agent log line, not JSON']);
    const rec = parseTranscript(transcript(steps));
    const findings = checkRecording(rec).filter((f) => f.seq > 2);
    expect(findings.length).toBeGreaterThan(1000);
    const root = buildTrace(rec.items, findings);
    expect(root.events).toHaveLength(1000);
    expect(root.attributes['acp.events_dropped']).toBe(findings.length - 1000);
  });

  it('ends what is still open at the last item: an unanswered turn, its tool calls, the session', () => {
    const spans = trace([...init(), ...session('s1'), ['c2a', prompt(2)], ['a2c', update('s1', { sessionUpdate: 'tool_call', toolCallId: 't', title: 'x', status: 'in_progress' })], ['c2a', note('session/cancel', { sessionId: 's1' })], ['event', 'stdout-closed', {}]]);
    const turn = one(spans, 'invoke_agent');
    expect(turn.attributes).toMatchObject({ 'acp.turn.unfinished': true, 'acp.turn.cancel_requested': true, 'acp.unanswered': true });
    expect(turn.events.map((e) => e.name)).toContain('acp.cancel');
    expect(turn.end).toBe(8);
    const tool = one(spans, 'execute_tool');
    expect(tool.attributes['acp.tool_call.unfinished']).toBe(true);
    for (const s of spans) expect(s.end, s.name).not.toBeNull();
  });

  it('puts the history a session/load streams under the load request', () => {
    const spans = trace([...init({}, { loadSession: true }), ['c2a', req(1, 'session/load', { sessionId: 'old', cwd: '/p', mcpServers: [] })],
      ['a2c', update('old', { sessionUpdate: 'tool_call', toolCallId: 'h1', title: 'old call', status: 'completed' })], ['a2c', res(1, {})]]);
    const sess = one(spans, 'acp session');
    expect(sess.attributes['acp.session.origin']).toBe('load');
    const load = one(spans, 'session/load');
    expect(load.parent).toBe(sess);
    const tool = one(spans, 'execute_tool');
    expect(tool.parent).toBe(load);
    expect(tool.attributes['acp.tool_call.replayed']).toBe(true);
  });

  it('hands each span on once, children before parents, and keeps nothing when not asked to (the live tap)', () => {
    const rec = parseTranscript(transcript(TURN));
    const ended: SpanNode[] = [];
    const fold = new TraceFold({ onEnd: (s) => ended.push(s) });
    for (const item of rec.items) fold.step(item);
    fold.finish();
    expect(ended.length).toBe(fold.spans);
    expect(new Set(ended).size).toBe(ended.length);
    for (const s of ended) {
      if (s.parent) expect(ended.indexOf(s.parent), s.name).toBeGreaterThan(ended.indexOf(s));
      expect(s.children).toEqual([]);
    }
  });
});

function jsonlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? jsonlFiles(p) : p.endsWith('.jsonl') ? [p] : [];
  });
}

describe('the span model over every recording in recordings/ (real agents and clients)', () => {
  for (const file of jsonlFiles(join(ROOT, 'recordings'))) {
    it(`folds ${file.slice(ROOT.length + 1)} into one well-formed tree`, () => {
      const rec = parseTranscript(readFileSync(file, 'utf8'));
      const spans = flattenSpans(buildTrace(rec.items, checkRecording(rec)));
      expect(spans.filter((s) => s.parent === null)).toHaveLength(1);
      const ids = new Set(spans.map((s) => s.id));
      expect(ids.size).toBe(spans.length);
      for (const s of spans) {
        expect(s.end, s.name).not.toBeNull();
        expect(s.end!, s.name).toBeGreaterThanOrEqual(s.start);
        if (!s.parent) continue;
        expect(ids.has(s.parent.id), s.name).toBe(true);
        expect(s.start, `${s.name} starts inside ${s.parent.name}`).toBeGreaterThanOrEqual(s.parent.start);
        expect(s.end!, `${s.name} ends inside ${s.parent.name}`).toBeLessThanOrEqual(s.parent.end!);
        const sid = s.attributes['acp.session.id'];
        const opened = spans.some((x) => x.name === 'acp session' && x.attributes['acp.session.id'] === sid && x.start <= s.start);
        if (s.name.startsWith('invoke_agent') && opened) expect(s.parent.name).toBe('acp session');
        if (s.name.startsWith('execute_tool')) expect(s.parent.name).toMatch(/^(invoke_agent|acp session|session\/load|session\/resume)/);
      }
      const frames = rec.items.filter((i) => i.dir === 'c2a' || i.dir === 'a2c').length;
      expect(spans[0]!.attributes['acp.frames']).toBe(frames);
    });
  }
});
