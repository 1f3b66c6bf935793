#!/usr/bin/env node
// A generic ACP client on the 2.4.0 SDK. Spawns the agent command, logs every byte it writes
// (LOG/client-out.bin) and reads (LOG/client-in.bin), runs a scenario, prints a summary line per step.
// usage: client.mjs LOGDIR [--auth ID] [--auth-after-fail ID] [--auth-terminal] [--version N] [--cwd DIR]
//        [--list] [--load-listed] [--resume-listed] [--fork-listed] [--prompt-listed] [--no-new] [--set-mode]
//        [--prompt TEXT] [--cancel-after MS] [--cancel-on-permission] [--close] [--step-timeout MS] [--exit-wait MS] -- agent cmd args...
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { PassThrough, Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

const argv = process.argv.slice(2);
const logdir = argv.shift();
const sep = argv.indexOf('--');
const opts = argv.slice(0, sep);
const cmd = argv.slice(sep + 1);
const opt = (name, dflt) => { const i = opts.indexOf(name); return i < 0 ? dflt : opts[i + 1]; };
const flag = (name) => opts.includes(name);
mkdirSync(logdir, { recursive: true });
const outFile = `${logdir}/client-out.bin`, inFile = `${logdir}/client-in.bin`;
writeFileSync(outFile, ''); writeFileSync(inFile, '');
const cwd = opt('--cwd', '/home/dev/project');
const stepTimeout = Number(opt('--step-timeout', '20000'));
const log = (...a) => process.stderr.write(`[client] ${a.join(' ')}\n`);

const child = spawn(cmd[0], cmd.slice(1), { stdio: ['pipe', 'pipe', 'inherit'], cwd });
const childExit = new Promise((r) => child.on('exit', (code, signal) => r({ code, signal })));
const pt = new PassThrough();
child.stdout.on('data', (d) => { appendFileSync(inFile, d); pt.write(d); });
child.stdout.on('end', () => pt.end());
const sink = new Writable({
  write(chunk, _enc, cb) { appendFileSync(outFile, chunk); child.stdin.write(chunk, cb); },
  final(cb) { child.stdin.end(); cb(); },
});
child.stdin.on('error', (e) => log('stdin error', e.code));

let permissionAsked = () => {};
const cancelled = new Set();
const app = acp
  .client({ name: 'acp-inspect-peer-client', version: '0.1.0' })
  .onRequest('session/request_permission', async (ctx) => {
    permissionAsked(ctx.params);
    if (flag('--cancel-on-permission') && !cancelled.has(ctx.params.sessionId)) {
      cancelled.add(ctx.params.sessionId);
      log('cancel while the permission is pending');
      await agent.notify('session/cancel', { sessionId: ctx.params.sessionId });
    }
    if (cancelled.has(ctx.params.sessionId)) return { outcome: { outcome: 'cancelled' } };
    const o = ctx.params.options.find((x) => x.kind === 'allow_once') ?? ctx.params.options[0];
    return { outcome: { outcome: 'selected', optionId: o.optionId } };
  })
  .onRequest('fs/read_text_file', () => ({ content: '# Demo project\n' }))
  .onRequest('fs/write_text_file', () => ({}))
  .onRequest('terminal/create', () => ({ terminalId: 'term-1' }))
  .onRequest('terminal/wait_for_exit', () => ({ exitCode: 0, signal: null }))
  .onRequest('terminal/output', () => ({ output: 'ok\n', truncated: false, exitStatus: { exitCode: 0, signal: null } }))
  .onRequest('terminal/kill', () => ({}))
  .onRequest('terminal/release', () => ({}))
  .onNotification('session/update', (ctx) => { log('update', ctx.params.update.sessionUpdate); });

const conn = app.connect(acp.ndJsonStream(Writable.toWeb(sink), Readable.toWeb(pt)));
const agent = conn.agent;
const step = async (name, p) => {
  let t;
  try {
    const r = await Promise.race([p, new Promise((_, rej) => { t = setTimeout(() => rej(new Error('step timeout')), stepTimeout); })]);
    log(name, 'ok', JSON.stringify(r).slice(0, 300));
    return r;
  } catch (e) {
    log(name, 'failed', e?.message ?? String(e), JSON.stringify(e?.data ?? e?.code ?? '').slice(0, 200));
    return undefined;
  } finally { clearTimeout(t); }
};

try {
  const init = await step('initialize', agent.request('initialize', {
    protocolVersion: Number(opt('--version', '1')),
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true, ...(flag('--auth-terminal') ? { auth: { terminal: true } } : {}) },
    clientInfo: { name: 'acp-inspect-peer-client', version: '0.1.0' },
  }));
  if (opt('--auth')) await step('authenticate', agent.request('authenticate', { methodId: opt('--auth') }));
  let s = flag('--no-new') ? undefined : await step('session/new', agent.request('session/new', { cwd, mcpServers: [] }));
  if (!s && opt('--auth-after-fail')) {
    await step('authenticate', agent.request('authenticate', { methodId: opt('--auth-after-fail') }));
    s = await step('session/new', agent.request('session/new', { cwd, mcpServers: [] }));
  }
  const caps = init?.agentCapabilities ?? {};
  let listed;
  if (flag('--list') && caps.sessionCapabilities?.list) listed = await step('session/list', agent.request('session/list', {}));
  const prev = listed?.sessions?.[0]?.sessionId;
  if (prev && flag('--load-listed')) await step('session/load', agent.request('session/load', { sessionId: prev, cwd, mcpServers: [] }));
  if (prev && flag('--resume-listed')) await step('session/resume', agent.request('session/resume', { sessionId: prev, cwd, mcpServers: [] }));
  if (prev && flag('--fork-listed')) await step('session/fork', agent.request('session/fork', { sessionId: prev, cwd, mcpServers: [] }));
  if (prev && flag('--prompt-listed')) await step('session/prompt', agent.request('session/prompt', { sessionId: prev, prompt: [{ type: 'text', text: 'And now?' }] }));
  if (s) {
    const modes = s.modes?.availableModes ?? [];
    if (flag('--set-mode') && modes.length > 1) await step('session/set_mode', agent.request('session/set_mode', { sessionId: s.sessionId, modeId: modes[1].id }));
    if (opt('--prompt')) {
      const turn = agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: opt('--prompt') }] });
      const ca = opt('--cancel-after');
      if (ca) setTimeout(() => { cancelled.add(s.sessionId); log('cancel'); agent.notify('session/cancel', { sessionId: s.sessionId }); }, Number(ca));
      await step('session/prompt', turn);
    }
    if (flag('--close') && caps.sessionCapabilities?.close) await step('session/close', agent.request('session/close', { sessionId: s.sessionId }));
  }
} finally {
  sink.end();
  const t = setTimeout(() => { log('agent did not exit after stdin closed; SIGTERM'); child.kill('SIGTERM'); }, Number(opt('--exit-wait', '5000')));
  const ex = await childExit;
  clearTimeout(t);
  log('agent exit', JSON.stringify(ex));
  writeFileSync(`${logdir}/exit.json`, JSON.stringify(ex));
  process.exit(0);
}
