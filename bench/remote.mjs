#!/usr/bin/env node
/**
 * Remote agents on loopback: what the bridge (`acp-inspect -- URL`) and the proxy (`acp-inspect proxy`)
 * add to the protocol SDK's own client talking to the SDK's own server (test/peers/remote-agent.mjs),
 * over Streamable HTTP and WebSocket, side by side with the direct connection in the same run:
 *
 * - latency: round trips of a small request (`session/new`), one at a time; p50 and p90 per path, and
 *   what the bridge or proxy adds to the direct connection's p50;
 * - throughput: one turn streaming COUNT `session/update`s of 1 KiB; updates per second per path, and
 *   the ratio to the direct connection.
 *
 * Paths take turns within each round (direct, proxy, bridge, ...), so a machine's load falls on all
 * alike. Usage: node bench/remote.mjs [--rounds N] [--trips N] [--updates N] [--only http|ws] [--json FILE]
 * (npm run bench:remote builds first).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import * as acp from '@agentclientprotocol/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'acp-inspect.js');
const AGENT = join(ROOT, 'test', 'peers', 'remote-agent.mjs');

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? dflt : Number(process.argv[i + 1]);
};
const ROUNDS = arg('--rounds', 3);
const TRIPS = arg('--trips', 200);
const UPDATES = arg('--updates', 5000);
/** --only http|ws: one transport's paths. BENCH_BRIDGE_ARGS: more tap options for the bridge (e.g. --no-check). */
const onlyAt = process.argv.indexOf('--only');
const ONLY = onlyAt === -1 ? null : process.argv[onlyAt + 1];
const BRIDGE_ARGS = (process.env.BENCH_BRIDGE_ARGS ?? '').split(' ').filter(Boolean);
const jsonAt = process.argv.indexOf('--json');
const JSON_OUT = jsonAt === -1 ? null : process.argv[jsonAt + 1];

/** Starts a process and resolves with the first line it prints (a URL), and a stop that awaits its exit. */
function started(cmd, args) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  const exited = new Promise((r) => child.once('exit', r));
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}) before printing its URL`)));
    child.stdout.on('data', (b) => {
      out += b.toString();
      const nl = out.indexOf('\n');
      if (nl !== -1) resolve({ url: out.slice(0, nl), stop: async () => { try { process.kill(-child.pid, 'SIGTERM'); } catch { /* gone */ } await exited; } });
    });
  });
}

/** A client connection over `stream`, kept open while `body` runs (given the connection's context). */
function connect(stream, body) {
  return acp.client({ name: 'bench' })
    .onRequest(acp.methods.client.session.requestPermission, () => ({ outcome: { outcome: 'selected', optionId: 'allow' } }))
    .onNotification(acp.methods.client.session.update, () => undefined)
    .connectWith(stream, async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {}, clientInfo: { name: 'bench', version: '1' } });
      return body(ctx);
    });
}

/** The stream of one path; `end` releases what it started (the bridge's process). */
function streamOf(path, urls, db) {
  const http = path.via === 'proxy' ? urls.proxy : urls.agent;
  const url = path.transport === 'ws' ? http.replace(/^http/, 'ws') : http;
  if (path.via === 'bridge') {
    const child = spawn(process.execPath, [BIN, '--db', db, ...BRIDGE_ARGS, '--', url], { stdio: ['pipe', 'pipe', 'inherit'] });
    const exited = new Promise((r) => child.once('close', r));
    return { stream: acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)), end: async () => { child.stdin.end(); await exited; } };
  }
  const stream = path.transport === 'ws' ? createWebSocketStream(url, { WebSocket }) : createHttpStream(url);
  return { stream, end: async () => {} };
}

const PATHS = [];
for (const transport of ['http', 'ws'].filter((t) => !ONLY || t === ONLY)) for (const via of ['direct', 'proxy', 'bridge']) PATHS.push({ transport, via, name: `${transport} ${via}` });

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

const tmp = mkdtempSync(join(tmpdir(), 'acp-inspect-bench-remote-'));
const agent = await started(process.execPath, [AGENT]);
const proxy = await started(process.execPath, [BIN, 'proxy', '--listen', '127.0.0.1:0', '--to', agent.url, '--db', join(tmp, 'proxy.sqlite')]);
const urls = { agent: agent.url, proxy: proxy.url };
const trips = Object.fromEntries(PATHS.map((p) => [p.name, []]));
const rates = Object.fromEntries(PATHS.map((p) => [p.name, []]));
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const path of PATHS) {
      const { stream, end } = streamOf(path, urls, join(tmp, `bridge-${round}-${path.transport}.sqlite`));
      await connect(stream, async (ctx) => {
        const s = await ctx.request(acp.methods.agent.session.new, { cwd: '/tmp', mcpServers: [] });
        for (let i = 0; i < 20; i++) await ctx.request(acp.methods.agent.session.new, { cwd: '/tmp', mcpServers: [] }); // warm-up
        for (let i = 0; i < TRIPS; i++) {
          const t = performance.now();
          await ctx.request(acp.methods.agent.session.new, { cwd: '/tmp', mcpServers: [] });
          trips[path.name].push(performance.now() - t);
        }
        const t = performance.now();
        await ctx.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: `flood ${UPDATES}` }] });
        rates[path.name].push(UPDATES / ((performance.now() - t) / 1000));
      });
      await end();
    }
    process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`);
  }
} finally {
  await proxy.stop();
  await agent.stop();
  rmSync(tmp, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
}

const rows = PATHS.map((p) => {
  const direct = `${p.transport} direct`;
  const p50 = quantile(trips[p.name], 0.5);
  const rate = quantile(rates[p.name], 0.5);
  return {
    path: p.name, p50Ms: p50, p90Ms: quantile(trips[p.name], 0.9), addedP50Ms: p50 - quantile(trips[direct], 0.5),
    updatesPerS: rate, throughputRatio: rate / quantile(rates[direct], 0.5),
  };
});
const f = (x, d = 2) => x.toFixed(d);
process.stdout.write(`remote agents on loopback: ${ROUNDS} rounds × ${TRIPS} round trips (session/new) and one turn of ${UPDATES} 1 KiB updates per path\n`);
process.stdout.write('path          p50 ms  p90 ms  added p50 ms  updates/s  ratio to direct\n');
for (const r of rows) process.stdout.write(`${r.path.padEnd(12)}  ${f(r.p50Ms).padStart(6)}  ${f(r.p90Ms).padStart(6)}  ${f(r.addedP50Ms).padStart(12)}  ${f(r.updatesPerS, 0).padStart(9)}  ${f(r.throughputRatio).padStart(15)}\n`);
if (JSON_OUT) writeFileSync(JSON_OUT, `${JSON.stringify({ rounds: ROUNDS, trips: TRIPS, updates: UPDATES, rows }, null, 2)}\n`);
