/** Order a peer cannot follow (spec 3): frames naming a session before the answer that creates it. */
import { describe, expect, it } from 'vitest';
import { check, init, session, req, res, update, prompt, endTurn, chunk, type Step } from './helpers.js';

const S = 's1';
const commands = (sid: string) => update(sid, { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'web', description: 'Search the web' }] });
const found = (steps: Step[]) => check(steps).filter((f) => f.severity !== 'info').map((f) => [f.seq, f.rule, f.severity]);

describe('a session named before it exists', () => {
  it('an update for the new session before the agent answered session/new is an error', () => {
    const steps: Step[] = [...init(), ['c2a', req(1, 'session/new', { cwd: '/w', mcpServers: [] })], ['a2c', commands(S)], ['a2c', res(1, { sessionId: S })]];
    expect(found(steps)).toEqual([[4, 'session-unknown', 'error']]);
    expect(check(steps).find((f) => f.rule === 'session-unknown')!.message).toContain('before answering the session/new (#3)');
  });

  it('so is a request from the agent naming it (the client cannot place it)', () => {
    const steps: Step[] = [...init({ fs: { readTextFile: true } }), ['c2a', req(1, 'session/new', { cwd: '/w', mcpServers: [] })], ['a2c', req(0, 'fs/read_text_file', { sessionId: S, path: '/w/a' })], ['c2a', res(0, { content: '' })], ['a2c', res(1, { sessionId: S })]];
    expect(found(steps)).toContainEqual([4, 'session-unknown', 'error']);
  });

  it('and an update for the forked session before session/fork is answered', () => {
    const caps = { sessionCapabilities: { fork: {} } };
    const steps: Step[] = [...init({}, caps), ...session(S), ['c2a', req(2, 'session/fork', { sessionId: S, cwd: '/w' })], ['a2c', commands('s2')], ['a2c', res(2, { sessionId: 's2' })]];
    expect(found(steps)).toEqual([[6, 'session-unknown', 'error']]);
  });

  it('keeps the tolerance for a session that exists: commands just after session/new, updates while another session/new is pending', () => {
    expect(found([...init(), ...session(S), ['a2c', commands(S)], ['c2a', prompt(2)], ['a2c', chunk(S)], ['a2c', endTurn(2)]])).toEqual([]);
    expect(found([...init(), ...session(S), ['c2a', prompt(2)], ['c2a', req(3, 'session/new', { cwd: '/w', mcpServers: [] })], ['a2c', chunk(S)], ['a2c', commands(S)], ['a2c', res(3, { sessionId: 's2' })], ['a2c', commands('s2')], ['a2c', endTurn(2)]])).toEqual([]);
  });

  it('a loaded session is known from the request that names it (its history streams before the answer)', () => {
    const steps: Step[] = [...init({}, { loadSession: true }), ['c2a', req(1, 'session/load', { sessionId: 'old', cwd: '/w', mcpServers: [] })], ['a2c', update('old', { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'hi' } })], ['a2c', res(1, {})]];
    expect(found(steps)).toEqual([]);
  });
});

describe('client calls while a session is being loaded', () => {
  const load = (call: unknown, answer: unknown = {}): Step[] => [...init({ fs: { readTextFile: true, writeTextFile: true } }, { loadSession: true }), ['c2a', req(1, 'session/load', { sessionId: 'old', cwd: '/w', mcpServers: [] })], ['a2c', call], ['c2a', res(0, answer)], ['a2c', res(1, {})]];
  it('a permission request or a write while session/load restores the session is outside any turn', () => {
    const perm = req(0, 'session/request_permission', { sessionId: 'old', toolCall: { toolCallId: 't' }, options: [{ optionId: 'a', name: 'Allow', kind: 'allow_once' }] });
    expect(found(load(perm))).toContainEqual([4, 'client-call-outside-turn', 'warning']);
    expect(found(load(req(0, 'fs/write_text_file', { sessionId: 'old', path: '/w/a', content: '' })))).toContainEqual([4, 'client-call-outside-turn', 'warning']);
  });
  it('reading a file to rebuild the context is not', () => {
    expect(found(load(req(0, 'fs/read_text_file', { sessionId: 'old', path: '/w/a' }), { content: '' }))).toEqual([]);
  });
});
