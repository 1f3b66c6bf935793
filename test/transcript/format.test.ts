import { describe, expect, it } from 'vitest';
import { itemToLine, parseTranscript, serializeTranscript, TranscriptError } from '../../src/transcript/format.js';
import type { Frame } from '../../src/wire/frame.js';

const text = [
  '{"acpInspect":"recording","version":1,"name":"demo","command":["node","agent.js"]}',
  '{"t":0.5,"dir":"event","type":"spawn","data":{"pid":42}}',
  '{"t":1.25,"dir":"c2a","raw":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":0,\\"method\\":\\"initialize\\",\\"params\\":{\\"protocolVersion\\":1}}"}',
  '{"t":2,"dir":"stderr","raw":"agent starting"}',
  '{"t":3.5,"dir":"a2c","raw":"{\\"id\\":0,\\"jsonrpc\\":\\"2.0\\",\\"result\\":{\\"protocolVersion\\":1}}"}',
  '{"t":4,"dir":"a2c","raw":"Loading model...\\r"}',
  '{"t":5,"dir":"a2c","rawBase64":"e/99","raw":"{\\ufffd}"}',
  '{"t":6,"dir":"future-kind","raw":"x"}',
].join('\n') + '\n';

describe('transcript format', () => {
  it('reads every kind of line, numbering seq among non-header lines', () => {
    const rec = parseTranscript(text);
    expect(rec.header.name).toBe('demo');
    expect(rec.items.map((i) => i.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    const res = rec.items[3] as Frame;
    expect(res).toMatchObject({ dir: 'a2c', kind: 'result', method: 'initialize', replyTo: 2, latency: 2.25 });
    expect((rec.items[4] as Frame).kind).toBe('invalid');
    expect(Buffer.from((rec.items[5] as Frame).rawBase64!, 'base64')).toEqual(Buffer.from([0x7b, 0xff, 0x7d]));
  });

  it('export → import → export is lossless', () => {
    const once = serializeTranscript(parseTranscript(text));
    const twice = serializeTranscript(parseTranscript(once));
    expect(twice).toBe(once);
  });

  it('writes a frame\'s line as JSON.stringify writes its object (times, escapes, bytes that were not UTF-8, a cut frame)', () => {
    const frames: Frame[] = [
      { seq: 1, t: 0.1 + 0.2, dir: 'c2a', raw: '{"a":"\u2028 \\ \" \n\u0000 \ud800 ünï"}', size: 30, kind: 'invalid' },
      { seq: 2, t: 1e21, dir: 'a2c', raw: 'not json', size: 8, kind: 'invalid', rawBase64: '/w==' },
      { seq: 3, t: -0, dir: 'a2c', raw: '{"jsonrpc":"2.0","id":1,"resu', size: 4096, kind: 'invalid', truncated: true },
      { seq: 4, t: 12.3456789, dir: 'c2a', raw: '', size: 0, kind: 'invalid', truncated: true, rawBase64: '' },
    ];
    for (const f of frames) {
      const t = Math.round(f.t * 1000) / 1000;
      const o: Record<string, unknown> = { t, dir: f.dir, raw: f.raw };
      if (f.rawBase64 !== undefined) o.rawBase64 = f.rawBase64;
      if (f.truncated) Object.assign(o, { truncated: true, size: f.size });
      expect(itemToLine(f)).toBe(JSON.stringify(o));
    }
  });

  it('accepts hand-written fixtures with "frame" instead of "raw" and no t', () => {
    const rec = parseTranscript([
      '{"dir":"c2a","frame":{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}}',
      '{"dir":"a2c","frame":{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s"}}}',
    ].join('\n'));
    expect(rec.items).toHaveLength(2);
    expect((rec.items[1] as Frame)).toMatchObject({ method: 'session/new', replyTo: 1, t: 0, sessionId: 's' });
    expect(serializeTranscript(rec)).toContain('"raw":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1');
  });

  it('rejects bad input with the line number', () => {
    expect(() => parseTranscript('not json at all')).toThrow(TranscriptError);
    expect(() => parseTranscript('{"dir":"c2a","raw":"x"}\n[1,2]')).toThrow(/line 2/);
    expect(() => parseTranscript('{"dir":"c2a"}')).toThrow(/needs "raw"/);
    expect(() => parseTranscript('{"dir":"c2a","raw":"x","t":"soon"}')).toThrow(/"t" must be a number/);
    expect(() => parseTranscript('{"acpInspect":"recording","version":"one"}')).toThrow(/version/);
    expect(() => parseTranscript('{"acpInspect":"recording","version":99}')).toThrow(/newer/);
    expect(() => parseTranscript('{"acpInspect":"recording","version":1,"command":"node"}')).toThrow(/command/);
  });
});
