import { describe, expect, it } from 'vitest';
import { RULES, checkRecording } from '../../src/check/index.js';
import { parseTranscript } from '../../src/transcript/format.js';
import { PLAYBOOKS } from './playbooks.js';
import { check, errorsOf, transcript, init, req, res, note, session, prompt, chunk, endTurn, type Step } from './helpers.js';
import { stateAt } from '../../src/check/index.js';

describe('rule playbooks', () => {
  it('every rule has a playbook and every playbook names a rule', () => {
    const ids = RULES.map((r) => r.id).sort();
    expect(PLAYBOOKS.map((p) => p.rule).sort()).toEqual(ids);
  });

  it('rule ids are stable kebab-case, unique, with a severity, a spec section and the spec text', () => {
    expect(new Set(RULES.map((r) => r.id)).size).toBe(RULES.length);
    for (const r of RULES) {
      expect(r.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(['error', 'warning', 'info']).toContain(r.severity);
      // A section of the spec, or (transport rules) the remote transport's RFD.
      expect(r.spec).toMatch(/^(\d|RFD streamable-http-websocket-transport: )/);
      expect(r.specText.length).toBeGreaterThan(10);
    }
  });

  for (const p of PLAYBOOKS) {
    if (p.rule === 'invalid-utf8') continue;
    it(`${p.rule}: reported on the transcript that breaks it`, () => {
      const found = check(p.bad).filter((f) => f.rule === p.rule);
      expect(found.map((f) => f.seq), JSON.stringify(check(p.bad), null, 1)).toContain(p.seq);
    });
    it(`${p.rule}: silent on the transcript that keeps it, which has no errors at all`, () => {
      const all = check(p.good);
      expect(all.filter((f) => f.rule === p.rule)).toEqual([]);
      expect(errorsOf(all)).toEqual([]);
    });
  }

  it('invalid-utf8: reported for a frame stored with rawBase64', () => {
    const text = transcript(init()) + JSON.stringify({ t: 9, dir: 'a2c', raw: '\ufffd', rawBase64: Buffer.from([0xff, 0x0a]).toString('base64').slice(0, 2) + '==' }) + '\n';
    const f = checkRecording(parseTranscript(text));
    expect(f.filter((x) => x.rule === 'invalid-utf8').map((x) => x.seq)).toEqual([3]);
    expect(checkRecording(parseTranscript(transcript(init())))).toEqual([]);
  });

  it('response-unknown-id: a -32700 reply with id null answers a line the other side could not parse', () => {
    const f = check([...init(), ['c2a', 'oops'], ['a2c', { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }]]);
    expect(f.map((x) => x.rule)).toEqual(['not-json']);
  });

  it('response-unknown-id: an answer sent again unchanged is a warning (delivered twice), one that differs or answers nothing an error', () => {
    const answer = { jsonrpc: '2.0', id: 1, result: { sessionId: 's1' } };
    const newSession = ['c2a', { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/tmp', mcpServers: [] } }] as Step;
    const again = check([...init(), newSession, ['a2c', answer], ['a2c', answer]]).filter((x) => x.rule === 'response-unknown-id');
    expect(again.map((x) => [x.severity, x.seq])).toEqual([['warning', 5]]);
    expect(again[0]!.message).toContain('repeats, unchanged, the answer the agent already gave to the client\'s request #3');
    const other = check([...init(), newSession, ['a2c', answer], ['a2c', { ...answer, result: { sessionId: 's2' } }], ['a2c', { jsonrpc: '2.0', id: 9, result: {} }]]).filter((x) => x.rule === 'response-unknown-id');
    expect(other.map((x) => [x.severity, x.seq])).toEqual([['error', 5], ['error', 6]]);
  });

  it('concurrent-prompt: a remote session stream that ends mid-turn ends the turn for the client (its SDK fails the waiting prompt off the wire)', () => {
    const closed = (sessionId: string, stream = 'session'): Step => ['event', 'transport', { op: 'sse-close', transport: 'http', stream, connectionId: 'c1', sessionId, reason: 'ended by the agent' }];
    const turn = (end: Step): Step[] => [...init(), ...session(), ['c2a', prompt(2)], ['a2c', chunk()], end, ['c2a', prompt(3)], ['a2c', endTurn(3)]];
    // The session's stream ended: the second prompt is no second turn at once, and the state says the turn is over.
    const after = turn(closed('s1'));
    expect(check(after).filter((f) => f.rule === 'concurrent-prompt')).toEqual([]);
    const items = parseTranscript(transcript(after)).items;
    expect(stateAt(items, 7).sessions.s1).toMatchObject({ turn: 'idle', lastStopReason: 'error' });
    expect(stateAt(items, 8).sessions.s1).toMatchObject({ turn: 'running', turnSeq: 8 });
    // Another session's stream, or the connection's, ending settles nothing: still flagged.
    for (const other of [closed('s2'), closed('s1', 'connection')]) {
      expect(check(turn(other)).filter((f) => f.rule === 'concurrent-prompt').map((f) => f.seq), JSON.stringify(other)).toEqual([8]);
    }
  });

  it('--ignore silences a rule', () => {
    const p = PLAYBOOKS.find((x) => x.rule === 'concurrent-prompt')!;
    expect(check(p.bad, ['concurrent-prompt']).some((f) => f.rule === 'concurrent-prompt')).toBe(false);
  });
});

describe('UNSTABLE methods', () => {
  it('mcp/message shaped as spec.md says (connectionId) is never an error, though the SDK schema wants serverId/requestId', () => {
    const f = check([...init(), ['c2a', { jsonrpc: '2.0', method: 'mcp/message', params: { connectionId: 'c1', method: 'notifications/initialized' } }]]);
    expect(f).toEqual([]);
    // spec.md is the contract: without connectionId it is a warning (UNSTABLE), never an error.
    const g = check([...init(), ['c2a', { jsonrpc: '2.0', method: 'mcp/message', params: { serverId: 's', method: 'notifications/initialized' } }]]);
    expect(g.map((x) => [x.seq, x.rule, x.severity])).toEqual([[3, 'invalid-params', 'warning']]);
  });
});

describe('second-pass audit (planted violations found at their frame)', () => {
  const F = { elicitation: { form: {} } };
  const elicit = (schema: Record<string, unknown>, answer: Record<string, unknown>) => check([...init(F), ['c2a', req(1, 'session/new', { cwd: '/w', mcpServers: [] })], ['a2c', res(1, { sessionId: 's1' })], ['c2a', req(2, 'session/prompt', { sessionId: 's1', prompt: [] })], ['a2c', req(0, 'elicitation/create', { sessionId: 's1', mode: 'form', message: 'm', requestedSchema: { type: 'object', properties: schema } })], ['c2a', res(0, answer)], ['a2c', res(2, { stopReason: 'end_turn' })]]);
  it('elicitation content outside the stated bounds (enum, length, range, items) is an error at the answer', () => {
    const cases: Array<[Record<string, unknown>, unknown]> = [
      [{ type: 'string', enum: ['x', 'y'] }, 'z'],
      [{ type: 'string', oneOf: [{ const: 'x', title: 'X' }] }, 'z'],
      [{ type: 'string', minLength: 3 }, 'ab'],
      [{ type: 'number', maximum: 3 }, 5],
      [{ type: 'integer', minimum: 1 }, 0],
      [{ type: 'array', items: { type: 'string', enum: ['x'] }, minItems: 1 }, []],
      [{ type: 'array', items: { type: 'string', enum: ['x'] } }, ['q']],
    ];
    for (const [p, v] of cases) {
      const f = elicit({ a: p }, { action: 'accept', content: { a: v } });
      expect(f.filter((x) => x.rule === 'elicitation-content-mismatch').map((x) => x.seq), JSON.stringify(p)).toEqual([7]);
      const ok = elicit({ a: p }, { action: 'accept', content: {} });
      expect(errorsOf(ok)).toEqual([]);
    }
    const declined = elicit({ a: { type: 'string' } }, { action: 'decline', content: { a: 'x' } });
    expect(declined.filter((x) => x.rule === 'elicitation-content-mismatch').map((x) => x.severity)).toEqual(['warning']);
  });

  it('"result": null is the empty result (the SDK answers void handlers that way)', () => {
    const f = check([...init({ fs: { writeTextFile: true } }), ['c2a', req(1, 'session/new', { cwd: '/w', mcpServers: [] })], ['a2c', res(1, { sessionId: 's1', modes: { currentModeId: 'a', availableModes: [{ id: 'a', name: 'A' }] } })], ['c2a', req(2, 'session/prompt', { sessionId: 's1', prompt: [] })], ['a2c', req(0, 'fs/write_text_file', { sessionId: 's1', path: '/w/a', content: 'x' })], ['c2a', res(0, null)], ['c2a', req(3, 'session/set_mode', { sessionId: 's1', modeId: 'a' })], ['a2c', res(3, null)], ['a2c', res(2, { stopReason: 'end_turn' })]]);
    expect(f).toEqual([]);
    const bad = check([...init(), ['c2a', req(1, 'session/new', { cwd: '/w', mcpServers: [] })], ['a2c', res(1, null)]]);
    expect(bad.filter((x) => x.rule === 'invalid-result').map((x) => x.seq)).toEqual([4]);
  });

  it('schema findings cite the section that defines the faulty value', () => {
    const section = (steps: Parameters<typeof check>[0], seq: number) => check(steps).filter((x) => x.seq === seq && (x.rule === 'invalid-params' || x.rule === 'invalid-result')).map((x) => x.spec);
    expect(section([...init(), ['c2a', req(1, 'session/new', { cwd: '/w', mcpServers: [{ name: 'x', command: '/x', args: [] }] })], ['a2c', res(1, { sessionId: 's1' })]], 3)).toEqual(['2.8']);
    expect(section([...init(), ['c2a', req(1, 'session/new', { cwd: '/w', mcpServers: [] })], ['a2c', res(1, { sessionId: 's1' })], ['c2a', req(2, 'session/prompt', { sessionId: 's1', prompt: [{ type: 'resource_link', uri: 'file:///a' }] })], ['a2c', res(2, { stopReason: 'end_turn' })]], 5)).toEqual(['2.6']);
    expect(section([['c2a', req(0, 'initialize', { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: 'c', version: '1' } })], ['a2c', res(0, { protocolVersion: 1, agentCapabilities: {}, agentInfo: { name: 'a', version: '1' }, authMethods: [{ id: 'k' }] })]], 2)).toEqual(['2.5']);
  });

  it('UNSTABLE methods without an SDK schema are checked against spec.md required fields, as warnings', () => {
    const f = check([...init(), ['c2a', req(1, 'session/new', { cwd: '/w', mcpServers: [] })], ['a2c', res(1, { sessionId: 's1' })], ['c2a', note('document/didOpen', { sessionId: 's1', uri: 'file:///a', languageId: 'ts', version: 1 })], ['c2a', note('document/didClose', { sessionId: 'nope', uri: 'file:///a' })]]);
    expect(f.map((x) => [x.seq, x.rule, x.severity])).toEqual([[5, 'invalid-params', 'warning'], [6, 'session-unknown', 'warning']]);
  });
});

describe('second-pass audit: conformant variations stay silent', () => {
  it('loading a session twice replays its tool calls and messages without duplicate or reuse findings', () => {
    const replay: Parameters<typeof check>[0] = [
      ['a2c', note('session/update', { sessionId: 's1', update: { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'q' }, messageId: 'u1' } })],
      ['a2c', note('session/update', { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a' }, messageId: 'm1' } })],
      ['a2c', note('session/update', { sessionId: 's1', update: { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read', status: 'completed' } })],
    ];
    const f = check([...init({}, { loadSession: true }), ['c2a', req(1, 'session/load', { sessionId: 's1', cwd: '/w', mcpServers: [] })], ...replay, ['a2c', res(1, {})], ['c2a', req(2, 'session/load', { sessionId: 's1', cwd: '/w', mcpServers: [] })], ...replay, ['a2c', res(2, null)]]);
    expect(f).toEqual([]);
  });
});

describe('second-pass audit: initialize that failed', () => {
  it('a client going on after initialize was answered with an error is reported once, at its first call', () => {
    const f = check([['c2a', req(0, 'initialize', { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: 'c', version: '1' } })], ['a2c', { jsonrpc: '2.0', id: 0, error: { code: -32603, message: 'boom' } }], ['c2a', req(1, 'session/new', { cwd: '/w', mcpServers: [] })], ['a2c', res(1, { sessionId: 's1' })], ['c2a', req(2, 'session/new', { cwd: '/w', mcpServers: [] })], ['a2c', res(2, { sessionId: 's2' })]]);
    expect(f.filter((x) => x.rule === 'initialize-first').map((x) => x.seq)).toEqual([3]);
  });
});

describe('second-pass audit: native MCP servers', () => {
  const newSession = (caps: Record<string, unknown>, servers: unknown[]) => check([...init({}, { mcpCapabilities: caps }), ['c2a', req(1, 'session/new', { cwd: '/w', mcpServers: servers })], ['a2c', res(1, { sessionId: 's1' })]]);
  it('the SDK spelling "acp" and the spec spelling "native" are both gated, and one serverId names one server', () => {
    expect(newSession({ acp: true }, [{ type: 'acp', name: 'a', serverId: 'x' }]).filter((x) => x.severity !== 'info')).toEqual([]);
    expect(newSession({}, [{ type: 'acp', name: 'a', serverId: 'x' }]).map((x) => [x.seq, x.rule, x.severity])).toContainEqual([3, 'mcp-server-unadvertised', 'warning']);
    const dup = newSession({ native: true }, [{ type: 'native', name: 'a', serverId: 'x' }, { type: 'native', name: 'b', serverId: 'x' }]);
    expect(dup.filter((x) => x.rule === 'mcp-server-unadvertised').map((x) => [x.seq, x.spec])).toEqual([[3, '2.2']]);
  });
  it('one serverId names one server on the whole connection, across sessions (the same server in two sessions is fine)', () => {
    const two = (second: string) => check([...init({}, { mcpCapabilities: { native: true } }), ['c2a', req(1, 'session/new', { cwd: '/w', mcpServers: [{ type: 'native', name: 'a', serverId: 'x' }] })], ['a2c', res(1, { sessionId: 's1' })], ['c2a', req(2, 'session/new', { cwd: '/w', mcpServers: [{ type: 'native', name: second, serverId: 'x' }] })], ['a2c', res(2, { sessionId: 's2' })]]);
    expect(two('b').filter((x) => x.rule === 'mcp-server-unadvertised').map((x) => [x.seq, x.severity, x.spec])).toEqual([[5, 'warning', '2.2']]);
    expect(two('a').filter((x) => x.rule === 'mcp-server-unadvertised')).toEqual([]);
  });
});

describe('version of the initialize answer', () => {
  it('the frame answering initialize is judged by the version it negotiates, not the one the client asked for', () => {
    const f = check([['c2a', req(0, 'initialize', { protocolVersion: 2, clientCapabilities: {}, clientInfo: { name: 'c', version: '1' } })], ['a2c', res(0, { protocolVersion: 1, agentCapabilities: {}, agentInfo: { name: 'a', version: '1' }, authMethods: [{ id: 't', name: 'T', type: 'terminal' }] })]]);
    expect(f.filter((x) => x.rule === 'auth-terminal-unadvertised').map((x) => [x.seq, x.severity])).toEqual([[2, 'error']]);
    expect(f.some((x) => x.message.includes('a v1 rule'))).toBe(false);
  });
});
