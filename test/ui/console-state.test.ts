/** The console page's fold of the lines it sent and heard, as a pure function: frames in, state out. */
import { describe, expect, it } from 'vitest';
import { emptyConsoleState, foldConsoleFrame } from '../../ui/src/console-state.js';
import type { ConsoleFrame } from '../../src/console/contract.js';

let n = 0;
const frame = (dir: 'c2a' | 'a2c', msg: Record<string, unknown>): ConsoleFrame => {
  const kind = 'method' in msg ? ('id' in msg ? 'request' : 'notification') : 'error' in msg ? 'error' : 'result';
  return { type: 'frame', n: ++n, run: 1, dir, at: n, raw: JSON.stringify(msg), kind, json: { jsonrpc: '2.0', ...msg }, ...(typeof msg.method === 'string' ? { method: msg.method } : {}), ...('id' in msg ? { id: msg.id as number } : {}) };
};

function fold(frames: ConsoleFrame[]) {
  const s = emptyConsoleState();
  const sent = new Map<string, ConsoleFrame>();
  for (const f of frames) foldConsoleFrame(s, f, sent);
  return s;
}

describe('the console state', () => {
  it('knows the agent from its initialize answer and a session with its modes, config options and commands, kept current by updates', () => {
    const s = fold([
      frame('c2a', { id: 1, method: 'initialize', params: {} }),
      frame('a2c', { id: 1, result: { protocolVersion: 1, agentInfo: { name: 'a', version: '1' } } }),
      frame('c2a', { id: 2, method: 'session/new', params: { cwd: '/w', mcpServers: [] } }),
      frame('a2c', { id: 2, result: { sessionId: 's', modes: { currentModeId: 'ask', availableModes: [{ id: 'ask', name: 'Ask' }, { id: 'code', name: 'Code' }] },
        configOptions: [{ id: 'model', name: 'Model', type: 'select', currentValue: 'm1', options: [{ value: 'm1', name: 'M1' }, { value: 'm2', name: 'M2' }] }] } }),
      frame('a2c', { method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'current_mode_update', currentModeId: 'code' } } }),
      frame('a2c', { method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'config_option_update', configOptions: [{ id: 'model', name: 'Model', type: 'select', currentValue: 'm2', options: [] }] } } }),
      frame('a2c', { method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'web', description: 'search', input: { hint: 'query' } }] } } }),
    ]);
    expect(s.init?.result?.agentInfo).toEqual({ name: 'a', version: '1' });
    const sess = s.sessions.get('s')!;
    expect(sess.modes.map((m) => m.id)).toEqual(['ask', 'code']);
    expect(sess.currentModeId).toBe('code');
    expect(sess.configOptions[0]).toMatchObject({ id: 'model', currentValue: 'm2' });
    expect(sess.commands).toEqual([{ name: 'web', description: 'search', hint: 'query' }]);
  });

  it('tracks running prompts to their stop reason, and ignores an update for a session it never opened', () => {
    const s = fold([
      frame('c2a', { id: 1, method: 'session/new', params: {} }),
      frame('a2c', { id: 1, result: { sessionId: 's' } }),
      frame('c2a', { id: 2, method: 'session/prompt', params: { sessionId: 's', prompt: [] } }),
    ]);
    expect(s.running).toEqual([{ id: 2, sessionId: 's' }]);
    const sent = new Map<string, ConsoleFrame>([['2', frame('c2a', { id: 2, method: 'session/prompt', params: { sessionId: 's', prompt: [] } })]]);
    foldConsoleFrame(s, frame('a2c', { method: 'session/update', params: { sessionId: 'other', update: { sessionUpdate: 'current_mode_update', currentModeId: 'x' } } }), sent);
    foldConsoleFrame(s, frame('a2c', { id: 2, result: { stopReason: 'cancelled' } }), sent);
    expect(s.running).toEqual([]);
    expect(s.stopReasons.get('s')).toBe('cancelled');
    expect(s.sessions.has('other')).toBe(false);
  });

  it('forgets a session closed or deleted', () => {
    const s = fold([
      frame('c2a', { id: 1, method: 'session/new', params: {} }),
      frame('a2c', { id: 1, result: { sessionId: 's' } }),
      frame('c2a', { id: 2, method: 'session/fork', params: { sessionId: 's' } }),
      frame('a2c', { id: 2, result: { sessionId: 't' } }),
      frame('c2a', { id: 3, method: 'session/close', params: { sessionId: 's' } }),
      frame('a2c', { id: 3, result: {} }),
    ]);
    expect([...s.sessions.keys()]).toEqual(['t']);
  });

  it('keeps an initialize error as the answer', () => {
    const s = fold([frame('c2a', { id: 1, method: 'initialize', params: {} }), frame('a2c', { id: 1, error: { code: -32602, message: 'bad version' } })]);
    expect(s.init).toEqual({ error: { code: -32602, message: 'bad version' } });
  });
});
