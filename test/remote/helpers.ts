/**
 * Real peers for the remote-agent tests: the test agent behind the protocol SDK's own server
 * (test/peers/remote-agent.mjs), and the SDK's stdio client driving the tap's bridge through real
 * pipes, with every message it sent and got kept for comparison.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { BIN, PEERS, tempDir } from '../helpers.js';

export const REMOTE_AGENT = join(PEERS, 'remote-agent.mjs');

export interface RemoteAgent { url: string; log: string; stop(): Promise<void> }

/** Starts the test agent (or the agent `script`) in a process group of its own and resolves once it listens. */
export async function startRemoteAgent(dir: string, args: string[] = [], script = REMOTE_AGENT): Promise<RemoteAgent> {
  const log = join(dir, `agent-${Math.random().toString(36).slice(2)}.jsonl`);
  const child = spawn(process.execPath, [script, '--log', log, ...args], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = await firstLine(child, 'remote agent');
  return {
    url,
    log,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        try { process.kill(-child.pid!, 'SIGTERM'); } catch { /* gone */ }
      }
      await exited;
    },
  };
}

/** The first line a process writes on stdout (a URL it listens on); rejects if it exits first. */
function firstLine(child: ChildProcess, what: string, stderr: () => string = () => ''): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.on('error', reject);
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}) before listening: ${stderr()}`)));
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const nl = out.indexOf('\n');
      if (nl !== -1) resolve(out.slice(0, nl));
    });
  });
}

/** The messages the test agent logged: what it got (`in`) and sent (`out`). */
export function agentLog(agent: RemoteAgent): { in: unknown[]; out: unknown[] } {
  const lines = existsSync(agent.log) ? readFileSync(agent.log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { dir: 'in' | 'out'; msg: unknown }) : [];
  return { in: lines.filter((l) => l.dir === 'in').map((l) => l.msg), out: lines.filter((l) => l.dir === 'out').map((l) => l.msg) };
}

/** A port nothing listens on (one the system just gave out and took back). */
export function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface ClientRun<T> {
  result: T | undefined;
  error: unknown;
  sent: unknown[];
  received: unknown[];
}

export interface BridgeRun<T> extends ClientRun<T> {
  code: number | null;
  stderr: string;
}

type Ctx = Parameters<Parameters<ReturnType<typeof acp.client>['connectWith']>[1]>[0];

/**
 * Runs the SDK's client over `stream` (allowing every permission), running `script`, with every
 * message it sent and got kept.
 */
export async function runClient<T>(stream: acp.Stream, script: (ctx: Ctx) => Promise<T>): Promise<ClientRun<T>> {
  const sent: unknown[] = [];
  const received: unknown[] = [];
  const outbound = new TransformStream<acp.AnyMessage, acp.AnyMessage>({ transform(m, c) { sent.push(m); c.enqueue(m); } });
  const inbound = new TransformStream<acp.AnyMessage, acp.AnyMessage>({ transform(m, c) { received.push(m); c.enqueue(m); } });
  void outbound.readable.pipeTo(stream.writable).catch(() => undefined);
  void stream.readable.pipeTo(inbound.writable).catch(() => undefined);
  let result: T | undefined;
  let error: unknown;
  try {
    result = await acp.client({ name: 'remote-test-client' })
      .onRequest(acp.methods.client.session.requestPermission, () => ({ outcome: { outcome: 'selected' as const, optionId: 'allow' } }))
      .onNotification(acp.methods.client.session.update, () => undefined)
      .connectWith({ readable: inbound.readable, writable: outbound.writable }, script);
  } catch (e) {
    error = e;
  }
  return { result, error, sent, received };
}

/**
 * Runs the tap as a bridge to `target` (`acp-inspect --db DB [args] -- target`) under the SDK's stdio
 * client, which runs `script`. Resolves once the tap exited.
 */
export async function throughBridge<T>(db: string, target: string, script: (ctx: Ctx) => Promise<T>, opts: { args?: string[]; env?: NodeJS.ProcessEnv } = {}): Promise<BridgeRun<T>> {
  const child: ChildProcess = spawn(process.execPath, [BIN, '--db', db, ...(opts.args ?? []), '--', target], {
    stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...opts.env },
  });
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  const run = await runClient(acp.ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>), script);
  child.stdin!.end();
  const code = await exited;
  return { ...run, code, stderr };
}

/**
 * The tap as a bridge to `target` under a client of raw lines (not the SDK's), for tests that need to
 * control reading or kill the tap mid-stream: what it wrote so far (`lines`), `until` a line matching,
 * `send` a JSON-RPC message. Killed (SIGKILL) and awaited by `defer`.
 */
export function rawBridge(db: string, target: string, args: string[], defer: (fn: () => Promise<unknown>) => void) {
  const child = spawn(process.execPath, [BIN, '--db', db, ...args, '--', target], { stdio: ['pipe', 'pipe', 'ignore'] });
  const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  defer(async () => { child.kill('SIGKILL'); await exited; });
  const lines: string[] = [];
  let rest = '';
  let waiting: { test: (l: string) => boolean; done: () => void } | null = null;
  child.stdout!.on('data', (b: Buffer) => {
    const parts = (rest + b.toString('utf8')).split('\n');
    rest = parts.pop()!;
    for (const p of parts) {
      lines.push(p);
      if (waiting?.test(p)) { waiting.done(); waiting = null; }
    }
  });
  return {
    child,
    exited,
    lines,
    until: (test: (l: string) => boolean) => new Promise<void>((done) => {
      if (lines.some(test)) done();
      else waiting = { test, done };
    }),
    send: (m: object) => child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`),
  };
}

