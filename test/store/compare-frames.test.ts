/**
 * The frames a comparison reads from the store (`readFrames`, lazily parsed; `iterateFrames`, parsed)
 * are the frames the store loads, but for the fields a comparison never reads (latency, the bytes of
 * a line that was not UTF-8), including lines whose keys are spelled with escapes, nested
 * `sessionUpdate`s, lines that are not JSON and JSON that is not JSON-RPC. Real SQLite file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../src/store/store.js';
import { iterateFrames, readFrames } from '../../src/store/frames.js';
import { frameFromText } from '../../src/wire/make-frame.js';
import { isFrame, type Frame } from '../../src/wire/frame.js';
import { Correlator } from '../../src/wire/correlate.js';
import { LazyJsonFrame } from '../../src/replay/lazy-frame.js';
import { describeFrame, matchKey, updateKind } from '../../src/replay/aligner.js';
import { diffFrames } from '../../src/replay/diff-recordings.js';

const LINES: Array<['c2a' | 'a2c', string]> = [
  ['c2a', '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}'],
  ['a2c', '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}'],
  ['c2a', '{"jsonrpc":"2.0","id":"two","method":"session/new","params":{"cwd":"/p","mcpServers":[]}}'],
  ['a2c', '{"jsonrpc":"2.0","id":"two","result":{"sessionId":"s1"}}'],
  ['a2c', '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}'],
  ['a2c', '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"session\\u0055pdate":"plan","entries":[]}}}'],
  ['a2c', '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","other":{"update":{"sessionUpdate":"nested"}}}}'],
  ['a2c', '{"jsonrpc":"2.0","method":"x/custom","params":{"update":{"sessionUpdate":"odd"},"session\\u0049d":"s9"}}'],
  ['a2c', '{"jsonrpc":"2.0","m\\u0065thod":"session/cancel","params":{"sessionId":"s1"}}'],
  ['a2c', 'not json at all'],
  ['a2c', '[1,2]'],
  ['c2a', '{"jsonrpc":"2.0","id":-3,"result":{"sessionId":"s1"},"params":{"update":{"sessionUpdate":"on-a-result"}}}'],
  ['c2a', '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}'],
];

let dir: string;
let store: Store;
let id: number;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'acp-cmp-frames-'));
  store = Store.open(join(dir, 'db.sqlite'));
  id = store.createRecording({ name: 'frames', status: 'complete', command: ['agent'] });
  // Correlated as the recorder does: responses carry the request's method, replyTo and latency.
  const correlator = new Correlator();
  store.appendItems(id, [
    ...LINES.map(([d, raw], i) => {
      const f = frameFromText(i + 1, i * 1.5, d, raw);
      correlator.observe(f);
      return f;
    }),
    { seq: LINES.length + 1, t: 99, dir: 'stderr', raw: 'a stderr line' },
  ]);
});
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A frame's fields as a comparison reads them (the JSON through the getter of a lazy frame). */
function fields(f: Frame) {
  return {
    seq: f.seq, t: f.t, dir: f.dir, raw: f.raw, size: f.size, kind: f.kind, json: f.json, method: f.method, id: f.id,
    replyTo: f.replyTo, sessionId: f.sessionId, parseError: f.parseError, truncated: f.truncated,
    updateKind: updateKind(f), matchKey: matchKey(f), label: describeFrame(f),
  };
}

describe('the frames a comparison reads', () => {
  it('are the stored frames, field for field, read lazily or parsed', () => {
    const loaded = store.loadRecording(id).items.filter(isFrame).map((f) => fields({ ...f, updateKind: undefined } as Frame));
    const lazy = readFrames(store, id);
    expect(lazy.every((f) => f instanceof LazyJsonFrame)).toBe(true);
    expect(lazy.map(fields)).toEqual(loaded);
    expect([...iterateFrames(store, id)].map(fields)).toEqual(loaded);
    expect(lazy.map((f) => updateKind(f))).toEqual([undefined, undefined, undefined, undefined, 'agent_message_chunk', 'plan', undefined, 'odd', undefined, undefined, undefined, 'on-a-result', undefined]);
  });

  it('parse again after releasing their JSON, to the same value', () => {
    const f = readFrames(store, id)[4] as LazyJsonFrame;
    const first = f.json;
    expect(f.json).toBe(first);
    f.release();
    expect(f.json).not.toBe(first);
    expect(f.json).toEqual(first);
  });

  it('compare a recording with itself as the same, lazily read on both sides', () => {
    const d = diffFrames(readFrames(store, id), readFrames(store, id));
    expect(d.divergences).toEqual([]);
    expect(d.matched).toBe(LINES.length);
  });
});
