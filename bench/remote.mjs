#!/usr/bin/env node
/**
 * Remote agents on loopback: what the bridge (`acp-inspect -- URL`) and the proxy (`acp-inspect proxy`)
 * add to the protocol SDK's own client talking to the SDK's own server (test/peers/remote-agent.mjs),
 * over Streamable HTTP and WebSocket, side by side with the direct connection in the same run:
 *
 * - latency: round trips of a turn that ends at once (`session/prompt` "ping"; not `session/new`, which opens a new session stream each time), one at a time; p50 and p90 per path, and
 *   what the bridge or proxy adds to the direct connection's p50, after WARMUP round trips on the
 *   connection (every process's code compiled and optimized, as in a long session);
 * - throughput: turns streaming COUNT `session/update`s of 1 KiB; updates per second per path, and
 *   the ratio to the direct connection. Each connection streams two such turns: the first is the
 *   cold one (a bridge is a new process each round, its code not yet optimised by V8, while the
 *   direct connection's client runs in this process, warm from round 1 on: the cold ratio is
 *   against a warm client), the second the stream as a long session has it, both ends warm: the
 *   ratio the targets take.
 *
 * - memory: peak RSS of the bridge and of the proxy through one long turn of MIB MiB of 1 KiB updates,
 *   sampled as it streams (start, peak, end), against the same process before the turn.
 *
 * Paths take turns within each round (direct, proxy, bridge, ...), so a machine's load falls on all
 * alike. Every update each path's client gets is counted: a path that lost or duplicated one is a
 * problem, not a number. `npm run bench` runs this as its `remote` section (benchRemote); alone:
 * node bench/remote.mjs [--rounds N] [--trips N] [--warmup N] [--updates N] [--rss-mb N] [--only http|ws] [--json FILE]
 * (npm run bench:remote builds first).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/** BENCH_BRIDGE_ARGS: more tap options for the bridge (e.g. --no-check). */
const BRIDGE_ARGS = (process.env.BENCH_BRIDGE_ARGS ?? '').split(' ').filter(Boolean);

/**
 * Starts a process and resolves with the first line it prints (a URL), its pid, and a stop that
 * awaits its exit. Its stderr (the proxy's "proxying …" line) is kept, and shown if it fails to start.
 */