export interface Proxy { url: string; stderr(): string; stop(): Promise<number | null> }

/** Starts `acp-inspect proxy --listen 127.0.0.1:0 --to TO --db DB` and resolves once it printed its URL. */
export async function startProxy(db: string, to: string): Promise<Proxy> {
  const child = spawn(process.execPath, [BIN, 'proxy', '--listen', '127.0.0.1:0', '--to', to, '--db', db], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  const url = await firstLine(child, 'proxy', () => err);
  return {
    url,
    stderr: () => err,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** The test agent (with `args`) and the proxy in front of it (recording into `db`), each stopped by `defer` after the test. */
export async function agentBehindProxy(db: string, dir: string, defer: (fn: () => Promise<unknown>) => void, args: string[] = []): Promise<{ agent: RemoteAgent; proxy: Proxy }> {
  const agent = await startRemoteAgent(dir, args);
  defer(() => agent.stop());
  const proxy = await startProxy(db, agent.url);
  defer(() => proxy.stop());
  return { agent, proxy };
}

/** Cleanups run after each test, last first; `scope()` makes a temp folder and the database path in it. */
export function testScope(afterEach: (fn: () => Promise<void>) => void): { defer(fn: () => Promise<unknown> | void): void; scope(): { db: string; dir: string } } {
  const stops: (() => Promise<unknown> | void)[] = [];
  afterEach(async () => {
    for (const s of stops.splice(0).reverse()) await s();
  });
  return {
    defer: (fn) => { stops.push(fn); },
    scope: () => {
      const t = tempDir();
      stops.push(t.cleanup);
      return { db: join(t.dir, 'r.sqlite'), dir: t.dir };
    },
  };
}

export const initialize = (ctx: Ctx) => ctx.request(acp.methods.agent.initialize, {
  protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {}, clientInfo: { name: 'remote-test-client', version: '1.0.0' },
});
export const newSession = (ctx: Ctx) => ctx.request(acp.methods.agent.session.new, { cwd: '/tmp', mcpServers: [] });
export const prompt = (ctx: Ctx, sessionId: string, text: string) => ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });

/** A WebSocket frame made by hand by RFC 6455's layout: FIN, opcode, the length in 7, 16 or 64 bits, masked with `mask` when given. */
export function wsFrame(opcode: number, payload: Buffer | string, { fin = true, mask }: { fin?: boolean; mask?: Buffer } = {}): Buffer {
  const body = Buffer.from(payload);
  const len = body.length;
  const head = len < 126 ? Buffer.from([0, len]) : len < 65536 ? Buffer.from([0, 126, len >> 8, len & 255]) : Buffer.alloc(10);
  if (len >= 65536) {
    head[1] = 127;
    head.writeUInt32BE(Math.floor(len / 2 ** 32), 2);
    head.writeUInt32BE(len >>> 0, 6);
  }
  head[0] = (fin ? 0x80 : 0) | opcode;
  if (!mask) return Buffer.concat([head, body]);
  head[1]! |= 0x80;
  const masked = Buffer.from(body.map((b, i) => b ^ mask[i & 3]!));
  return Buffer.concat([head, mask, masked]);
}

/** A close frame with a status code and reason. */
export const wsClose = (code: number, reason: string, mask?: Buffer): Buffer => {
  const body = Buffer.alloc(2 + Buffer.byteLength(reason));
  body.writeUInt16BE(code, 0);
  body.write(reason, 2);
  return wsFrame(8, body, { mask });
};
