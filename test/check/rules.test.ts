import { describe, expect, it } from 'vitest';
import { RULES, checkRecording } from '../../src/check/index.js';
import { parseTranscript } from '../../src/transcript/format.js';
import { PLAYBOOKS } from './playbooks.js';
import { check, errorsOf, transcript, init } from './helpers.js';

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
      expect(r.spec).toMatch(/^\d/);
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

  it('--ignore silences a rule', () => {
    const p = PLAYBOOKS.find((x) => x.rule === 'concurrent-prompt')!;
    expect(check(p.bad, ['concurrent-prompt']).some((f) => f.rule === 'concurrent-prompt')).toBe(false);
  });
});

describe('UNSTABLE methods', () => {
  it('mcp/message shaped as spec.md says (connectionId) is never an error, though the SDK schema wants serverId/requestId', () => {
    const f = check([...init(), ['c2a', { jsonrpc: '2.0', method: 'mcp/message', params: { connectionId: 'c1', method: 'notifications/initialized' } }]]);
    expect(errorsOf(f)).toEqual([]);
  });
});
