/** Property tests: whatever frames arrive, in whatever order, the checker never throws and its state stays JSON. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createChecker, stateAt, summarizeState } from '../../src/check/index.js';
import { frameFromText } from '../../src/wire/make-frame.js';
import type { Item } from '../../src/wire/frame.js';
import { PLAYBOOKS } from './playbooks.js';

const METHODS = ['initialize', 'authenticate', 'logout', 'session/new', 'session/load', 'session/resume', 'session/fork', 'session/list', 'session/close', 'session/delete', 'session/prompt', 'session/cancel', 'session/set_mode', 'session/set_config_option', 'session/update', 'session/request_permission', 'fs/read_text_file', 'fs/write_text_file', 'terminal/create', 'terminal/output', 'terminal/wait_for_exit', 'terminal/kill', 'terminal/release', 'elicitation/create', 'elicitation/complete', '$/cancel_request', '_x/ext', 'nope', 'mcp/message'];
const UPDATES = ['agent_message_chunk', 'tool_call', 'tool_call_update', 'plan', 'plan_update', 'compaction_update', 'compaction_summary_chunk', 'current_mode_update', 'config_option_update', 'state_update', '_ext'];

const small = fc.oneof(fc.constant('s1'), fc.constant('t1'), fc.constant('__proto__'), fc.constant('constructor'), fc.integer({ min: -2, max: 3 }), fc.constant(null), fc.boolean(), fc.string({ maxLength: 4 }));
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, small, fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(fc.constantFrom('sessionId', 'type', 'status', 'id', 'path', 'summary', 'error', 'outcome', 'modes', 'configOptions', 'terminalId', 'sessionUpdate', 'content', 'x'), tie('value'), { maxKeys: 4 })),
})).value;
const params = fc.record({
  sessionId: fc.constantFrom('s1', 's2', 3, undefined, '__proto__', 'constructor'),
  update: fc.record({ sessionUpdate: fc.constantFrom(...UPDATES), compactionId: fc.constantFrom('c1', 'c2'), status: fc.constantFrom('in_progress', 'completed', 'failed', 7), summary: fc.oneof(fc.constant(null), fc.array(json, { maxLength: 2 })), error: fc.oneof(fc.constant(null), fc.string({ maxLength: 3 })), toolCallId: fc.constantFrom('t1', 't2') }, { requiredKeys: [] }),
  requestId: small,
  terminalId: fc.constantFrom('term', 'x'),
  modeId: fc.constantFrom('ask', 'code'),
  prompt: fc.array(json, { maxLength: 2 }),
  x: json,
}, { requiredKeys: [] });
const message = fc.oneof(
  fc.record({ jsonrpc: fc.constant('2.0'), id: small, method: fc.constantFrom(...METHODS), params: fc.oneof(params, json) }, { requiredKeys: ['method'] }),
  fc.record({ jsonrpc: fc.constant('2.0'), id: small, result: fc.oneof(json, fc.record({ sessionId: fc.constantFrom('s1', 's2', '__proto__', 'toString'), stopReason: fc.constantFrom('end_turn', 'cancelled', 'x'), outcome: json, terminalId: fc.constantFrom('term'), protocolVersion: fc.constantFrom(1, 2), agentCapabilities: json, modes: json }, { requiredKeys: [] })) }, { requiredKeys: ['result'] }),
  fc.record({ jsonrpc: fc.constant('2.0'), id: small, error: json }, { requiredKeys: ['error'] }),
  json,
);
const line = fc.oneof({ weight: 6, arbitrary: message.map((m) => JSON.stringify(m) ?? 'null') }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }) });
const item = fc.tuple(fc.constantFrom<'c2a' | 'a2c'>('c2a', 'a2c'), line);

function toItems(steps: Array<['c2a' | 'a2c', string]>): Item[] {
  return steps.map(([dir, raw], i) => frameFromText(i + 1, i, dir, raw));
}

const crashes: string[] = [];
const onInternalError = (e: unknown, where: string) => crashes.push(`${where}: ${(e as Error)?.stack ?? String(e)}`);

describe('checker properties', () => {
  it('random frames never make step, end, stateAt or summarizeState throw; the state stays JSON', () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 40 }), (steps) => {
        const items = toItems(steps);
        const c = createChecker({ onInternalError });
        for (const it of items) {
          const f = c.step(it);
          for (const x of f) expect(x.seq).toBe(it.seq);
        }
        c.end();
        expect(JSON.parse(JSON.stringify(c.state))).toEqual(c.state);
        summarizeState(stateAt(items, items.length));
        expect(crashes).toEqual([]);
        expect(({} as Record<string, unknown>).turn).toBeUndefined(); // no prototype pollution
      }),
      { numRuns: 300 },
    );
  });

  it('mutated playbook transcripts (dropped, duplicated, swapped, truncated frames) never make the checker throw', () => {
    const base = PLAYBOOKS.flatMap((p) => p.good).filter((s): s is ['c2a' | 'a2c', unknown] => s[0] === 'c2a' || s[0] === 'a2c').map(([d, v]) => [d, typeof v === 'string' ? v : JSON.stringify(v)] as ['c2a' | 'a2c', string]);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(base.length - 1), fc.constantFrom('keep', 'drop', 'dup', 'cut', 'flip')), { minLength: 1, maxLength: 60 }), (ops) => {
        const steps: Array<['c2a' | 'a2c', string]> = [];
        for (const [i, op] of ops) {
          const [d, raw] = base[i]!;
          if (op === 'drop') continue;
          if (op === 'cut') steps.push([d, raw.slice(0, Math.max(1, raw.length >> 1))]);
          else if (op === 'flip') steps.push([d === 'c2a' ? 'a2c' : 'c2a', raw]);
          else steps.push([d, raw]);
          if (op === 'dup') steps.push([d, raw]);
        }
        const c = createChecker({ onInternalError });
        for (const it of toItems(steps)) c.step(it);
        c.end();
        expect(crashes).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on non-frame items and odd values', () => {
    const c = createChecker({ onInternalError });
    const odd = [
      { seq: 1, t: 0, dir: 'event', type: 'gap', data: {} },
      { seq: 2, t: 0, dir: 'stderr', raw: 'x' },
      { seq: 3, t: 0, dir: 'a2c', raw: '{}', size: 2, kind: 'result', json: { id: { a: 1 }, result: 1 } },
      { seq: 4, t: 0, dir: 'c2a', raw: '', size: 0, kind: 'request', method: 'session/prompt', json: null },
      { seq: 5, t: 0, dir: 'c2a', raw: '', size: 0, kind: 'request', method: 'session/prompt', id: 1, json: { method: 'session/prompt', id: 1, params: { sessionId: { toString: 1 }, prompt: 'x' } } },
    ] as unknown as Item[];
    for (const it of odd) expect(() => c.step(it)).not.toThrow();
    expect(() => c.end()).not.toThrow();
    expect(crashes).toEqual([]);
  });
});
