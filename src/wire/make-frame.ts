/** Builds a Frame from a raw line: parse, then derive the fields every consumer wants. */
import type { Direction, Frame } from './frame.js';
import { decodeUtf8 } from './line-splitter.js';
import { parseLine, sessionIdOf } from './parse.js';

export function frameFromText(seq: number, t: number, dir: Direction, raw: string, size?: number): Frame {
  const parsed = parseLine(raw);
  const frame: Frame = { seq, t, dir, raw, size: size ?? utf8Length(raw), ...parsed };
  const sid = sessionIdOf(parsed.json);
  if (sid !== undefined) frame.sessionId = sid;
  return frame;
}

export function frameFromBytes(seq: number, t: number, dir: Direction, bytes: Buffer): Frame {
  const { text, valid } = decodeUtf8(bytes);
  return frameFromDecoded(seq, t, dir, bytes, text, valid);
}

/** frameFromBytes for bytes already decoded: `text` and `valid` are what decodeUtf8(bytes) gave. */
export function frameFromDecoded(seq: number, t: number, dir: Direction, bytes: Buffer, text: string, valid: boolean): Frame {
  const frame = frameFromText(seq, t, dir, text, bytes.length);
  if (!valid) {
    frame.rawBase64 = bytes.toString('base64');
    if (frame.kind !== 'invalid') {
      frame.kind = 'invalid';
      frame.parseError = 'invalid UTF-8';
    } else {
      frame.parseError = `invalid UTF-8; ${frame.parseError ?? ''}`.trim();
    }
  }
  return frame;
}

/** Bytes of `s` in UTF-8 (lone surrogates count 3, as they are written as U+FFFD); Buffer-free for the browser. */
export function utf8Length(s: string): number {
  if (typeof Buffer !== 'undefined') return Buffer.byteLength(s);
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { n += 4; i++; }
    else n += 3;
  }
  return n;
}
