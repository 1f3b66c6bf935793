/** Reading the WebSocket frames the proxy relays byte for byte (src/remote/ws-frames.ts), from frames made here by RFC 6455's layout. */
import { describe, expect, it } from 'vitest';
import { WsFrameReader } from '../../src/remote/ws-frames.js';
import { wsClose as closeFrame, wsFrame as frame } from './helpers.js';

/** A reader and what it gave: the recorded lines (pieces joined), binaries, closes, failures. */
function reader() {
  const got = { lines: [] as string[], pieces: 0, binary: [] as number[], closes: [] as [number | null, string][], broken: [] as string[] };
  let line: Buffer[] = [];
  const r = new WsFrameReader({
    text: (bytes, end) => {
      expect(bytes.includes(10)).toBe(false);
      line.push(Buffer.from(bytes));
      if (!end) got.pieces++;
      else {
        got.lines.push(Buffer.concat(line).toString('utf8'));
        line = [];
      }
    },
    binary: (n) => got.binary.push(n),
    close: (code, reason) => got.closes.push([code, reason]),
    broken: (why) => got.broken.push(why),
  });
  return { r, got };
}

const msg = (i: number) => JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', n: i, text: 'é'.repeat(i) } });

describe('the WebSocket frame reader', () => {
  it('takes each text message of the agent\'s unmasked frames as one line, whatever the frames\' lengths, in one chunk or byte by byte', () => {
    const texts = [msg(1), msg(200), msg(40_000)]; // 7-, 16- and 64-bit lengths
    const bytes = Buffer.concat(texts.map((t) => frame(1, t)));
    const whole = reader();
    whole.r.push(bytes);
    expect(whole.got.lines).toEqual(texts);
    const bytewise = reader();
    for (let i = 0; i < bytes.length; i++) bytewise.r.push(bytes.subarray(i, i + 1));
    expect(bytewise.got.lines).toEqual(texts);
    expect(bytewise.got.pieces).toBe(0);
  });

  it('unmasks the client\'s frames, across chunks cut anywhere', () => {
    const mask = Buffer.from([0x12, 0x34, 0x56, 0x78]);
    const texts = [msg(3), msg(130)];
    const bytes = Buffer.concat(texts.map((t) => frame(1, t, { mask })));
    for (const cut of [1, 3, 7, 100, bytes.length - 1]) {
      const { r, got } = reader();
      r.push(bytes.subarray(0, cut));
      r.push(bytes.subarray(cut));
      expect(got.lines).toEqual(texts);
    }
  });

  it('joins a fragmented message around a ping, writes a message over lines compactly, counts a binary one, and reads closes', () => {
    const { r, got } = reader();
    const text = msg(10);
    r.push(Buffer.concat([
      frame(1, text.slice(0, 20), { fin: false }),
      frame(9, 'ping'),
      frame(0, text.slice(20, 40), { fin: false }),
      frame(0, text.slice(40)),
      frame(1, JSON.stringify({ a: 1, b: [2] }, null, 2)),
      frame(2, Buffer.alloc(300)),
      frame(1, ''),
      closeFrame(1000, 'bye'),
      frame(8, ''),
    ]));
    expect(got.lines).toEqual([text, '{"a":1,"b":[2]}', '']);
    expect(got.binary).toEqual([300]);
    expect(got.closes).toEqual([[1000, 'bye'], [null, '']]);
    expect(got.broken).toEqual([]);
  });

  it('hands a message over 16 MiB on in pieces as they come, its line breaks made spaces', () => {
    const { r, got } = reader();
    const big = `{"jsonrpc":"2.0","method":"x",\n"params":{"s":"${'a'.repeat(17 * 1024 * 1024)}"}}`;
    const bytes = frame(1, big);
    for (let at = 0; at < bytes.length; at += 64 * 1024) r.push(bytes.subarray(at, at + 64 * 1024));
    expect(got.pieces).toBeGreaterThan(1);
    expect(got.lines).toHaveLength(1);
    expect(got.lines[0]).toBe(big.replace('\n', ' '));
    expect(JSON.parse(got.lines[0]!).params.s).toHaveLength(17 * 1024 * 1024);
  });

  it('stops at bytes that are not frames, once, and says why', () => {
    const { r, got } = reader();
    r.push(Buffer.concat([frame(1, msg(1)), frame(5, 'x'), frame(1, msg(2))]));
    r.push(frame(1, msg(3)));
    expect(got.lines).toEqual([msg(1)]);
    expect(got.broken).toEqual(['a frame with the reserved opcode 5']);
  });
});
