#!/usr/bin/env node
// A conformant client on the 2.4.0 SDK API. Spawns `node tee-agent.mjs OUT -- node rich-agent.mjs`
// and runs: initialize, authenticate, session/new, set_mode, a working turn (fs, terminal,
// permission), a turn cancelled while a permission request is pending (answered "cancelled"),
// session/list, session/load (history replayed), session/close. usage: rich-client.mjs OUT.jsonl
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';

const here = dirname(fileURLToPath(import.meta.url));
const child = spawn(process.execPath, [join(here, 'tee-agent.mjs'), process.argv[2], '--', process.execPath, join(here, 'rich-agent.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
const cancelled = new Set();
let onPermission = () => {};

const app = acp
  .client({ name: 'rich-client' })
  .onRequest('session/request_permission', async (ctx) => {
    onPermission(ctx.params);
    if (ctx.params.toolCall.toolCallId === 'slow-1') await new Promise((r) => setTimeout(r, 50));
    if (cancelled.has(ctx.params.sessionId)) return { outcome: { outcome: 'cancelled' } };
    return { outcome: { outcome: 'selected', optionId: 'yes' } };
  })
  .onRequest('fs/read_text_file', () => ({ content: '# Project\n' }))
  .onRequest('fs/write_text_file', () => ({}))
  .onRequest('terminal/create', () => ({ terminalId: 'term-1' }))
  .onRequest('terminal/wait_for_exit', () => ({ exitCode: 0, signal: null }))
  .onRequest('terminal/output', () => ({ output: 'hi\n', truncated: false, exitStatus: { exitCode: 0, signal: null } }))
  .onRequest('terminal/release', () => ({}))
  .onNotification('session/update', () => {});

const conn = app.connect(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)));
const agent = conn.agent;
try {
  await agent.request('initialize', {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
    clientInfo: { name: 'rich-client', version: '0.0.1' },
  });
  await agent.request('authenticate', { methodId: 'api-key' });
  const s = await agent.request('session/new', { cwd: '/tmp/project', mcpServers: [] });
  await agent.request('session/set_mode', { sessionId: s.sessionId, modeId: 'code' });
  await agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'fix the config' }, { type: 'resource_link', uri: 'file:///tmp/project/config.json', name: 'config.json' }] });
  const asked = new Promise((r) => { onPermission = r; });
  const slow = agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'slow cleanup' }] });
  await asked;
  cancelled.add(s.sessionId);
  await agent.notify('session/cancel', { sessionId: s.sessionId });
  const r = await slow;
  if (r.stopReason !== 'cancelled') throw new Error(`expected cancelled, got ${r.stopReason}`);
  await agent.request('session/list', { cwd: '/tmp/project' });
  await agent.request('session/load', { sessionId: 'sess-old', cwd: '/tmp/project', mcpServers: [] });
  await agent.request('session/close', { sessionId: s.sessionId });
} catch (e) {
  process.stderr.write(`rich-client: ${e?.message ?? e}\n`);
  process.exitCode = 1;
} finally {
  child.stdin.end();
  await new Promise((r) => child.on('exit', r));
}
