import { describe, expect, it } from 'vitest';
import { VolatileMap, replacePathPrefix } from '../../src/replay/volatile.js';
import { diffJson, IgnoreSet } from '../../src/replay/json-diff.js';

describe('VolatileMap', () => {
  it('learns ids under volatile keys from a matched pair and maps them both ways', () => {
    const m = new VolatileMap();
    m.learnFrom({ result: { sessionId: 'rec-s' } }, { result: { sessionId: 'live-s' } });
    expect(m.toLive({ params: { sessionId: 'rec-s', text: 'rec-s' } })).toEqual({ params: { sessionId: 'live-s', text: 'rec-s' } });
    expect(m.toRecorded({ params: { sessionId: 'live-s' } })).toEqual({ params: { sessionId: 'rec-s' } });
  });

  it('maps permission option ids by position and reports a conflicting rebinding', () => {
    const m = new VolatileMap();
    m.learnFrom({ options: [{ optionId: 'allow' }, { optionId: 'reject' }] }, { options: [{ optionId: 'a-1' }, { optionId: 'r-1' }] });
    expect(m.toLive({ outcome: { optionId: 'reject' } })).toEqual({ outcome: { optionId: 'r-1' } });
    expect(m.learnFrom({ toolCallId: 'allow' }, { toolCallId: 'other' })).toEqual([{ key: 'toolCallId', recorded: 'allow', live: 'other', boundTo: 'a-1' }]);
  });

  it('maps the cwd and every absolute path under it, at path boundaries only', () => {
    const m = new VolatileMap();
    m.learnFrom({ params: { cwd: '/home/rec/proj' } }, { params: { cwd: '/tmp/live' } });
    expect(m.toLive({ path: '/home/rec/proj/src/a.ts', uri: 'file:///home/rec/proj/x', other: '/home/rec/project2/b', text: 'see /home/rec/proj.' }))
      .toEqual({ path: '/tmp/live/src/a.ts', uri: 'file:///tmp/live/x', other: '/home/rec/project2/b', text: 'see /tmp/live.' });
    expect(m.toRecorded('/tmp/live/src')).toBe('/home/rec/proj/src');
  });

  it('replacePathPrefix leaves a longer directory name alone', () => {
    expect(replacePathPrefix('/a/bc /a/b /a/b/c', '/a/b', '/X')).toBe('/a/bc /X /X/c');
  });
});

describe('diffJson', () => {
  it('lists changed, missing and added paths, skipping the JSON-RPC id', () => {
    const d = diffJson({ id: 1, params: { a: 1, b: [1, 2], c: 'x' } }, { id: 9, params: { a: 2, b: [1], d: true, c: 'x' } });
    expect(d).toEqual([
      { path: 'params.a', op: 'changed', recorded: 1, live: 2 },
      { path: 'params.b[1]', op: 'missing', recorded: 2 },
      { path: 'params.d', op: 'added', live: true },
    ]);
  });

  it('treats unbound volatile ids and a new cwd as equal, and a contradicting id as a change', () => {
    const m = new VolatileMap();
    expect(diffJson({ params: { sessionId: 'r', cwd: '/r' } }, { params: { sessionId: 'l', cwd: '/l' } }, { map: m })).toEqual([]);
    m.learnId('sessionId', 'r', 'l');
    expect(diffJson({ params: { sessionId: 'r' } }, { params: { sessionId: 'zzz' } }, { map: m })).toHaveLength(1);
  });

  it('honours --ignore patterns with * and ** and array indices', () => {
    const ignore = new IgnoreSet(['params.update.content.text', 'result.items[*].time', '**._meta']);
    const d = diffJson(
      { params: { update: { content: { text: 'a' } } }, result: { items: [{ time: 1, v: 1 }], _meta: { x: 1 } } },
      { params: { update: { content: { text: 'b' } } }, result: { items: [{ time: 2, v: 2 }], _meta: { x: 2 } } },
      { ignore },
    );
    expect(d.map((x) => x.path)).toEqual(['result.items[0].v']);
  });
});
