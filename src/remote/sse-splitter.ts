/**
 * Server-sent events, split from a stream's text as it arrives: an event ends at a blank line (LF or
 * CRLF line ends); its `data:` lines are joined with LF and `id:` names it. Comments and events
 * without data give nothing. Pure: text in, events out.
 */
export interface SseEvent { data: string; id?: string; event?: string }

export class SseSplitter {
  private text = '';
  private readonly decoder = new TextDecoder();

  /** Feeds a chunk of the stream's bytes; returns the events it completed, in order. */
  push(chunk: Uint8Array): SseEvent[] {
    this.text += this.decoder.decode(chunk, { stream: true });
    const out: SseEvent[] = [];
    for (;;) {
      const m = /\r?\n\r?\n/.exec(this.text);
      if (!m) break;
      const block = this.text.slice(0, m.index);
      this.text = this.text.slice(m.index + m[0].length);
      const ev: Partial<SseEvent> = {};
      for (const line of block.split(/\r?\n/)) {
        const colon = line.indexOf(':');
        if (colon <= 0) continue;
        const field = line.slice(0, colon);
        const value = line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
        if (field === 'data') ev.data = ev.data === undefined ? value : `${ev.data}\n${value}`;
        else if (field === 'id') ev.id = value;
        else if (field === 'event') ev.event = value;
      }
      if (ev.data !== undefined) out.push(ev as SseEvent);
    }
    return out;
  }
}

/**
 * A message's text as one line of a recording: as it was, unless it spans lines (pretty-printed
 * JSON, or SSE data split over several `data:` lines), which is then written compactly.
 */
export function asLine(text: string): Buffer {
  if (!text.includes('\n')) return Buffer.from(`${text}\n`);
  try {
    return Buffer.from(`${JSON.stringify(JSON.parse(text))}\n`);
  } catch {
    return Buffer.from(`${text.replace(/\r?\n/g, ' ')}\n`);
  }
}
