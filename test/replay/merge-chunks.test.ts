import { describe, expect, it } from 'vitest';
import { diffRecordings } from '../../src/replay/diff-recordings.js';
import { chunk, recordingOf, req, res, upd, type Step } from './helpers.js';

const session = (sid: string, texts: string[], extra: Step[] = []) => recordingOf([
  ['c2a', req(1, 'session/new', { cwd: '/w', mcpServers: [] })],
  ['a2c', res(1, { sessionId: sid })],
  ['c2a', req(2, 'session/prompt', { sessionId: sid, prompt: [] })],
  ...texts.map((t): Step => ['a2c', chunk(sid, t)]),
  ...extra,
  ['a2c', res(2, { stopReason: 'end_turn' })],
]);

describe('--merge-chunks', () => {
  it('treats the same answer split into other chunks as equivalent', () => {
    const a = session('A', ['Hello ', 'wor', 'ld.']);
    const b = session('B', ['Hel', 'lo world', '.', '']);
    expect(diffRecordings(a, b).same).toBe(false);
    expect(diffRecordings(a, b, { mergeChunks: true })).toMatchObject({ same: true, divergences: [] });
  });

  it('reports a different answer once, on the merged text', () => {
    const d = diffRecordings(session('A', ['Hello ', 'world.']), session('B', ['Hello ', 'there', '.']), { mergeChunks: true });
    expect(d.divergences).toHaveLength(1);
    expect(d.divergences[0]).toMatchObject({ kind: 'changed', diffs: [{ path: 'params.update.content.text', recorded: 'Hello world.', live: 'Hello there.' }] });
  });

  it('leaves other updates alone', () => {
    const tool = upd('B', { sessionUpdate: 'tool_call', toolCallId: 't', title: 'x' });
    const d = diffRecordings(session('A', ['a', 'b']), session('B', ['ab'], [['a2c', tool]]), { mergeChunks: true });
    expect(d.divergences.map((x) => x.kind)).toEqual(['extra']);
  });
});
