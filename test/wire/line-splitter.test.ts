import { describe, expect, it } from 'vitest';
import { LineSplitter, decodeUtf8 } from '../../src/wire/line-splitter.js';

function splitAll(chunks: Buffer[]): Buffer[] {
  const s = new LineSplitter();
  const out: Buffer[] = [];
  for (const c of chunks) out.push(...s.push(c));
  const last = s.end();
  if (last) out.push(last);
  return out;
}

const sample = Buffer.concat([
  Buffer.from('{"jsonrpc":"2.0","id":1,"method":"initialize"}\n'),
  Buffer.from('{"text":"héllo — 日本語 🎉"}\r\n'),
  Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]), // invalid UTF-8
  Buffer.from('\n'), // empty line
  Buffer.from('a\u0000b\n'), // NUL byte
  Buffer.from('partial final line without newline 🎉'),
]);
const expected = [
  '{"jsonrpc":"2.0","id":1,"method":"initialize"}',
  '{"text":"héllo — 日本語 🎉"}\r',
  Buffer.from([0x7b, 0xff, 0xfe, 0x7d]).toString('latin1'),
  '',
  'a\u0000b',
  'partial final line without newline 🎉',
];

describe('LineSplitter', () => {
  it('splits the same bytes identically whatever the chunk boundary (every byte position)', () => {
    for (let i = 0; i <= sample.length; i++) {
      const lines = splitAll([sample.subarray(0, i), sample.subarray(i)]);
      expect(lines.map((l, k) => (k === 2 ? l.toString('latin1') : l.toString('utf8')))).toEqual(expected);
    }
  });

  it('splits correctly when fed one byte at a time', () => {
    const chunks = [...sample].map((b) => Buffer.from([b]));
    const lines = splitAll(chunks);
    expect(Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')])).subarray(0, -1)).toEqual(sample);
  });

  it('keeps a multi-byte UTF-8 character split across reads intact', () => {
    const line = Buffer.from('{"x":"🎉"}\n');
    const emoji = line.indexOf(0xf0);
    for (let cut = emoji + 1; cut < emoji + 4; cut++) {
      const [out] = splitAll([line.subarray(0, cut), line.subarray(cut)]);
      const d = decodeUtf8(out!);
      expect(d.valid).toBe(true);
      expect(d.text).toBe('{"x":"🎉"}');
    }
  });

  it('keeps CR of CRLF in the raw line (parsers tolerate it)', () => {
    expect(splitAll([Buffer.from('a\r\nb\r\n')]).map(String)).toEqual(['a\r', 'b\r']);
  });

  it('returns a final line without newline only at end of stream', () => {
    const s = new LineSplitter();
    expect(s.push(Buffer.from('abc'))).toEqual([]);
    expect(s.pending).toBe(3);
    expect(s.end()?.toString()).toBe('abc');
    expect(s.end()).toBeNull();
  });

  it('handles a 30 MB frame arriving in 64 KiB chunks without a cap', () => {
    const big = Buffer.alloc(30 * 1024 * 1024, 0x61);
    const input = Buffer.concat([Buffer.from('{"data":"'), big, Buffer.from('"}\n{"next":1}\n')]);
    const chunks: Buffer[] = [];
    for (let i = 0; i < input.length; i += 65536) chunks.push(input.subarray(i, i + 65536));
    const lines = splitAll(chunks);
    expect(lines).toHaveLength(2);
    expect(lines[0]!.length).toBe(big.length + 11);
    expect(lines[1]!.toString()).toBe('{"next":1}');
  });

  it('discards the line in progress after a gap', () => {
    const s = new LineSplitter();
    s.push(Buffer.from('half a li'));
    expect(s.discard()).toBe(9);
    expect(s.push(Buffer.from('ne\nnext\n')).map(String)).toEqual(['ne', 'next']);
  });
});

describe('decodeUtf8', () => {
  it('reports invalid UTF-8 but accepts a literal U+FFFD', () => {
    expect(decodeUtf8(Buffer.from([0xff])).valid).toBe(false);
    expect(decodeUtf8(Buffer.from('\uFFFD')).valid).toBe(true);
  });
});
