/** An event stream (SSE) of JSON events from a subscription, with a keep-alive comment every 15 s. */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';

export function streamEvents<T>(c: Context, subscribe: (send: (ev: T) => void) => () => void, first: T[] = []): Response {
  return streamSSE(c, async (stream) => {
    const queue: T[] = [...first];
    let wake: (() => void) | null = null;
    const unsubscribe = subscribe((ev) => {
      queue.push(ev);
      wake?.();
    });
    let closed = false;
    stream.onAbort(() => {
      closed = true;
      wake?.();
    });
    try {
      while (!closed) {
        while (queue.length && !closed) await stream.writeSSE({ data: JSON.stringify(queue.shift()) });
        if (closed) break;
        // Wait for an event, or 15 s for a keep-alive comment.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 15_000);
          wake = () => { clearTimeout(timer); resolve(); };
        });
        wake = null;
        if (!queue.length && !closed) await stream.write(': keep-alive\n\n');
      }
    } finally {
      unsubscribe();
    }
  });
}
