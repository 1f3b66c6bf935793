#!/usr/bin/env node
// A small but complete ACP client for the client probe's tests: fs on the real disk, terminals as
// real child processes, permissions answered with the first option, -32601 for unknown methods.
// PROBE_DEFECT plants one defect (see DEFECTS). With an agent command after `--` it spawns the agent;
// without one it speaks ACP on its own stdin/stdout. It sends one prompt (PROBE_PROMPT), then exits
// and writes {stopReason, updates, text} as JSON to stderr's last line (or to PROBE_OUT).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const DEFECTS = new Set([
  'read-ignores-line-limit', 'missing-file-empty', 'write-ignored', 'output-waits-for-exit', 'truncate-keeps-start',
  'truncate-splits-char', 'truncated-flag-false', 'kill-invalidates-id', 'release-keeps-id', 'release-leaves-running',
  'permission-unoffered-option', 'unknown-method-wrong-code', 'crash-on-unknown-update', 'cancel-request-drops',
  'stop-answers-selected', 'truncated-always-true', 'cancel-on-unknown-update', 'write-answer-not-jsonrpc',
  'permission-always-cancelled',
]);
// PROBE_PRESS_STOP=1: like a person pressing Stop while a permission request is shown (session/cancel,
// then the pending request answered cancelled; with stop-answers-selected, answered with an option).
const pressStop = process.env.PROBE_PRESS_STOP === '1';
const defect = process.env.PROBE_DEFECT ?? '';
if (defect && !DEFECTS.has(defect)) { process.stderr.write(`probe-client: unknown defect ${defect}\n`); process.exit(2); }

