/** Field names (spec 9 rules 5 and 6): what spec/fields.ts finds and how unknown-field and unstable-field report it. */
import { describe, expect, it } from 'vitest';
import { fieldNotes } from '../../src/spec/fields.js';
import { check, init, session, req, res, update, prompt, endTurn, chunk } from './helpers.js';

const S = 's1';

describe('fieldNotes', () => {
  it('finds names the schema does not have, at any depth, arrays written []', () => {
    expect(fieldNotes('initialize', 'result', { protocolVersion: 1, agentCapabilities: { mcpCapabilities: { http: true, foo: 1 } }, authMethods: [{ id: 'a', name: 'A', hint: 'x' }] })).toEqual([
      { path: 'result.agentCapabilities.mcpCapabilities.foo', unstable: false },
      { path: 'result.authMethods[].hint', unstable: false },
    ]);
    expect(fieldNotes('session/update', 'params', { sessionId: S, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a' }, extraThing: 1 } })).toEqual([{ path: 'params.update.extraThing', unstable: false }]);
    expect(fieldNotes('session/prompt', 'result', { stopReason: 'end_turn', bogusField: true })).toEqual([{ path: 'result.bogusField', unstable: false }]);
  });

  it('knows the names of the variant a union value selects, and of the default variant', () => {
    expect(fieldNotes('session/update', 'params', { sessionId: S, update: { sessionUpdate: 'tool_call', toolCallId: 't', title: 'x', kind: 'read', status: 'pending', locations: [{ path: '/a', line: 1 }], content: [{ type: 'diff', path: '/a', oldText: null, newText: 'b' }] } })).toEqual([]);
    // `newText` belongs to a diff, not to a content item
    expect(fieldNotes('session/update', 'params', { sessionId: S, update: { sessionUpdate: 'tool_call', toolCallId: 't', title: 'x', content: [{ type: 'content', content: { type: 'text', text: 'a' }, newText: 'b' }] } })).toEqual([{ path: 'params.update.content[].newText', unstable: false }]);
    // a stdio MCP server has no `type`; an http one has `url` and `headers`
    expect(fieldNotes('session/new', 'params', { cwd: '/w', mcpServers: [{ name: 'a', command: '/bin/a', args: [], env: [] }, { type: 'http', name: 'b', url: 'https://x', headers: [] }] })).toEqual([]);
    expect(fieldNotes('session/new', 'params', { cwd: '/w', mcpServers: [{ name: 'a', command: '/bin/a', args: [], env: [], url: 'x' }] })).toEqual([{ path: 'params.mcpServers[].url', unstable: false }]);
  });

  it('never reports _meta, _-prefixed names, what lies inside open objects, or inside an unknown variant', () => {
    expect(fieldNotes('session/update', 'params', { sessionId: S, _meta: { a: 1 }, update: { sessionUpdate: 'tool_call', toolCallId: 't', title: 'x', _vendor: 1, rawInput: { whatever: 1 }, rawOutput: { also: 2 } } })).toEqual([]);
    expect(fieldNotes('session/update', 'params', { sessionId: S, update: { sessionUpdate: 'future_kind', anything: 1 } })).toEqual([]);
    expect(fieldNotes('terminal/create', 'params', { sessionId: S, command: '/bin/ls', env: [{ name: 'A', value: 'b' }] })).toEqual([]);
    expect(fieldNotes('_acme/x', 'params', { a: 1 })).toEqual([]);
  });

  it('names a field the schema marks UNSTABLE as such', () => {
    expect(fieldNotes('initialize', 'params', { protocolVersion: 1, clientCapabilities: { plan: {} } })).toEqual([{ path: 'params.clientCapabilities.plan', unstable: true }]);
    expect(fieldNotes('session/prompt', 'result', { stopReason: 'end_turn', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } })).toEqual([{ path: 'result.usage', unstable: true }]);
  });
});

describe('unknown-field and unstable-field', () => {
  it('report each path once per recording, at its first frame, with the count, as info', () => {
    const f = check([
      ...init({}, { mcpCapabilities: { foo: true } }),
      ...session(S, { models: { currentModelId: 'm' } }),
      ['c2a', prompt(2)],
      ['a2c', update(S, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a' }, extraThing: 1 })],
      ['a2c', update(S, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'b' }, extraThing: 2 })],
      ['a2c', chunk(S)],
      ['a2c', update(S, { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'c' }, extraThing: 3 })],
      ['a2c', endTurn(2)],
    ]).filter((x) => x.rule === 'unknown-field');
    expect(f.map((x) => [x.seq, x.severity, x.spec])).toEqual([[2, 'info', '9 rule 6'], [4, 'info', '9 rule 6'], [6, 'info', '9 rule 6']]);
    expect(f[0]!.message).toContain('initialize result.agentCapabilities.mcpCapabilities.foo');
    expect(f[1]!.message).toContain('session/new result.models');
    expect(f[2]!.message).toMatch(/session\/update params\.update\.extraThing .*\(3 frames, first at #6\)/);
  });

  it('names UNSTABLE fields under their own rule and section', () => {
    const f = check([...init({ plan: {} }), ...session(S), ['c2a', prompt(2)], ['a2c', res(2, { stopReason: 'end_turn', usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } })]]);
    expect(f.map((x) => [x.seq, x.rule, x.severity, x.spec])).toEqual([[1, 'unstable-field', 'info', '9 rule 5'], [6, 'unstable-field', 'info', '9 rule 5']]);
    expect(f[0]!.message).toContain('initialize params.clientCapabilities.plan is marked UNSTABLE');
  });

  it('say nothing on a connection that negotiated another protocol version (the names are v1 names)', () => {
    const f = check([
      ['c2a', req(0, 'initialize', { protocolVersion: 2, clientCapabilities: {} })],
      ['a2c', res(0, { protocolVersion: 2, agentCapabilities: { somethingNew: {} } })],
    ]);
    expect(f.filter((x) => x.rule === 'unknown-field')).toEqual([]);
  });
});

describe('unknown-field: the message and the error object', () => {
  it('reports members beyond JSON-RPC\'s and error fields beyond code, message and data, once per path', () => {
    const f = check([
      ...init(),
      ['c2a', { ...req(1, 'session/new', { cwd: '/w', mcpServers: [] }), trace: 'abc' }],
      ['a2c', { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'boom', stack: 'at x', _vendor: 1 } }],
      ['c2a', { ...req(2, 'session/new', { cwd: '/w', mcpServers: [] }), trace: 'def', _ext: 1 }],
      ['a2c', res(2, { sessionId: S })],
    ]).filter((x) => x.rule === 'unknown-field');
    expect(f.map((x) => x.seq)).toEqual([3, 4]);
    expect(f[0]!.message).toMatch(/session\/new message member "trace" is not one of JSON-RPC's.*\(2 frames, first at #3\)/);
    expect(f[1]!.message).toContain('session/new error.stack');
  });
});
