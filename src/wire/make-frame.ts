/** Builds a Frame from a raw line: parse, then derive the fields every consumer wants. */
import type { Direction, Frame } from './frame.js';
import { decodeUtf8 } from './line-splitter.js';
import { parseLine, sessionIdOf } from './parse.js';

export function frameFromText(seq: number, t: number, dir: Direction, raw: string, size?: number): Frame {
  const parsed = parseLine(raw);
  const frame: Frame = { seq, t, dir, raw, size: size ?? Buffer.byteLength(raw), ...parsed };
  const sid = sessionIdOf(parsed.json);
  if (sid !== undefined) frame.sessionId = sid;
  return frame;
}

export function frameFromBytes(seq: number, t: number, dir: Direction, bytes: Buffer): Frame {
  const { text, valid } = decodeUtf8(bytes);
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
