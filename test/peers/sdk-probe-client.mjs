#!/usr/bin/env node
// A client written the way an editor author would, on the ACP TypeScript SDK (2.x `client()`
// builder): fs on the real disk, terminals as child processes, permissions answered with the first
// option (or cancelled when the SDK reports the request withdrawn). It spawns the agent command after
// `--`, sends one prompt, and writes {stopReason, text} as JSON to PROBE_OUT.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

const sep = process.argv.indexOf('--');
const [cmd, ...args] = process.argv.slice(sep + 1);
const agent = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
const terminals = new Map();
const children = [];
let text = '';

const term = (id) => {
  const t = terminals.get(id);
  if (!t) throw acp.RequestError.invalidParams(undefined, `unknown terminal ${id}`);
  return t;
};
const tail = (buf, limit) => {
  if (limit == null || buf.length <= limit) return { output: buf.toString('utf8'), truncated: false };
  let start = buf.length - limit;
  while (start < buf.length && (buf[start] & 0xc0) === 0x80) start++;
  return { output: buf.subarray(start).toString('utf8'), truncated: true };
};
const exitOf = (t) => (t.exit ? { exitCode: t.exit.code, signal: t.exit.signal } : null);

const stream = acp.ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));
const result = await acp
  .client({ name: 'sdk-probe-client', version: '1.0.0' })
  .onRequest(acp.methods.client.session.requestPermission, (ctx) => new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ outcome: { outcome: 'selected', optionId: ctx.params.options[0].optionId } }), 30);
    ctx.signal?.addEventListener('abort', () => { clearTimeout(timer); resolve({ outcome: { outcome: 'cancelled' } }); });
  }))
  .onRequest(acp.methods.client.fs.readTextFile, (ctx) => {
    let content;
    try { content = readFileSync(ctx.params.path, 'utf8'); } catch { throw acp.RequestError.resourceNotFound(ctx.params.path); }
    const { line, limit } = ctx.params;
    if (line != null || limit != null) {
      const lines = content.split(/(?<=\n)/);
      const from = Math.max(0, (line ?? 1) - 1);
      content = lines.slice(from, limit != null ? from + limit : undefined).join('');
    }
    return { content };
  })
  .onRequest(acp.methods.client.fs.writeTextFile, (ctx) => { writeFileSync(ctx.params.path, ctx.params.content); return {}; })
  .onRequest(acp.methods.client.terminal.create, (ctx) => {
    const p = ctx.params;
    const child = spawn(p.command, p.args ?? [], { cwd: p.cwd ?? undefined, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    const t = { child, out: Buffer.alloc(0), limit: p.outputByteLimit, exit: null, waiters: [] };
    const add = (c) => { t.out = Buffer.concat([t.out, c]); };
    child.stdout.on('data', add);
    child.stderr.on('data', add);
    child.on('close', (code, signal) => { t.exit = { code, signal }; for (const w of t.waiters.splice(0)) w(); });
    const terminalId = `t${terminals.size + 1}`;
    terminals.set(terminalId, t);
    return { terminalId };
  })
  .onRequest(acp.methods.client.terminal.output, (ctx) => {
    const t = term(ctx.params.terminalId);
    return { ...tail(t.out, t.limit), exitStatus: exitOf(t) };
  })
  .onRequest(acp.methods.client.terminal.waitForExit, async (ctx) => {
    const t = term(ctx.params.terminalId);
    if (!t.exit) await new Promise((r) => t.waiters.push(r));
    return { exitCode: t.exit.code, signal: t.exit.signal };
  })
  .onRequest(acp.methods.client.terminal.kill, (ctx) => { term(ctx.params.terminalId).child.kill('SIGKILL'); return {}; })
  .onRequest(acp.methods.client.terminal.release, (ctx) => {
    term(ctx.params.terminalId).child.kill('SIGKILL');
    terminals.delete(ctx.params.terminalId);
    return {};
  })
  .connectWith(stream, async (ctx) => {
    await ctx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
      clientInfo: { name: 'sdk-probe-client', version: '1.0.0' },
    });
    return ctx.buildSession(process.cwd()).withSession(async (session) => {
      session.prompt('Hello, probe!');
      for (;;) {
        const m = await session.nextUpdate();
        if (m.kind === 'stop') return m.response;
        const u = m.notification.update;
        if (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text') text += u.content.text;
      }
    });
  });
writeFileSync(process.env.PROBE_OUT, JSON.stringify({ stopReason: result.stopReason, text }));
for (const c of children) c.kill('SIGKILL');
agent.kill('SIGTERM');
process.exit(0);
