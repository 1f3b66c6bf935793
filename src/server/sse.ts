/**
 * An event stream (SSE) of JSON events from a subscription, with a keep-alive comment every 15 s.
 *
 * Each subscriber has a bounded queue: a browser that stops reading (a sleeping laptop, a stuck tab)
 * must not make the server keep every event for it. Past `maxEvents` queued events or `maxBytes` of
 * them, the subscriber is dropped: unsubscribed, its queue emptied, one last `event: dropped` sent
 * (saying why; the page reloads its state when it reconnects), then the stream is ended, at once if
 * even that cannot be written within a few seconds.
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';

export const SSE_MAX_QUEUED_EVENTS = 10_000;
export const SSE_MAX_QUEUED_BYTES = 32 * 1024 * 1024;
/** How long the last (`dropped`) event may take to write before the stream is cut. */
const DROP_GRACE_MS = 5_000;

export interface SseLimits { maxEvents: number; maxBytes: number }

export function streamEvents<T>(c: Context, subscribe: (send: (ev: T) => void) => () => void, first: T[] | (() => T[]) = [],
  limits: SseLimits = { maxEvents: SSE_MAX_QUEUED_EVENTS, maxBytes: SSE_MAX_QUEUED_BYTES }): Response {
  return streamSSE(c, async (stream) => {
    // `first` as a function is called as the subscription is made, in the same turn: what it returns
    // and the events after it leave nothing out between them.
    const queue: string[] = (typeof first === 'function' ? first() : first).map((ev) => JSON.stringify(ev));
    let queuedBytes = queue.reduce((n, s) => n + s.length, 0);
    let wake: (() => void) | null = null;
    let dropped: string | null = null;
    let unsubscribe: (() => void) | null = null;
    const drop = (why: string): void => {
      dropped = why;
      queue.length = 0;
      queuedBytes = 0;
      unsubscribe?.();
      unsubscribe = null;
      // A writer stuck on a client that reads nothing never gets to the last event: cut the stream.
      setTimeout(() => stream.abort(), DROP_GRACE_MS).unref();
      wake?.();
    };
    unsubscribe = subscribe((ev) => {
      if (dropped !== null) return;
      const data = JSON.stringify(ev);
      queue.push(data);
      queuedBytes += data.length;
      if (queue.length > limits.maxEvents || queuedBytes > limits.maxBytes) {
        drop(`this page fell behind the server by more than ${queue.length > limits.maxEvents ? `${limits.maxEvents} events` : `${limits.maxBytes} bytes of events`}; reload its state to go on`);
      } else wake?.();
    });
    let closed = false;
    stream.onAbort(() => {
      closed = true;
      wake?.();
    });
    try {
      while (!closed) {
        while (queue.length && !closed && dropped === null) {
          const data = queue.shift()!;
          queuedBytes -= data.length;
          await stream.writeSSE({ data });
        }
        if (closed) break;
        if (dropped !== null) {
          await stream.writeSSE({ event: 'dropped', data: JSON.stringify({ reason: dropped }) });
          break;
        }
        // Wait for an event, or 15 s for a keep-alive comment.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 15_000);
          wake = () => { clearTimeout(timer); resolve(); };
        });
        wake = null;
        if (!queue.length && !closed && dropped === null) await stream.write(': keep-alive\n\n');
      }
    } finally {
      unsubscribe?.();
    }
  });
}
