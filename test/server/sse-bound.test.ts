/**
 * The event stream's per-subscriber queue is bounded: a client that stops reading (over a real
 * socket, through a real HTTP server) is dropped once the server would queue more than the bound for
 * it: unsubscribed, told why when it reads again (`event: dropped`), and its stream ended; a client
 * that reads gets every event, in order.
 */
import { afterEach, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { Hono } from 'hono';
import { getRequestListener } from '@hono/node-server';
import { streamEvents } from '../../src/server/sse.js';

let server: Server | null = null;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = null;
});

/** A server with one event stream fed by `emit`; `subscribers` counts who listens now. */
async function start(limits: { maxEvents: number; maxBytes: number }) {
  const listeners = new Set<(ev: unknown) => void>();
  const app = new Hono();
  app.get('/events', (c) => streamEvents(c, (send) => { listeners.add(send); return () => listeners.delete(send); }, [{ hello: true }], limits));
  server = createServer(getRequestListener(app.fetch));
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const open = () => {
    const s = connect(port, '127.0.0.1');
    sockets.push(s);
    s.write(`GET /events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    return s;
  };
  return { open, emit: (ev: unknown) => { for (const l of [...listeners]) l(ev); }, subscribers: () => listeners.size };
}

const until = async (ok: () => boolean, what: string) => {
  for (let i = 0; i < 400 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!ok()) throw new Error(`timed out waiting for ${what}`);
};

it('drops a subscriber that stops reading once its queue passes the bound, and says why', async () => {
  const sse = await start({ maxEvents: 1_000_000, maxBytes: 4 * 1024 * 1024 });
  const s = sse.open();
  let got = '';
  s.on('data', (d: Buffer) => { got += d.toString(); });
  await until(() => got.includes('"hello":true') && sse.subscribers() === 1, 'the stream to open');
  s.pause(); // reads nothing more: the kernel's buffers fill, then the server's queue
  const big = 'x'.repeat(64 * 1024);
  let sent = 0;
  while (sse.subscribers() > 0 && sent < 20_000) {
    sse.emit({ n: sent++, big });
    if (sent % 50 === 0) await new Promise((r) => setImmediate(r));
  }
  expect(sse.subscribers()).toBe(0);
  // Dropped after far fewer events than were offered: the bound plus what the sockets hold.
  expect(sent).toBeLessThan(20_000);
  const ended = new Promise<void>((r) => s.once('close', () => r()));
  s.resume();
  await ended;
  // What it read, in order, then (when the server could still write it) why it was dropped.
  const ns = [...got.matchAll(/"n":(\d+)/g)].map((m) => Number(m[1]));
  expect(ns).toEqual(ns.map((_, i) => i));
  if (got.includes('event: dropped')) expect(got).toMatch(/event: dropped\ndata: \{"reason":"this page fell behind the server by more than 4194304 bytes of events/);
});

it('drops by the count of events too, and a reading client gets every event in order', async () => {
  const sse = await start({ maxEvents: 100, maxBytes: 1024 * 1024 * 1024 });
  const reader = sse.open();
  let read = '';
  reader.on('data', (d: Buffer) => { read += d.toString(); });
  await until(() => sse.subscribers() === 1, 'the stream to open');
  for (let i = 0; i < 50; i++) sse.emit({ n: i });
  await until(() => read.includes('"n":49'), 'the 50 events');
  expect([...read.matchAll(/"n":(\d+)/g)].map((m) => Number(m[1]))).toEqual([...Array(50).keys()]);
  expect(sse.subscribers()).toBe(1);
  // 101 events at once, before the writer runs: past the bound of 100.
  for (let i = 50; i < 151; i++) sse.emit({ n: i });
  expect(sse.subscribers()).toBe(0);
  await until(() => read.includes('event: dropped'), 'the dropped event');
  expect(read).toContain('more than 100 events');
});
