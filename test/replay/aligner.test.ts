import { describe, expect, it } from 'vitest';
import { isFrame } from '../../src/wire/frame.js';
import { Aligner } from '../../src/replay/aligner.js';
import { chunk, live, note, recordingOf, req, res, typicalSession, upd } from './helpers.js';

const framesOf = (r: ReturnType<typeof recordingOf>) => r.items.filter(isFrame);

describe('Aligner (matching rules)', () => {
  it('matches a live request to the next unused recorded request of the same method', () => {
    const a = new Aligner(framesOf(recordingOf([['c2a', req(0, 'initialize', { v: 1 })], ['c2a', req(1, 'initialize', { v: 2 })]])));
    const o1 = a.observe(live('c2a', req(7, 'initialize', { v: 1 })));
    const o2 = a.observe(live('c2a', req(8, 'initialize', { v: 1 })));
    expect(o1).toMatchObject({ matched: true, recorded: { seq: 1 }, diffs: [] });
    expect(o2).toMatchObject({ matched: true, recorded: { seq: 2 } });
    expect(o2.diffs.map((d) => d.path)).toEqual(['params.v']);
    expect(a.divergences.map((d) => d.kind)).toEqual(['changed']);
  });

  it('tolerates a different order within a turn by choosing the closest candidate', () => {
    const a = new Aligner(framesOf(recordingOf([
      ['a2c', chunk('s', 'first')],
      ['a2c', chunk('s', 'second')],
    ])));
    expect(a.observe(live('a2c', chunk('s', 'second')))).toMatchObject({ matched: true, recorded: { seq: 2 }, diffs: [] });
    expect(a.observe(live('a2c', chunk('s', 'first')))).toMatchObject({ matched: true, recorded: { seq: 1 }, diffs: [] });
  });

  it('passes over a chunk whose text certainly differs, and still picks the fewest differences, the earliest among as few, when none is equal', () => {
    const a = new Aligner(framesOf(recordingOf([
      ['a2c', chunk('s', 'left over')],
      ['a2c', upd('s', { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x', extra: 1 } })],
      ['a2c', chunk('s', 'other')],
    ])));
    // Equal to the third: the first two (different text; different text and an extra field) are passed over.
    expect(a.observe(live('a2c', chunk('s', 'other')))).toMatchObject({ matched: true, recorded: { seq: 3 }, diffs: [] });
    // None equal: the first (one difference, the text) wins over the second (two) though it was passed over.
    const o = a.observe(live('a2c', chunk('s', 'new')));
    expect(o).toMatchObject({ matched: true, recorded: { seq: 1 } });
    expect(o.diffs.map((d) => d.path)).toEqual(['params.update.content.text']);
  });

  it('does not pass over a chunk whose text differs only by a learned working directory', () => {
    const a = new Aligner(framesOf(recordingOf([
      ['c2a', req(1, 'session/new', { cwd: '/home/a/p', mcpServers: [] })],
      ['a2c', chunk('s', 'edit /home/a/p/f.ts')],
    ])));
    a.observe(live('c2a', req(9, 'session/new', { cwd: '/tmp/b/q', mcpServers: [] })));
    expect(a.observe(live('a2c', chunk('s', 'edit /tmp/b/q/f.ts')))).toMatchObject({ matched: true, recorded: { seq: 2 }, diffs: [] });
  });

  it('keeps session/update kinds apart and explains why nothing matched', () => {
    const a = new Aligner(framesOf(recordingOf([['a2c', chunk('s', 'hi')]])));
    const o = a.observe(live('a2c', upd('s', { sessionUpdate: 'plan', entries: [] })));
    expect(o.matched).toBe(false);
    if (!o.matched) {
      expect(o.reason).toMatch(/no notification session\/update \(plan\) left/);
      expect(o.nearest?.seq).toBe(1);
    }
  });

  it('requires the same session scope once a session id is bound', () => {
    const rec = recordingOf([
      ['c2a', req(1, 'session/new', { cwd: '/r', mcpServers: [] })],
      ['a2c', res(1, { sessionId: 'rec-A' })],
      ['a2c', chunk('rec-A', 'x')],
    ]);
    const a = new Aligner(framesOf(rec));
    const sent = live('c2a', req(1, 'session/new', { cwd: '/l', mcpServers: [] }));
    a.pair(sent, framesOf(rec)[0]!);
    expect(a.observe(live('a2c', res(1, { sessionId: 'live-A' })))).toMatchObject({ matched: true, diffs: [] });
    const wrong = a.observe(live('a2c', chunk('live-B', 'x')));
    expect(wrong.matched).toBe(false);
    if (!wrong.matched) expect(wrong.reason).toMatch(/session rec-A.*session live-B/);
    expect(a.observe(live('a2c', chunk('live-A', 'x')))).toMatchObject({ matched: true, diffs: [] });
  });

  it('says when every recorded request of a method was already used, and shows the differences', () => {
    const a = new Aligner(framesOf(recordingOf([['c2a', req(2, 'session/prompt', { sessionId: 's', prompt: [{ type: 'text', text: 'a' }] })]])));
    a.observe(live('c2a', req(2, 'session/prompt', { sessionId: 's', prompt: [{ type: 'text', text: 'a' }] })));
    const o = a.observe(live('c2a', req(3, 'session/prompt', { sessionId: 's', prompt: [{ type: 'text', text: 'b' }] })));
    expect(o).toMatchObject({ matched: false, reason: 'all 1 recorded request session/prompt were already used', nearest: { seq: 1 } });
    expect(o.diffs.map((d) => d.path)).toEqual(['params.prompt[0].text']);
  });

  it('in strict mode, differing params make a request unmatched', () => {
    const a = new Aligner(framesOf(recordingOf([['c2a', req(0, 'initialize', { v: 1 })]])), { strict: true });
    const o = a.observe(live('c2a', req(0, 'initialize', { v: 2 })));
    expect(o).toMatchObject({ matched: false, nearest: { seq: 1 } });
  });

  it('pairs responses through the request they answer, and reports an unanswered method', () => {
    const rec = typicalSession();
    const a = new Aligner(framesOf(rec));
    // The live agent asks for permission with its own request id.
    const o = a.observe(live('a2c', req(41, 'session/request_permission', { sessionId: 'sess-rec-1', toolCall: { toolCallId: 'call_1' }, options: [] })));
    expect(o).toMatchObject({ matched: true, recorded: { seq: 8 } });
    expect(a.responseTo(8)?.seq).toBe(9);
    expect(a.observe(live('c2a', note('session/cancel', { sessionId: 'x' }))).matched).toBe(false);
  });

  it('matches a non-JSON line only to the same recorded line', () => {
    const a = new Aligner(framesOf(recordingOf([['a2c', 'Loading model...']])));
    expect(a.observe(live('a2c', 'Something else')).matched).toBe(false);
    expect(a.observe(live('a2c', 'Loading model...')).matched).toBe(true);
  });

  it('finish lists unused recorded frames as missing', () => {
    const a = new Aligner(framesOf(typicalSession()));
    const ds = a.finish(['a2c']);
    expect(ds.every((d) => d.kind === 'missing')).toBe(true);
    expect(ds).toHaveLength(8);
  });
});

describe('Aligner: $/cancel_request', () => {
  it('compares the cancelled request id as the recorded id of that request', () => {
    const a = new Aligner(framesOf(recordingOf([
      ['c2a', req(7, 'session/prompt', { sessionId: 's', prompt: [] })],
      ['c2a', note('$/cancel_request', { requestId: 7 })],
    ])));
    a.observe(live('c2a', req('live-1', 'session/prompt', { sessionId: 's', prompt: [] })));
    expect(a.observe(live('c2a', note('$/cancel_request', { requestId: 'live-1' })))).toMatchObject({ matched: true, diffs: [] });
  });
});

describe('Aligner: responses to nothing', () => {
  it('matches a parse error answering a garbage line to the same recorded error', () => {
    const parseError = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
    const a = new Aligner(framesOf(recordingOf([['a2c', 'garbage'], ['c2a', parseError]])));
    expect(a.observe(live('a2c', 'garbage')).matched).toBe(true);
    expect(a.observe(live('c2a', parseError))).toMatchObject({ matched: true, diffs: [] });
    expect(a.observe(live('c2a', parseError)).matched).toBe(false);
  });
});
