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
import { BIN, PEERS } from '../helpers.js';

export const REMOTE_AGENT = join(PEERS, 'remote-agent.mjs');

export interface RemoteAgent { url: string; log: string; stop(): Promise<void> }

/** Starts the test agent (in a process group of its own) and resolves once it listens. */
export function startRemoteAgent(dir: string, args: string[] = []): Promise<RemoteAgent> {
  const log = join(dir, `agent-${Math.random().toString(36).slice(2)}.jsonl`);
  const child = spawn(process.execPath, [REMOTE_AGENT, '--log', log, ...args], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.on('error', reject);
    child.once('exit', (code) => reject(new Error(`remote agent exited (${code}) before listening`)));
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const nl = out.indexOf('\n');
      if (nl === -1) return;
      resolve({
        url: out.slice(0, nl),
        log,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) {
            try { process.kill(-child.pid!, 'SIGTERM'); } catch { /* gone */ }
          }
          await exited;
        },
      });
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

export interface BridgeRun<T> {
  result: T | undefined;
  error: unknown;
  sent: unknown[];
  received: unknown[];
  code: number | null;
  stderr: string;
}

type Ctx = Parameters<Parameters<ReturnType<typeof acp.client>['connectWith']>[1]>[0];

/**
 * Runs the tap as a bridge to `target` (`acp-inspect --db DB [args] -- target`) under the SDK's stdio
 * client, which runs `script`; the client allows every permission. Resolves once the tap exited.
 */
export async function throughBridge<T>(db: string, target: string, script: (ctx: Ctx) => Promise<T>, opts: { args?: string[]; env?: NodeJS.ProcessEnv } = {}): Promise<BridgeRun<T>> {
  const child: ChildProcess = spawn(process.execPath, [BIN, '--db', db, ...(opts.args ?? []), '--', target], {
    stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...opts.env },
  });
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  const sent: unknown[] = [];
  const received: unknown[] = [];
  const base = acp.ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>);
  const outbound = new TransformStream<acp.AnyMessage, acp.AnyMessage>({ transform(m, c) { sent.push(m); c.enqueue(m); } });
  const inbound = new TransformStream<acp.AnyMessage, acp.AnyMessage>({ transform(m, c) { received.push(m); c.enqueue(m); } });
  void outbound.readable.pipeTo(base.writable).catch(() => undefined);
  void base.readable.pipeTo(inbound.writable).catch(() => undefined);
  let result: T | undefined;
  let error: unknown;
  try {
    result = await acp.client({ name: 'bridge-test-client' })
      .onRequest(acp.methods.client.session.requestPermission, () => ({ outcome: { outcome: 'selected' as const, optionId: 'allow' } }))
      .onNotification(acp.methods.client.session.update, () => undefined)
      .connectWith({ readable: inbound.readable, writable: outbound.writable }, script);
  } catch (e) {
    error = e;
  }
  child.stdin!.end();
  const code = await exited;
  return { result, error, sent, received, code, stderr };
}

export const initialize = (ctx: Ctx) => ctx.request(acp.methods.agent.initialize, {
  protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {}, clientInfo: { name: 'bridge-test-client', version: '1.0.0' },
});
export const newSession = (ctx: Ctx) => ctx.request(acp.methods.agent.session.new, { cwd: '/tmp', mcpServers: [] });
export const prompt = (ctx: Ctx, sessionId: string, text: string) => ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
