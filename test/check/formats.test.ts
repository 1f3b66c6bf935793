/** Formats the spec states, checked at the frame (invalid-format) and the base64 test itself. */
import { describe, expect, it } from 'vitest';
import { FORMATS } from '../../src/spec/schema.js';
import { check, init, session, update, prompt, endTurn, type Step } from './helpers.js';

const S = 's1';
const IMAGE = { promptCapabilities: { image: true, audio: true, embeddedContext: true } };
const promptWith = (blocks: unknown[]): Step[] => [...init({}, IMAGE), ...session(S), ['c2a', prompt(2, S, blocks)], ['a2c', endTurn(2)]];
const formatFindings = (steps: Step[]) => check(steps).filter((f) => f.rule === 'invalid-format' || f.severity === 'error');

describe('base64', () => {
  it('accepts the standard alphabet, padded or not', () => {
    for (const v of ['', 'AA==', 'AAE=', 'AAEC', 'iVBORw0KGgo=', 'a+/9', 'AA', 'AAE']) expect(FORMATS.base64(v), v).toBe(true);
  });
  it('refuses other alphabets, whitespace, data: prefixes, bad padding and impossible lengths', () => {
    for (const v of ['a-_9', 'AA AA', 'AAAA\n', 'data:image/png;base64,AAAA', 'A===', 'A', 'AAAAA', '=AAA', 'AA=A', 'AAA==', 'é']) expect(FORMATS.base64(v), v).toBe(false);
  });
  it('checks megabytes quickly enough', () => {
    expect(FORMATS.base64('AAAA'.repeat(1 << 18))).toBe(true);
  });
});

describe('invalid-format', () => {
  it('reports image and audio data and resource blobs that are not base64, where they are met', () => {
    const f = formatFindings(promptWith([{ type: 'audio', mimeType: 'audio/wav', data: 'not base64!' }]));
    expect(f.map((x) => [x.seq, x.rule, x.severity, x.spec])).toEqual([[5, 'invalid-format', 'error', '2.6']]);
    expect(f[0]!.message).toContain('session/prompt params.prompt[0].data is not base64');
    const g = formatFindings(promptWith([{ type: 'resource', resource: { uri: 'file:///w/a', blob: 'AA=A' } }]));
    expect(g.map((x) => [x.seq, x.rule])).toEqual([[5, 'invalid-format']]);
    expect(g[0]!.message).toContain('params.prompt[0].resource.blob');
    // in an update, inside a tool call's content
    const h = formatFindings([...init(), ...session(S), ['c2a', prompt(2)], ['a2c', update(S, { sessionUpdate: 'tool_call', toolCallId: 't', title: 'x', content: [{ type: 'content', content: { type: 'image', mimeType: 'image/png', data: 'a-b_' } }] })], ['a2c', endTurn(2)]]);
    expect(h.map((x) => [x.seq, x.rule])).toEqual([[6, 'invalid-format']]);
  });

  it('leaves text resources and good data alone', () => {
    expect(formatFindings(promptWith([{ type: 'resource', resource: { uri: 'file:///w/a', text: 'not base64!' } }, { type: 'image', mimeType: 'image/png', data: 'AAEC' }]))).toEqual([]);
  });

  it('reports a cost whose currency is not an ISO 4217 code (2.7)', () => {
    const usage = (currency: string) => update(S, { sessionUpdate: 'usage_update', used: 10, size: 100, cost: { amount: 0.5, currency } });
    const bad = formatFindings([...init(), ...session(S), ['c2a', prompt(2)], ['a2c', usage('dollars')], ['a2c', endTurn(2)]]);
    expect(bad.map((x) => [x.seq, x.rule, x.spec])).toEqual([[6, 'invalid-format', '2.7']]);
    expect(formatFindings([...init(), ...session(S), ['c2a', prompt(2)], ['a2c', usage('USD')], ['a2c', endTurn(2)]])).toEqual([]);
  });
});

describe('absolute-path: every field of those names in the schema', () => {
  it('checks the additional directories of listed sessions', () => {
    const list = (dirs: string[]) => [...init({}, { sessionCapabilities: { list: {} } }), ['c2a', { jsonrpc: '2.0', id: 1, method: 'session/list', params: {} }], ['a2c', { jsonrpc: '2.0', id: 1, result: { sessions: [{ sessionId: S, cwd: '/w', additionalDirectories: dirs }] } }]] as Step[];
    expect(check(list(['lib'])).map((x) => [x.seq, x.rule, x.severity])).toEqual([[4, 'absolute-path', 'error']]);
    expect(check(list(['/lib']))).toEqual([]);
  });
  it('checks the UNSTABLE subagent_update cwd, as a warning', () => {
    const sub = (cwd: string) => [...init(), ...session(S), ['c2a', prompt(2)], ['a2c', update(S, { sessionUpdate: 'subagent_update', sessionId: 'sub1', cwd })], ['a2c', endTurn(2)]] as Step[];
    expect(check(sub('sub/dir')).filter((x) => x.rule === 'absolute-path').map((x) => [x.seq, x.severity])).toEqual([[6, 'warning']]);
    expect(check(sub('/w/sub')).filter((x) => x.rule === 'absolute-path')).toEqual([]);
  });
});

describe('UNSTABLE methods without an SDK schema: the types spec.md gives', () => {
  it('document/* version is a 64-bit integer and uri a string (warnings)', () => {
    const open = (version: unknown) => [...init(), ...session(S), ['c2a', { jsonrpc: '2.0', method: 'document/didOpen', params: { sessionId: S, uri: 'file:///w/a.ts', languageId: 'typescript', version, text: '' } }]] as Step[];
    expect(check(open('3')).map((x) => [x.seq, x.rule, x.severity])).toEqual([[5, 'invalid-params', 'warning']]);
    expect(check(open(1.5)).map((x) => x.rule)).toEqual(['invalid-params']);
    expect(check(open(3))).toEqual([]);
  });
});
