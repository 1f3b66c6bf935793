/**
 * Server-sent events, split from a stream's text as it arrives, as the protocol SDK's HTTP client
 * reads them (transports/sse.js): lines end in LF, CRLF or a bare CR; an event ends at a blank line,
 * or where the stream ends; its `data:` lines are joined with LF and `id:` names it. A byte-order
 * mark at the start of a line is dropped. Comments and events without data give nothing. Pure:
 * text in, events out.
 */
export interface SseEvent { data: string; id?: string; event?: string }

const LF = 10;
const CR = 13;

export class SseSplitter {
  /** The current line's text before this chunk (a line spans chunks). */
  private rest = '';
  /** The last chunk ended at a CR: a LF starting the next one ends no line of its own. */
  private afterCr = false;
  private data: string | undefined;
  private id: string | undefined;
  private event: string | undefined;
  private readonly decoder = new TextDecoder();

  /** Feeds a chunk of the stream's bytes; returns the events it completed, in order. */
  push(chunk: Uint8Array): SseEvent[] {
    const text = this.decoder.decode(chunk, { stream: true });
    const out: SseEvent[] = [];
    let start = 0;
    if (this.afterCr && text.length > 0) {
      this.afterCr = false;
      if (text.charCodeAt(0) === LF) start = 1;
    }
    let lf = text.indexOf('\n', start);
    let cr = text.indexOf('\r', start);
    while (lf !== -1 || cr !== -1) {
      const end = cr === -1 || (lf !== -1 && lf < cr) ? lf : cr;
      const piece = text.slice(start, end);
      this.line(this.rest === '' ? piece : this.rest + piece, out);
      this.rest = '';
      start = end + 1;
      if (end === cr) {
        if (start === text.length) this.afterCr = true;
        else if (text.charCodeAt(start) === LF) start++;
        cr = text.indexOf('\r', start);
      }
      if (lf !== -1 && lf < start) lf = text.indexOf('\n', start);
    }
    if (start < text.length) this.rest += text.slice(start);
    return out;
  }

  /** The stream ended: the event its last lines began, if any (the SDK's client takes it too). */
  end(): SseEvent[] {
    const out: SseEvent[] = [];
    const tail = this.rest + this.decoder.decode();
    this.rest = '';
    if (tail !== '') this.line(tail, out);
    this.line('', out);
    return out;
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === '') {
      if (this.data !== undefined) {
        const ev: SseEvent = { data: this.data };
        if (this.id !== undefined) ev.id = this.id;
        if (this.event !== undefined) ev.event = this.event;
        out.push(ev);
      }
      this.data = this.id = this.event = undefined;
      return;
    }
    if (line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    if (line.startsWith('data:')) {
      const value = line.slice(line.charCodeAt(5) === 32 ? 6 : 5);
      this.data = this.data === undefined ? value : `${this.data}\n${value}`;
    } else if (line.startsWith('id:')) this.id = line.slice(line.charCodeAt(3) === 32 ? 4 : 3);
    else if (line.startsWith('event:')) this.event = line.slice(line.charCodeAt(6) === 32 ? 7 : 6);
  }
}

/** An event's data as the SSE the SDK's client parses back to the same data. */
export function sseOf(data: string): string {
  return data.includes('\n') ? `data: ${data.split('\n').join('\ndata: ')}\n\n` : `data: ${data}\n\n`;
}

/**
 * A message's text as one line of a recording: as it was, unless it spans lines (pretty-printed
 * JSON, or SSE data split over several `data:` lines), which is then written compactly.
 */
export function asLine(text: string): Buffer {
  if (!text.includes('\n') && !text.includes('\r')) return Buffer.from(`${text}\n`);
  return compacted(text);
}

/**
 * A message's UTF-8 bytes as one line, without its newline (see asLine): the bytes themselves when
 * they are one line, not decoded and encoded again.
 */
export function oneLine(bytes: Buffer): Buffer {
  if (bytes.indexOf(10) === -1 && bytes.indexOf(13) === -1) return bytes;
  return compacted(bytes.toString('utf8')).subarray(0, -1);
}

function compacted(text: string): Buffer {
  try {
    return Buffer.from(`${JSON.stringify(JSON.parse(text))}\n`);
  } catch {
    return Buffer.from(`${text.replace(/\r\n|\r|\n/g, ' ')}\n`);
  }
}
