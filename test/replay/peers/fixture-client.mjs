#!/usr/bin/env node
// A client on the real 2.4.0 SDK that plays the client side of a transcript: it sends each recorded
// client request and notification through the SDK (the SDK numbers the requests), answers each agent
// request with the recorded answer (a result, or a JSON-RPC error), in the recorded order: a client
// frame is sent once the agent frames recorded before it have arrived. It ends when every recorded
// agent frame has arrived (or after a time limit) and prints one JSON line of what it saw.
//
// As a script: fixture-client.mjs FIXTURE.jsonl -- agent command args...
// As a module: drive(text, stream) with an acp.ndJsonStream.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

/** The frames of a transcript, in order: {dir, msg}. Note lines and other items are skipped. */
export function framesOf(text) {
  const out = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const o = JSON.parse(line);
    if (o.dir !== 'c2a' && o.dir !== 'a2c') continue;
    let msg;
    try { msg = JSON.parse(o.raw); } catch { msg = undefined; }
    out.push({ dir: o.dir, msg });
  }
  return out;
}

const kindOf = (m) => (!m || typeof m !== 'object' ? 'invalid' : 'method' in m ? ('id' in m ? 'request' : 'notification') : 'result' in m ? 'result' : 'error' in m ? 'error' : 'invalid');

/** Counts the lines a byte stream carries on their way to the SDK. */
function counting(readable, onLine) {
  return readable.pipeThrough(new TransformStream({
    transform(chunk, ctl) {
      for (const b of chunk) if (b === 10) onLine();
      ctl.enqueue(chunk);
    },
  }));
}

/**
 * Plays the client side of `text` (a transcript) over `stream` ({writable, readable} byte streams)
 * through the SDK. Resolves to {sent, answered, received, expected, results, errors, updates}.
 */
export async function drive(text, ends, { timeoutMs = 20_000 } = {}) {
  const frames = framesOf(text);
  const expected = frames.filter((f) => f.dir === 'a2c').length;
  let received = 0;
  const waiters = [];
  const wake = () => { for (const w of [...waiters]) w(); };
  const until = (pred, what) => new Promise((resolve, reject) => {
    if (pred()) return resolve();
    const timer = setTimeout(() => reject(new Error(`fixture client: timed out waiting for ${what} (${received} of ${expected} agent frames arrived)`)), timeoutMs);
    const check = () => {
      if (!pred()) return;
      clearTimeout(timer);
      waiters.splice(waiters.indexOf(check), 1);
      resolve();
    };
    waiters.push(check);
  });

  // The recorded answers to agent requests, by the request's id (the mock agent keeps recorded ids).
  const pendingAgentRequests = new Map(); // id key → {resolve}
  const arrivedAgentRequests = new Map(); // id key → true
  const key = (id) => JSON.stringify(id);
  const report = { sent: 0, answered: 0, received: 0, expected, results: [], errors: [], updates: [] };

  const app = acp.client({ name: 'fixture-client', version: '0.0.1' })
    .onRequest('*', (ctx) => new Promise((resolve, reject) => {
      arrivedAgentRequests.set(key(ctx.requestId), true);
      pendingAgentRequests.set(key(ctx.requestId), { resolve, reject });
      wake();
    }))
    .onNotification('*', (ctx) => {
      const u = ctx.params?.update?.sessionUpdate;
      report.updates.push(u ? `${ctx.method} ${u}` : ctx.method);
    });
  const readable = counting(ends.readable, () => { received++; wake(); });
  const conn = app.connect(acp.ndJsonStream(ends.writable, readable));
  const agent = conn.agent;
  const inflight = [];
  let a2cBefore = 0;
  for (const f of frames) {
    if (f.dir === 'a2c') { a2cBefore++; continue; }
    const want = a2cBefore;
    await until(() => received >= want, `the ${want} agent frames recorded before the next client frame`);
    const m = f.msg;
    const kind = kindOf(m);
    if (kind === 'request') {
      report.sent++;
      inflight.push(agent.request(m.method, m.params).then(
        (r) => report.results.push({ method: m.method, result: r }),
        (e) => report.errors.push({ method: m.method, code: e?.code, message: e?.message }),
      ));
    } else if (kind === 'notification') {
      report.sent++;
      await agent.notify(m.method, m.params);
    } else if (kind === 'result' || kind === 'error') {
      await until(() => pendingAgentRequests.has(key(m.id)), `the agent request ${key(m.id)} this answer is for`);
      const p = pendingAgentRequests.get(key(m.id));
      pendingAgentRequests.delete(key(m.id));
      report.answered++;
      if (kind === 'result') p.resolve(m.result);
      else p.reject(new acp.RequestError(m.error.code, m.error.message, m.error.data));
    }
  }
  await until(() => received >= expected, 'the rest of the recorded agent frames');
  await Promise.all(inflight);
  report.received = received;
  return report;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const argv = process.argv.slice(2);
  const sep = argv.indexOf('--');
  const fixture = argv[0];
  const cmd = argv.slice(sep + 1);
  const child = spawn(cmd[0], cmd.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((r) => child.on('close', (code, signal) => r({ code, signal })));
  let code = 0;
  try {
    const report = await drive(readFileSync(fixture, 'utf8'), {
      writable: Writable.toWeb(child.stdin),
      readable: Readable.toWeb(child.stdout),
    });
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } catch (e) {
    process.stderr.write(`${e?.message ?? e}\n`);
    code = 1;
  }
  child.stdin.end();
  const t = setTimeout(() => child.kill('SIGTERM'), 5000);
  const ex = await exited;
  clearTimeout(t);
  process.stderr.write(`fixture client: agent exit ${JSON.stringify(ex)}\n`);
  process.exit(code);
}
