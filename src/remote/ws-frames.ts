/**
 * Reading a WebSocket connection's frames on the side (RFC 6455 section 5) while its bytes are relayed
 * unchanged: the proxy hands each chunk a socket gave it to the other socket as it is, and a copy to
 * a reader, which takes the messages out of it for the recording. Nothing here writes to a socket.
 *
 * A frame's payload is taken where it lies (a view of the chunk; unmasked into a copy when the
 * client masked it), a frame spread over chunks piece by piece, so a large message costs no
 * re-reading. A message is recorded as one line: whole (compact if it spans lines, as asLine has it)
 * up to LINE_WHOLE_BYTES; a larger one in pieces as they come, its line breaks (whitespace between
 * JSON tokens, which cannot hold them elsewhere) made spaces, so that memory stays bounded.
 */
import { oneLine } from './sse-splitter.js';

/** A message up to this size is recorded whole; a larger one as it comes (see the file's comment). */
const LINE_WHOLE_BYTES = 16 * 1024 * 1024;
const NONE = Buffer.alloc(0);

export interface WsFrameSink {
  /**
   * Bytes of the recording's line for a text message (never a line break): all of it, or a piece;
   * `end`: the line ends after them.
   */
  text(bytes: Buffer, end: boolean): void;
  /** A binary message (forwarded, not an ACP message): its size. */
  binary(bytes: number): void;
  /** A close frame: its status code (null: none given) and reason. */
  close(code: number | null, reason: string): void;
  /** Bytes that are not WebSocket frames (reading stops there; the relay goes on). */
  broken(why: string): void;
}

export class WsFrameReader {
  /** A frame header not yet whole. */
  private head: Buffer | null = null;
  /** The frame being read: its opcode, FIN, mask, payload bytes still to come and pieces so far. */
  private opcode = 0;
  private fin = false;
  private mask: Buffer | null = null;
  private maskAt = 0;
  private left = -1;
  private pieces: Buffer[] = [];
  /** The message being read (its first frame's opcode; 0: none), its pieces and size. */
  private msgOpcode = 0;
  private msg: Buffer[] = [];
  private msgBytes = 0;
  /** A large text message already handed on in part. */
  private streaming = false;
  private stopped = false;

  constructor(private readonly sink: WsFrameSink) {}

  push(chunk: Buffer): void {
    if (this.stopped) return;
    let at = 0;
    if (this.head) {
      chunk = Buffer.concat([this.head, chunk]);
      this.head = null;
    }
    while (at < chunk.length && !this.stopped) {
      if (this.left < 0) {
        const used = this.header(chunk, at);
        if (used === 0) {
          this.head = Buffer.from(chunk.subarray(at));
          return;
        }
        at += used;
        if (this.left === 0) this.frameDone();
        continue;
      }
      const n = Math.min(this.left, chunk.length - at);
      this.piece(chunk.subarray(at, at + n));
      at += n;
      this.left -= n;
      if (this.left === 0) this.frameDone();
    }
  }

  /** Reads a frame header at `at`: its length, or 0 when it is not whole yet. */
  private header(b: Buffer, at: number): number {
    if (b.length - at < 2) return 0;
    const b0 = b[at]!;
    const b1 = b[at + 1]!;
    let len = b1 & 0x7f;
    let size = 2;
    if (len === 126) {
      if (b.length - at < 4) return 0;
      len = b.readUInt16BE(at + 2);
      size = 4;
    } else if (len === 127) {
      if (b.length - at < 10) return 0;
      const hi = b.readUInt32BE(at + 2);
      if (hi >= 0x200000) return this.stop(`a frame of more than 2^53 bytes`), 0;
      len = hi * 2 ** 32 + b.readUInt32BE(at + 6);
      size = 10;
    }
    const masked = (b1 & 0x80) !== 0;
    if (masked && b.length - at < size + 4) return 0;
    this.opcode = b0 & 0x0f;
    this.fin = (b0 & 0x80) !== 0;
    this.mask = masked ? Buffer.from(b.subarray(at + size, at + size + 4)) : null;
    this.maskAt = 0;
    this.left = len;
    this.pieces = [];
    // A text or binary frame begins its message (a continuation goes on with it).
    if ((this.opcode === 1 || this.opcode === 2) && this.msgOpcode === 0) this.msgOpcode = this.opcode;
    if ((this.opcode > 2 && this.opcode < 8) || this.opcode > 10) this.stop(`a frame with the reserved opcode ${this.opcode}`);
    return size + (masked ? 4 : 0);
  }

  private piece(p: Buffer): void {
    if (this.mask) {
      const out = Buffer.allocUnsafe(p.length);
      const m = this.mask;
      let k = this.maskAt;
      for (let i = 0; i < p.length; i++) {
        out[i] = p[i]! ^ m[k]!;
        k = (k + 1) & 3;
      }
      this.maskAt = k;
      p = out;
    }
    if (this.opcode >= 8) this.pieces.push(p);
    else this.data(p);
  }

  /** A piece of a data frame's payload (text, binary or continuation). */
  private data(p: Buffer): void {
    this.msgBytes += p.length;
    if (this.msgOpcode !== 1) return;
    if (this.streaming) {
      this.sink.text(spaced(p), false);
      return;
    }
    this.msg.push(p);
    if (this.msgBytes > LINE_WHOLE_BYTES) {
      this.streaming = true;
      for (const q of this.msg) this.sink.text(spaced(q), false);
      this.msg = [];
    }
  }

  private frameDone(): void {
    this.left = -1;
    const op = this.opcode;
    if (op >= 8) {
      if (op === 8) {
        const body = Buffer.concat(this.pieces);
        this.sink.close(body.length >= 2 ? body.readUInt16BE(0) : null, body.subarray(2).toString('utf8'));
      }
      this.pieces = [];
      return;
    }
    if (!this.fin) return;
    if (this.msgOpcode === 1) {
      if (this.streaming) this.sink.text(NONE, true);
      else this.sink.text(oneLine(this.msg.length === 1 ? this.msg[0]! : Buffer.concat(this.msg)), true);
    } else if (this.msgOpcode === 2) this.sink.binary(this.msgBytes);
    this.msgOpcode = 0;
    this.msg = [];
    this.msgBytes = 0;
    this.streaming = false;
  }

  private stop(why: string): void {
    this.stopped = true;
    this.sink.broken(why);
  }
}

/** A piece of a large message with its line breaks made spaces (see the file's comment). */
function spaced(p: Buffer): Buffer {
  if (p.indexOf(10) === -1 && p.indexOf(13) === -1) return p;
  const out = Buffer.from(p);
  for (let i = 0; i < out.length; i++) if (out[i] === 10 || out[i] === 13) out[i] = 32;
  return out;
}
