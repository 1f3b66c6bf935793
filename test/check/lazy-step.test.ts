/**
 * The checker reads the text of a lazy chunk frame (wire/lazy-chunk.ts) once per chunk kind, for the
 * schema's verdict on that kind, whether or not its caller says the frame is a chunk: a lazy frame
 * says so itself. Its findings are those of the same frames
 * made eagerly, and a frame that is not a chunk is still judged whole.
 */
import { describe, expect, it } from 'vitest';
import { createChecker } from '../../src/check/checker.js';
import { frameFromText } from '../../src/wire/make-frame.js';
import type { Frame } from '../../src/wire/frame.js';
import { CHUNK_UPDATES } from '../../src/wire/chunk-line.js';
import { lazyChunkFrame } from '../../src/wire/lazy-chunk.js';
import { decodeLatin1Utf8 } from '../../src/wire/line-splitter.js';

const opening = [
  ['c2a', { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }],
  ['a2c', { jsonrpc: '2.0', id: 0, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } }],
  ['c2a', { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/work', mcpServers: [] } }],
  ['a2c', { jsonrpc: '2.0', id: 1, result: { sessionId: 's1' } }],
  ['c2a', { jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: 's1', prompt: [{ type: 'text', text: 'hi' }] } }],
] as const;
const texts = ['café ✓ — 日本語 🚀', 'plain ascii', 'ümlaut', '😀😀'];
// A chunk for a session nobody opened (a finding), then the turn's end.
const chunks: [string, number, string][] = [...texts.map((t, i) => ['s1', i % CHUNK_UPDATES.length, t] as [string, number, string]), ['nope', 0, 'é']];

function frames(lazy: boolean, decoded: { n: number }): Frame[] {
  let seq = 0;
  const out: Frame[] = opening.map(([dir, m]) => frameFromText(++seq, seq / 10, dir, JSON.stringify(m)));
  for (const [sid, update, text] of chunks) {
    seq++;
    if (!lazy) {
      out.push(frameFromText(seq, seq / 10, 'a2c', JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: sid, update: { sessionUpdate: CHUNK_UPDATES[update], content: { type: 'text', text } } } })));
      continue;
    }
    const decode = (s: string) => { decoded.n++; return decodeLatin1Utf8(s); };
    const f = lazyChunkFrame(seq, seq / 10, 'a2c', sid, update, Buffer.from(text, 'utf8').toString('latin1'), false, decode, { update: -1 });
    expect(f).not.toBeNull();
    out.push(f!);
  }
  seq++;
  out.push(frameFromText(seq, seq / 10, 'a2c', JSON.stringify({ jsonrpc: '2.0', id: 2, result: { stopReason: 'end_turn' } })));
  return out;
}

describe('checking lazy chunk frames', () => {
  it('decodes a chunk text once per kind (for the schema), told or not that a frame is a chunk, and finds what the eager frames give', () => {
    const none = { n: 0 };
    const want = createChecker();
    const wanted = [...frames(false, none).flatMap((f) => want.step(f)), ...want.end()];
    expect(wanted.some((f) => f.seq === opening.length + chunks.length)).toBe(true); // the unknown session's chunk is found
    for (const told of [false, true]) {
      const decoded = { n: 0 };
      const c = createChecker();
      const got = [...frames(true, decoded).flatMap((f) => {
        const u = (f.json as { params?: { update?: { sessionUpdate?: string } } }).params?.update?.sessionUpdate;
        const k = CHUNK_UPDATES.indexOf(u as (typeof CHUNK_UPDATES)[number]);
        return told && f.method === 'session/update' ? c.step(f, k) : c.step(f);
      }), ...c.end()];
      // Once per chunk kind, where the schema's verdict for that kind is worked out; never per frame.
      expect(decoded.n, `told ${told}`).toBe(new Set(chunks.map((c) => c[1])).size);
      expect(got).toEqual(wanted);
    }
    expect(none.n).toBe(0);
  });
});