const sep = process.argv.indexOf('--');
const agentCmd = sep >= 0 ? process.argv.slice(sep + 1) : [];
let input = process.stdin;
let output = process.stdout;
let agent;
if (agentCmd.length) {
  agent = spawn(agentCmd[0], agentCmd.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
  input = agent.stdout;
  output = agent.stdin;
}

let nextId = 0;
const pending = new Map();
const send = (msg) => output.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
const request = (method, params) => new Promise((resolve) => { const id = nextId++; pending.set(id, resolve); send({ id, method, params }); });

const updates = [];
let cancelled = false;
let text = '';
const terminals = new Map();
const children = [];
const permissionTimers = new Map();

function truncate(buf, limit) {
  if (limit == null || buf.length <= limit) return { bytes: buf, truncated: false };
  if (defect === 'truncate-keeps-start') return { bytes: buf.subarray(0, limit), truncated: true };
  let start = buf.length - limit;
  if (defect !== 'truncate-splits-char') while (start < buf.length && (buf[start] & 0xc0) === 0x80) start++;
  return { bytes: buf.subarray(start), truncated: true };
}

function exitStatus(t) {
  return t.exit ? { exitCode: t.exit.code, signal: t.exit.signal } : null;
}

const handlers = {
  'session/request_permission'(p, id) {
    if (pressStop) {
      send({ method: 'session/cancel', params: { sessionId: p.sessionId } });
      const outcome = defect === 'stop-answers-selected' ? { outcome: 'selected', optionId: p.options[0].optionId } : { outcome: 'cancelled' };
      setTimeout(() => send({ id, result: { outcome } }), 20);
      return undefined;
    }
    const optionId = defect === 'permission-unoffered-option' ? 'always-yes' : p.options[0].optionId;
    const outcome = defect === 'permission-always-cancelled' ? { outcome: 'cancelled' } : { outcome: 'selected', optionId };
    // Answered a moment later, so a $/cancel_request can find it pending.
    permissionTimers.set(id, setTimeout(() => { permissionTimers.delete(id); send({ id, result: { outcome } }); }, 30));
    return undefined;
  },
  'fs/read_text_file'(p) {
    let content;
    try { content = readFileSync(p.path, 'utf8'); } catch {
      if (defect === 'missing-file-empty') return { content: '' };
      throw Object.assign(new Error(`file not found: ${p.path}`), { code: -32002 });
    }
    if (defect !== 'read-ignores-line-limit' && (p.line != null || p.limit != null)) {
      const lines = content.split(/(?<=\n)/);
      const from = Math.max(0, (p.line ?? 1) - 1);
      content = lines.slice(from, p.limit != null ? from + p.limit : undefined).join('');
    }
    return { content };
  },
  'fs/write_text_file'(p, id) {
    if (defect !== 'write-ignored') writeFileSync(p.path, p.content);
    // A response the probe can read, but not a JSON-RPC 2.0 one: only the checker sees it.
    if (defect === 'write-answer-not-jsonrpc') return void output.write(`${JSON.stringify({ id, result: {} })}\n`);
    return {};
  },
  'terminal/create'(p) {
    const id = `term-${terminals.size + 1}`;
    const child = spawn(p.command, p.args ?? [], { cwd: p.cwd ?? undefined, env: { ...process.env, ...Object.fromEntries((p.env ?? []).map((e) => [e.name, e.value])) }, stdio: ['ignore', 'pipe', 'pipe'] });
    const t = { child, out: Buffer.alloc(0), limit: p.outputByteLimit, exit: null, waiters: [] };
    const onData = (c) => { t.out = Buffer.concat([t.out, c]); };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('close', (code, signal) => { t.exit = { code, signal }; for (const w of t.waiters.splice(0)) w(); });
    terminals.set(id, t);
    children.push(child);
    return { terminalId: id };
  },
  async 'terminal/output'(p) {
    const t = live(p.terminalId);
    if (defect === 'output-waits-for-exit' && !t.exit) await new Promise((r) => t.waiters.push(r));
    const { bytes, truncated } = truncate(t.out, t.limit);
    return { output: bytes.toString('utf8'), truncated: defect === 'truncated-flag-false' ? false : defect === 'truncated-always-true' || truncated, exitStatus: exitStatus(t) };
  },
  async 'terminal/wait_for_exit'(p) {
    const t = live(p.terminalId);
    if (!t.exit) await new Promise((r) => t.waiters.push(r));
    return { exitCode: t.exit.code, signal: t.exit.signal };
  },
  'terminal/kill'(p) {
    const t = live(p.terminalId);
    t.child.kill('SIGKILL');
    if (defect === 'kill-invalidates-id') terminals.delete(p.terminalId);
    return {};
  },
  'terminal/release'(p) {
    const t = live(p.terminalId);
    if (defect !== 'release-leaves-running') t.child.kill('SIGKILL');
    if (defect !== 'release-keeps-id') terminals.delete(p.terminalId);
    return {};
  },
};

function live(id) {
  const t = terminals.get(id);
  if (!t) throw Object.assign(new Error(`unknown terminal ${id}`), { code: -32602 });
  return t;
}

function onNotification(msg) {
  if (msg.method === 'session/update') {
    const u = msg.params.update;
    updates.push(u.sessionUpdate);
    if (defect === 'crash-on-unknown-update' && !KNOWN.has(u.sessionUpdate)) throw new Error(`unknown update ${u.sessionUpdate}`);
    if (defect === 'cancel-on-unknown-update' && !KNOWN.has(u.sessionUpdate) && !cancelled) {
      cancelled = true;
      send({ method: 'session/cancel', params: { sessionId: msg.params.sessionId } });
    }
    if (u.sessionUpdate === 'agent_message_chunk' && u.content?.type === 'text') text += u.content.text;
  } else if (msg.method === '$/cancel_request') {
    const id = msg.params.requestId;
    const timer = permissionTimers.get(id);
    if (timer && defect !== 'cancel-request-drops') {
      clearTimeout(timer);
      permissionTimers.delete(id);
      send({ id, result: { outcome: { outcome: 'cancelled' } } });
    } else if (timer) {
      clearTimeout(timer);
      permissionTimers.delete(id);
    }
  }
}
const KNOWN = new Set(['user_message_chunk', 'agent_message_chunk', 'agent_thought_chunk', 'tool_call', 'tool_call_update', 'plan',
  'available_commands_update', 'current_mode_update', 'config_option_update', 'session_info_update', 'usage_update']);

async function onRequest(msg) {
  const h = handlers[msg.method];
  if (!h) {
    if (defect === 'unknown-method-wrong-code') return send({ id: msg.id, error: { code: -32603, message: 'internal error' } });
    return send({ id: msg.id, error: { code: -32601, message: `method not found: ${msg.method}` } });
  }
  try {
    const result = await h(msg.params, msg.id);
    if (result !== undefined) send({ id: msg.id, result });
  } catch (e) {
    send({ id: msg.id, error: { code: e.code ?? -32603, message: e.message } });
  }
}

let buf = '';
input.on('data', (chunk) => {
  buf += chunk.toString('utf8');
  let nl;
  while ((nl = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    if (!line.trim()) continue;
    const msg = JSON.parse(line);
    if (msg.method && msg.id !== undefined) void onRequest(msg);
    else if (msg.method) onNotification(msg);
    else pending.get(msg.id)?.(msg);
  }
});

const init = await request('initialize', {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
  clientInfo: { name: 'probe-test-client', version: '1.0.0' },
});
const session = await request('session/new', { cwd: process.env.PROBE_CWD ?? process.cwd(), mcpServers: [] });
const prompts = (process.env.PROBE_PROMPT ?? 'Hello').split('\n---\n');
const results = [];
for (const p of prompts) {
  const r = await request('session/prompt', { sessionId: session.result.sessionId, prompt: [{ type: 'text', text: p }] });
  results.push(r.result?.stopReason ?? r.error);
}
const summary = JSON.stringify({ agent: init.result?.agentInfo, stopReasons: results, updates: updates.length, text });
if (process.env.PROBE_OUT) writeFileSync(process.env.PROBE_OUT, summary);
else process.stderr.write(`${summary}\n`);
for (const c of children) c.kill('SIGKILL');
if (agent) { agent.stdin.end(); agent.kill('SIGTERM'); }
process.exit(0);
