/** The model: what the state says after given frames (part 3 transitions), and its one-line summary. */
import { describe, expect, it } from 'vitest';
import { parseTranscript } from '../../src/transcript/format.js';
import { createChecker, stateAt, summarizeState, type Finding } from '../../src/check/index.js';
import { MAX_PENDING_REQUESTS } from '../../src/check/model.js';
import { frameFromText } from '../../src/wire/make-frame.js';
import { check, transcript, init, session, req, res, note, update, prompt, endTurn, type Step } from './helpers.js';

const items = (steps: Step[]) => parseTranscript(transcript(steps)).items;
const MODES = { modes: { currentModeId: 'ask', availableModes: [{ id: 'ask', name: 'Ask' }, { id: 'code', name: 'Code' }] } };

describe('model state', () => {
  const steps: Step[] = [
    ...init({ terminal: true }, { loadSession: true }, [{ id: 'key', name: 'Key' }]),
    ['c2a', req(9, 'authenticate', { methodId: 'key' })],
    ['a2c', res(9, {})],
    ...session('s1', MODES),
    ['c2a', req(2, 'session/set_mode', { sessionId: 's1', modeId: 'code' })],
    ['a2c', res(2, {})],
    ['c2a', prompt(3)],
    ['a2c', update('s1', { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Run', status: 'in_progress' })],
    ['a2c', req(0, 'terminal/create', { sessionId: 's1', command: '/bin/true' })],
    ['c2a', res(0, { terminalId: 'term-1' })],
    ['c2a', note('session/cancel', { sessionId: 's1' })],
    ['a2c', update('s1', { sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'failed' })],
    ['a2c', req(1, 'terminal/release', { sessionId: 's1', terminalId: 'term-1' })],
    ['c2a', res(1, {})],
    ['a2c', endTurn(3, 'cancelled')],
  ];
  const all = items(steps);

  it('counts the terminals not released: a reused live id once, a second release not at all', () => {
    const ts: Step[] = [
      ...init({ terminal: true }),
      ...session('s1'),
      ['a2c', req(0, 'terminal/create', { sessionId: 's1', command: 'a' })],
      ['c2a', res(0, { terminalId: 'term-1' })],
      ['a2c', req(1, 'terminal/create', { sessionId: 's1', command: 'b' })],
      ['c2a', res(1, { terminalId: 'term-1' })],
      ['a2c', req(2, 'terminal/create', { sessionId: 's1', command: 'c' })],
      ['c2a', res(2, { terminalId: 'term-2' })],
      ['a2c', req(3, 'terminal/kill', { sessionId: 's1', terminalId: 'term-2' })],
      ['c2a', res(3, {})],
      ['a2c', req(4, 'terminal/release', { sessionId: 's1', terminalId: 'term-1' })],
      ['c2a', res(4, {})],
      ['a2c', req(5, 'terminal/release', { sessionId: 's1', terminalId: 'term-1' })],
      ['c2a', res(5, {})],
      ['a2c', req(6, 'terminal/create', { sessionId: 's1', command: 'd' })],
      ['c2a', res(6, { terminalId: 'term-1' })],
    ];
    const its = items(ts);
    const open = (seq: number) => {
      const st = stateAt(its, seq);
      const walked = Object.values(st.terminals).filter((t) => t.status !== 'released').length;
      expect(st.openTerminals ?? 0, `after #${seq}`).toBe(walked);
      return walked;
    };
    // The terminal steps are the last 14, one item each: step k of them is item base + k + 1.
    const base = its.length - 14;
    const after = (k: number) => base + k + 1;
    expect(its.length).toBe(ts.length);
    expect(open(after(1))).toBe(1);
    expect(open(after(3))).toBe(1); // the same live id again: still one terminal
    expect(open(after(7))).toBe(2); // killed is not released
    expect(open(after(8))).toBe(1);
    expect(open(after(10))).toBe(1); // released twice: counted once
    expect(open(its.length)).toBe(2);
    expect(summarizeState(stateAt(its, its.length))).toContain('2 terminals');
  });

  it('follows connection, auth, session, mode, turn, tool call and terminal transitions', () => {
    const s = stateAt(all, all.length);
    expect(s.connection).toBe('initialized');
    expect(s.protocolVersion).toBe(1);
    expect(s.auth.status).toBe('authenticated');
    expect(s.agent.info?.name).toBe('test-agent');
    expect(s.sessions.s1).toMatchObject({ status: 'active', cwd: '/work/project', modes: { current: 'code', available: ['ask', 'code'] }, turn: 'idle', lastStopReason: 'cancelled', turns: 1 });
    expect(s.sessions.s1!.toolCalls.t1!.status).toBe('failed');
    expect(s.terminals['term-1']!.status).toBe('released');
    expect(s.pendingCount).toEqual({ c2a: 0, a2c: 0 });
  });

  it('gives the state at any frame: the turn is cancelling after session/cancel, with the release pending later', () => {
    const atCancel = stateAt(all, 13);
    expect(atCancel.sessions.s1!.turn).toBe('cancel-requested');
    expect(atCancel.terminals['term-1']!.status).toBe('running');
    expect(summarizeState(atCancel)).toBe('init v1 · authenticated · 1 session · turn cancelling · 1 terminal · 1 pending');
    expect(summarizeState(stateAt(all, 15))).toBe('init v1 · authenticated · 1 session · turn cancelling · 2 pending');
    expect(summarizeState(stateAt(all, all.length))).toBe('init v1 · authenticated · 1 session · idle');
    expect(summarizeState(stateAt(all, 0))).toBe('not initialized · 0 sessions');
  });

  it('the live checker state equals the refolded state, and both are plain JSON', () => {
    const c = createChecker();
    for (const it of all.slice(0, 12)) c.step(it);
    expect(JSON.parse(JSON.stringify(c.state))).toEqual(JSON.parse(JSON.stringify(stateAt(all, 12))));
  });

  it('a failed session/load forgets the session it named; a successful one makes it active', () => {
    const s = stateAt(items([
      ...init({}, { loadSession: true }),
      ['c2a', req(1, 'session/load', { sessionId: 'gone', cwd: '/w', mcpServers: [] })],
      ['a2c', { jsonrpc: '2.0', id: 1, error: { code: -32002, message: 'not found' } }],
      ['c2a', req(2, 'session/load', { sessionId: 'old', cwd: '/w', mcpServers: [] })],
      ['a2c', res(2, {})],
    ]), 99);
    expect(Object.keys(s.sessions)).toEqual(['old']);
    expect(s.sessions.old!.status).toBe('active');
  });
});

describe('restoreState', () => {
  it('a state restored from JSON steps on like the original, and ids like "__proto__" stay plain keys', async () => {
    const { restoreState, stepModel, initialState } = await import('../../src/check/index.js');
    const all = items([...init(), ...session('__proto__'), ['c2a', prompt(2, '__proto__')], ['a2c', endTurn(2)]]);
    const a = initialState();
    for (const it of all.slice(0, 4)) stepModel(a, it);
    const b = restoreState(JSON.stringify(a));
    for (const it of all.slice(4)) {
      stepModel(a, it);
      stepModel(b, it);
    }
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(b.sessions['__proto__']!.turns).toBe(1);
    expect(({} as Record<string, unknown>).turns).toBeUndefined();
  });
});

describe('requests in flight are bounded', () => {
  it(`a peer that sends ${3 * MAX_PENDING_REQUESTS} requests and gets no answer: the checker tracks ${MAX_PENDING_REQUESTS}, says so once, and pairs the newest`, () => {
    const c = createChecker();
    const findings: Finding[] = [];
    let seq = 0;
    const step = (dir: 'c2a' | 'a2c', v: unknown) => { for (const f of c.step(frameFromText(++seq, seq, dir, JSON.stringify(v)))) findings.push(f); };
    step('c2a', { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: 'c', version: '1' } } });
    step('a2c', { jsonrpc: '2.0', id: 'init', result: { protocolVersion: 1, agentCapabilities: {}, agentInfo: { name: 'a', version: '1' }, authMethods: [] } });
    const n = 3 * MAX_PENDING_REQUESTS;
    for (let i = 0; i < n; i++) step('c2a', { jsonrpc: '2.0', id: i, method: '_x/ping', params: {} });
    expect(c.state.pendingCount.c2a).toBe(MAX_PENDING_REQUESTS);
    expect(Object.keys(c.state.pending)).toHaveLength(MAX_PENDING_REQUESTS);
    expect(c.state.pendingForgotten).toEqual({ c2a: n - MAX_PENDING_REQUESTS, a2c: 0 });
    expect(findings.map((f) => [f.rule, f.seq])).toEqual([['too-many-pending-requests', 3 + MAX_PENDING_REQUESTS]]);
    // The newest request is still paired; an answer to a forgotten one is one warning, not an error, and said once.
    step('a2c', { jsonrpc: '2.0', id: n - 1, result: {} });
    step('a2c', { jsonrpc: '2.0', id: 0, result: {} });
    step('a2c', { jsonrpc: '2.0', id: 1, result: {} });
    expect(findings.slice(1).map((f) => [f.rule, f.severity])).toEqual([['response-unknown-id', 'warning']]);
    const end = c.end();
    expect(end.filter((f) => f.rule === 'unanswered-request')).toHaveLength(MAX_PENDING_REQUESTS - 1);
  });

  it(`exactly ${MAX_PENDING_REQUESTS} in flight, all answered later, raises nothing; answered ones do not count`, () => {
    const steps: Step[] = [...init()];
    for (let i = 0; i < MAX_PENDING_REQUESTS; i++) steps.push(['c2a', req(i, '_x/ping', {})]);
    for (let i = 0; i < MAX_PENDING_REQUESTS; i++) steps.push(['a2c', res(i, {})]);
    // Many more, each answered at once: never more than one in flight.
    for (let i = 0; i < 2 * MAX_PENDING_REQUESTS; i++) steps.push(['c2a', req(`y${i}`, '_x/ping', {})], ['a2c', res(`y${i}`, {})]);
    expect(check(steps)).toEqual([]);
  });
});
