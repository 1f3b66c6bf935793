/**
 * `acp-inspect proxy` relays a WebSocket connection byte for byte: a client and an agent that speak
 * the protocol by hand (no WebSocket library between them and the bytes) see each other's frames
 * exactly as they were sent (the client's masked ones, fragments, pings, a message over lines, the
 * closing handshake), the agent's accept answers the client's own key, and the recording has each
 * message as a frame and each close.
 */
import { createHash } from 'node:crypto';
import { createServer, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../helpers.js';
import { parseTranscript } from '../../src/transcript/format.js';
import type { EventItem, Frame } from '../../src/wire/frame.js';
import { startProxy, testScope, wsClose, wsFrame } from './helpers.js';

const { defer, scope: setUp } = testScope(afterEach);
const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const accept = (key: string) => createHash('sha1').update(key + GUID).digest('base64');

/** Bytes arriving on a socket, and a wait until they hold `n` (or a handshake's end). */
function collector(socket: Socket) {
  let bytes = Buffer.alloc(0);
  let wake = () => {};
  socket.on('data', (b: Buffer) => { bytes = Buffer.concat([bytes, b]); wake(); });
  const until = async (done: () => boolean) => {
    while (!done()) await new Promise<void>((r) => { wake = r; });
  };
  return {
    get bytes() { return bytes; },
    /** Waits for `n` bytes after `from`, and returns them. */
    async take(from: number, n: number) { await until(() => bytes.length >= from + n); return bytes.subarray(from, from + n); },
    /** Waits for a handshake's head (up to its blank line) and returns it and where the frames start. */
    async head() { await until(() => bytes.includes('\r\n\r\n')); const end = bytes.indexOf('\r\n\r\n') + 4; return { text: bytes.subarray(0, end).toString(), end }; },
  };
}

describe('acp-inspect proxy and a WebSocket connection', () => {
  it('relays every frame byte for byte both ways, and records each message and close', async () => {
    const { db } = setUp();
    // The agent: a TCP server that answers the handshake by hand.
    let agentSide!: ReturnType<typeof collector>;
    let agentSocket!: Socket;
    let agentFramesAt = 0;
    let upgraded!: () => void;
    const connected = new Promise<void>((r) => { upgraded = r; });
    const server = createServer((s) => {
      agentSocket = s;
      agentSide = collector(s);
      void agentSide.head().then(({ text, end }) => {
        agentFramesAt = end;
        const key = /sec-websocket-key: *(\S+)/i.exec(text)![1]!;
        expect(text).not.toMatch(/sec-websocket-extensions/i);
        s.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept(key)}\r\nAcp-Connection-Id: conn-1\r\n\r\n`);
        upgraded();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    defer(() => new Promise((r) => server.close(r)));
    const serverPort = () => (server.address() as { port: number }).port;
    const proxy = await startProxy(db, `ws://127.0.0.1:${serverPort()}/acp`);
    defer(() => proxy.stop());

    // The client: the handshake by hand, with an offer of compression the proxy does not pass on.
    const { port } = new URL(proxy.url);
    const client = connect(Number(port), '127.0.0.1');
    defer(() => { client.destroy(); });
    const clientSide = collector(client);
    const key = Buffer.from('sixteen byte key').toString('base64');
    client.write(`GET /acp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n`);
    const { text: head, end: clientFramesAt } = await clientSide.head();
    await connected;
    expect(head).toMatch(/^HTTP\/1\.1 101 /);
    expect(head).toContain(`Sec-WebSocket-Accept: ${accept(key)}`);
    expect(head).toContain('Acp-Connection-Id: conn-1');

    const mask = Buffer.from([1, 2, 3, 4]);
    const init = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    const cancel = JSON.stringify({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 's-1' } });
    const fromClient = Buffer.concat([
      wsFrame(1, init, { mask }),
      wsFrame(1, cancel.slice(0, 10), { fin: false, mask }),
      wsFrame(9, 'are you there', { mask }),
      wsFrame(0, cancel.slice(10), { mask }),
    ]);
    client.write(fromClient);
    expect((await agentSide.take(agentFramesAt, fromClient.length)).equals(fromClient)).toBe(true);

    const answer = JSON.stringify({ jsonrpc: '2.0', id: 0, result: { protocolVersion: 1, agentCapabilities: {} } });
    const update = JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's-1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'héllo' } } } }, null, 2);
    const fromAgent = Buffer.concat([wsFrame(1, answer), wsFrame(10, 'are you there'), wsFrame(1, update), wsClose(1001, 'going away')]);
    agentSocket.write(fromAgent);
    expect((await clientSide.take(clientFramesAt, fromAgent.length)).equals(fromAgent)).toBe(true);

    // The closing handshake: the client answers the close, and each side ends its connection.
    const closing = wsClose(1001, '', mask);
    client.write(closing);
    expect((await agentSide.take(agentFramesAt + fromClient.length, closing.length)).equals(closing)).toBe(true);
    agentSocket.end();
    await new Promise((r) => client.once('close', r));
    expect(await proxy.stop()).toBe(0);

    const list = await cli(['list', '--json', '--db', db]);
    const [rec] = JSON.parse(list.stdout.toString()) as { id: number }[];
    const e = await cli(['export', String(rec!.id), '--db', db, '--no-redact']);
    expect(e.code, e.stderr).toBe(0);
    const items = parseTranscript(e.stdout.toString()).items;
    const frames = items.filter((i): i is Frame => i.dir === 'c2a' || i.dir === 'a2c');
    expect(frames.map((f) => [f.dir, f.raw])).toEqual([
      ['c2a', init], ['c2a', cancel], ['a2c', answer], ['a2c', JSON.stringify(JSON.parse(update))],
    ]);
    const events = items.filter((i): i is EventItem => i.dir === 'event' && i.type === 'transport').map((i) => i.data as Record<string, unknown>);
    expect(events.find((d) => d.op === 'ws-open')).toMatchObject({ status: 101, connectionId: 'conn-1' });
    expect(events.filter((d) => d.op === 'ws-close').map((d) => [d.code, d.reason])).toEqual([
      [1001, 'closed by the agent: going away'], [1001, 'closed by the client'],
    ]);
  });
});
