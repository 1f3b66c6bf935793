import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isFrame } from '../../src/wire/frame.js';
import { Aligner } from '../../src/replay/aligner.js';
import { AgentReplayer } from '../../src/replay/agent-replayer.js';
import { ClientReplayer } from '../../src/replay/client-replayer.js';
import { live, typicalSession } from './helpers.js';

const recorded = typicalSession();
const recordedJson = recorded.items.filter(isFrame).map((f) => f.json);

/** Mutates one path of a JSON value: replace, delete or retype. */
const mutated = fc.tuple(fc.constantFrom(...recordedJson), fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), fc.jsonValue(), fc.boolean())
  .map(([base, path, value, del]) => {
    const copy = JSON.parse(JSON.stringify(base)) as unknown;
    let node: unknown = copy;
    for (let i = 0; i < path.length; i++) {
      if (node === null || typeof node !== 'object') break;
      const keys = Object.keys(node as object);
      if (keys.length === 0) break;
      const k = keys[path[i]! % keys.length]!;
      if (i === path.length - 1) {
        if (del) delete (node as Record<string, unknown>)[k];
        else (node as Record<string, unknown>)[k] = value;
      } else node = (node as Record<string, unknown>)[k];
    }
    return JSON.stringify(copy);
  });

const anyLine = fc.oneof(mutated, fc.jsonValue().map((v) => JSON.stringify(v)), fc.string(), fc.constant(''), fc.constant('{"id":'));

describe('replay never throws on hostile input (property)', () => {
  it('the aligner matches or explains any sequence of random and mutated frames', () => {
    fc.assert(fc.property(fc.array(fc.tuple(fc.constantFrom('c2a' as const, 'a2c' as const), anyLine), { maxLength: 25 }), (lines) => {
      const a = new Aligner(recorded.items.filter(isFrame));
      for (const [dir, l] of lines) {
        const o = a.observe(live(dir, l));
        expect(typeof o.matched).toBe('boolean');
        if (!o.matched) expect(o.reason.length).toBeGreaterThan(0);
      }
      a.finish(['c2a', 'a2c']);
    }), { numRuns: 300 });
  });

  it('the mock agent and the mock client answer any client or agent lines without throwing', () => {
    fc.assert(fc.property(fc.array(anyLine, { maxLength: 20 }), (lines) => {
      const agent = new AgentReplayer(recorded);
      const client = new ClientReplayer(recorded, { timeoutMs: 10 });
      client.start(0);
      lines.forEach((l, i) => {
        agent.receive(l);
        client.receive(l, i);
        client.tick(i * 20);
      });
      agent.end();
      client.finish();
    }), { numRuns: 200 });
  });
});
