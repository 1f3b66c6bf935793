/** The model: what the state says after given frames (part 3 transitions), and its one-line summary. */
import { describe, expect, it } from 'vitest';
import { parseTranscript } from '../../src/transcript/format.js';
import { createChecker, stateAt, summarizeState } from '../../src/check/index.js';
import { transcript, init, session, req, res, note, update, prompt, endTurn, type Step } from './helpers.js';

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