function started(cmd, args) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const exited = new Promise((r) => child.once('exit', r));
  let err = '';
  child.stderr.on('data', (b) => { err += b.toString(); });
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}) before printing its URL: ${err.trim()}`)));
    child.stdout.on('data', (b) => {
      out += b.toString();
      const nl = out.indexOf('\n');
      if (nl !== -1) resolve({ url: out.slice(0, nl), pid: child.pid, stderr: () => err.replace(/^acp-inspect: proxying .*\n/m, ''), stop: async () => { try { process.kill(-child.pid, 'SIGTERM'); } catch { /* gone */ } await exited; } });
    });
  });
}

/** A client connection over `stream`, kept open while `body` runs (given the connection's context and the updates it got so far). */
function connect(stream, body) {
  const seen = { updates: 0 };
  return acp.client({ name: 'bench' })
    .onRequest(acp.methods.client.session.requestPermission, () => ({ outcome: { outcome: 'selected', optionId: 'allow' } }))
    .onNotification(acp.methods.client.session.update, () => { seen.updates++; })
    .connectWith(stream, async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {}, clientInfo: { name: 'bench', version: '1' } });
      return body(ctx, seen);
    });
}

/** The stream of one path; `pid` is the bridge's process (or null), `end` releases what it started. */
function streamOf(path, urls, db) {
  const http = path.via === 'proxy' ? urls.proxy : urls.agent;
  const url = path.transport === 'ws' ? http.replace(/^http/, 'ws') : http;
  if (path.via === 'bridge') {
    const child = spawn(process.execPath, [BIN, '--db', db, ...BRIDGE_ARGS, '--', url], { stdio: ['pipe', 'pipe', 'inherit'] });
    const exited = new Promise((r) => child.once('close', r));
    return { pid: child.pid, stream: acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)), end: async () => { child.stdin.end(); await exited; } };
  }
  const stream = path.transport === 'ws' ? createWebSocketStream(url, { WebSocket }) : createHttpStream(url);
  return { pid: null, stream, end: async () => {} };
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

/** A process's resident set now (KiB), or NaN when it is gone. */
function rssKiB(pid) {
  try {
    return Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}

/**
 * Measures every path (see the file's comment). Options: rounds, trips, warmup (round trips before the measured ones), updates, rssMb (0: no memory
 * part), only ('http' | 'ws' | null), log (a line of output), problem (a path that lost messages).
 * Resolves with { rows, memory }.
 */
export async function benchRemote({ rounds = 3, trips: TRIPS = 200, warmup: WARMUP = 2000, updates: UPDATES = 5000, rssMb = 0, only = null, log = (s) => process.stdout.write(`${s}\n`), problem = (s) => { throw new Error(s); } } = {}) {
  const PATHS = [];
  for (const transport of ['http', 'ws'].filter((t) => !only || t === only)) for (const via of ['direct', 'proxy', 'bridge']) PATHS.push({ transport, via, name: `${transport} ${via}` });
  const tmp = mkdtempSync(join(tmpdir(), 'acp-inspect-bench-remote-'));
  const agent = await started(process.execPath, [AGENT]);
  const proxy = await started(process.execPath, [BIN, 'proxy', '--listen', '127.0.0.1:0', '--to', agent.url, '--db', join(tmp, 'proxy.sqlite')]).catch(async (e) => { await agent.stop(); throw e; });
  const urls = { agent: agent.url, proxy: proxy.url };
  const trips = Object.fromEntries(PATHS.map((p) => [p.name, []]));
  const rates = Object.fromEntries(PATHS.map((p) => [p.name, []]));
  const coldRates = Object.fromEntries(PATHS.map((p) => [p.name, []]));
  const memory = [];
  /** One turn of `n` updates on `path`; resolves with updates/s, and the RSS samples of `pidOf()` when sampled. */
  const turn = async (ctx, seen, sessionId, path, n) => {
    const before = seen.updates;
    const t = performance.now();
    await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: `flood ${n}` }] });
    const rate = n / ((performance.now() - t) / 1000);
    if (seen.updates - before !== n) problem(`${path.name}: the client got ${seen.updates - before} of ${n} updates`);
    return rate;
  };
  try {
    for (let round = 0; round < rounds; round++) {
      for (const path of PATHS) {
        const { stream, end } = streamOf(path, urls, join(tmp, `bridge-${round}-${path.transport}.sqlite`));
        await connect(stream, async (ctx, seen) => {
          const s = await ctx.request(acp.methods.agent.session.new, { cwd: '/tmp', mcpServers: [] });
          const ping = () => ctx.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'ping' }] });
          // Warm-up: a session's round trips once every process's code is compiled and optimized, as
          // an editor's long session has them (the first few hundred cost each process 2-3 times the
          // CPU, and a bridge is a new process each round).
          for (let i = 0; i < WARMUP; i++) await ping();
          for (let i = 0; i < TRIPS; i++) {
            const t = performance.now();
            await ping();
            trips[path.name].push(performance.now() - t);
          }
          coldRates[path.name].push(await turn(ctx, seen, s.sessionId, path, UPDATES));
          rates[path.name].push(await turn(ctx, seen, s.sessionId, path, UPDATES));
        }).catch((e) => problem(`${path.name}, round ${round + 1}: ${e.message}${e.cause ? ` (${e.cause.message ?? e.cause})` : ''}${proxy.stderr() ? `; the proxy said: ${proxy.stderr().trim()}` : ''}`));
        await end();
      }
      log(`  round ${round + 1}/${rounds} done`);
    }
  } catch (e) {
    await stopAll();
    throw e;
  }
  const rows = table();
  if (rssMb === 0) await stopAll();
  // Memory: a long stream through each path that has a process of ours in it, in turns of 10 MiB on one
  // connection (the SDK's server holds at most 64 MiB for a client slower than the agent, then closes
  // it), the RSS sampled as it streams.
  if (rssMb > 0) {
    try {
      for (const path of PATHS.filter((p) => p.via !== 'direct')) {
        const TURN = 10 * 1024;
        const n = rssMb * 1024;
        const { stream, end, pid: bridgePid } = streamOf(path, urls, join(tmp, `rss-${path.transport}.sqlite`));
        const pid = bridgePid ?? proxy.pid;
        const samples = [];
        let startKiB = NaN;
        const t = performance.now();
        try {
          await connect(stream, async (ctx, seen) => {
            const s = await ctx.request(acp.methods.agent.session.new, { cwd: '/tmp', mcpServers: [] });
            startKiB = rssKiB(pid);
            const timer = setInterval(() => samples.push(rssKiB(pid)), 100);
            try {
              for (let sent = 0; sent < n; sent += TURN) await turn(ctx, seen, s.sessionId, path, Math.min(TURN, n - sent));
            } finally { clearInterval(timer); }
          });
        } catch (e) {
          problem(`${path.name}: the ${rssMb} MiB stream failed: ${e.message}`);
          continue;
        } finally {
          await end();
        }
        const valid = samples.filter(Number.isFinite);
        const part = Math.max(1, Math.ceil(valid.length / 10));
        memory.push({
          path: path.name, mib: rssMb, updatesPerS: n / ((performance.now() - t) / 1000), startMiB: startKiB / 1024,
          firstTenthPeakMiB: Math.max(...valid.slice(0, part)) / 1024, lastTenthPeakMiB: Math.max(...valid.slice(-part)) / 1024, peakMiB: Math.max(...valid) / 1024, samples: valid.length,
        });
      }
    } finally {
      await stopAll();
    }
  }
  const f = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "-");
  if (memory.length) {
    log(`RSS of the bridge / proxy process through ${rssMb} MiB of 1 KiB updates (turns of 10 MiB on one connection; MiB)`);
    log('path          before  peak in first 10%  peak in last 10%  peak  updates/s');
    for (const m of memory) log(`${m.path.padEnd(12)}  ${f(m.startMiB, 1).padStart(6)}  ${f(m.firstTenthPeakMiB, 1).padStart(17)}  ${f(m.lastTenthPeakMiB, 1).padStart(16)}  ${f(m.peakMiB, 1).padStart(4)}  ${f(m.updatesPerS, 0).padStart(9)}`);
  }
  return { rounds, trips: TRIPS, updates: UPDATES, rows, memory };

  async function stopAll() {
    await proxy.stop();
    await agent.stop();
    rmSync(tmp, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  }

  /** The latency and throughput table, printed as soon as it is known. */
  function table() {
    const rows = PATHS.map((p) => {
      const direct = `${p.transport} direct`;
      const p50 = quantile(trips[p.name], 0.5);
      const rate = quantile(rates[p.name], 0.5);
      const cold = quantile(coldRates[p.name], 0.5);
      return {
        path: p.name, p50Ms: p50, p90Ms: quantile(trips[p.name], 0.9), addedP50Ms: p50 - quantile(trips[direct], 0.5),
        updatesPerS: rate, throughputRatio: rate / quantile(rates[direct], 0.5),
        coldUpdatesPerS: cold, coldThroughputRatio: cold / quantile(coldRates[direct], 0.5),
      };
    });
    const f = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "-");
    log(`remote agents on loopback: ${rounds} rounds × ${TRIPS} round trips (a "ping" turn, after ${WARMUP} to warm up) and two turns of ${UPDATES} 1 KiB updates per path (the first cold, the second warm)`);
    log('path          p50 ms  p90 ms  added p50 ms  updates/s  ratio to direct  first turn: updates/s  ratio');
    for (const r of rows) log(`${r.path.padEnd(12)}  ${f(r.p50Ms).padStart(6)}  ${f(r.p90Ms).padStart(6)}  ${f(r.addedP50Ms).padStart(12)}  ${f(r.updatesPerS, 0).padStart(9)}  ${f(r.throughputRatio).padStart(15)}  ${f(r.coldUpdatesPerS, 0).padStart(21)}  ${f(r.coldThroughputRatio).padStart(5)}`);
    return rows;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const arg = (name, dflt) => {
    const i = process.argv.indexOf(name);
    return i === -1 ? dflt : Number(process.argv[i + 1]);
  };
  const onlyAt = process.argv.indexOf('--only');
  const jsonAt = process.argv.indexOf('--json');
  const res = await benchRemote({
    rounds: arg('--rounds', 3), trips: arg('--trips', 200), warmup: arg('--warmup', 2000), updates: arg('--updates', 5000), rssMb: arg('--rss-mb', 0),
    only: onlyAt === -1 ? null : process.argv[onlyAt + 1],
    problem: (s) => { process.stderr.write(`bench: ${s}\n`); process.exitCode = 1; },
  });
  if (jsonAt !== -1) writeFileSync(process.argv[jsonAt + 1], `${JSON.stringify(res, null, 2)}\n`);
}
