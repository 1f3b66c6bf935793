#!/usr/bin/env node
// A small ACP agent for the console's tests, speaking newline-delimited JSON-RPC by hand. Prompts:
//   "files"    streams a plan, asks a permission, reads notes.txt (line 2, limit 1) and writes it
//              with a line added, then reports what happened and ends the turn;
//   "outside"  asks to write a file outside the session's folder;
//   "terminal" runs `echo from-terminal` through terminal/* and reports its output or the error;
//   "watch terminal" runs a command that prints a line, waits for a file "go" in the folder, prints
//              another and exits 3 (the tool call names the terminal; released after it exits);
//   "elicit"   asks for a form (a name, an age, tea or not, a colour) and says what came back;
//   "slow"     streams a chunk every 200 ms until cancelled (then stops with `cancelled`), however long;
//   anything else is echoed back, with a word on each non-text block (attachments). A line that is
//   not JSON gets -32700, as the SDK answers. $/cancel_request for a running prompt answers it -32800.
// Sessions: new, load (replays its history), resume, fork, list, close, delete; a mode and two config
// options (a select and a boolean). `--plain` advertises no prompt capabilities; `--login` is the
// terminal auth method's invocation: it prints a line and exits 0 (with LOGIN_FAIL=1 in its env: 3;
// with LOGIN_WAIT=1 it starts a helper process, writes its pid to login-helper.pid and never ends).
import { join } from 'node:path';

if (process.argv.includes('--login') && process.env.LOGIN_WAIT === '1') {
  // A login that waits for ever, with a helper process of its own (its pid in login-helper.pid).
  const { spawn } = await import('node:child_process');
  const { writeFileSync } = await import('node:fs');
  const helper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  writeFileSync('login-helper.pid', String(helper.pid));
  process.stdout.write('waiting for a browser that never comes\n');
  setInterval(() => {}, 1000);
  await new Promise(() => {}); // the agent below never starts
} else if (process.argv.includes('--login')) {
  process.stdout.write(`logging in as ${process.env.LOGIN_USER ?? 'nobody'}\n`);
  process.exit(process.env.LOGIN_FAIL === '1' ? 3 : 0);
}
const plain = process.argv.includes('--plain');

let nextId = 0;
const waiting = new Map();
const sessions = new Map();
/** The prompts of each session (what session/load replays). */
const history = new Map();
/** The running prompt request of each session, by its id (for $/cancel_request). */
const runningPrompts = new Map();
const configs = new Map();
/** Whether the client advertised session.configOptions.boolean: only then is the boolean option offered. */
let booleanOptions = false;
const configOptions = (c) => [
  { id: 'model', name: 'Model', category: 'model', type: 'select', currentValue: c.model, options: [{ value: 'fast', name: 'Fast' }, { value: 'smart', name: 'Smart' }] },
  ...(booleanOptions ? [{ id: 'verbose', name: 'Verbose', type: 'boolean', currentValue: c.verbose }] : []),
];
const opened = (sessionId, cwd) => {
  sessions.set(sessionId, cwd);
  if (!history.has(sessionId)) history.set(sessionId, []);
  if (!configs.has(sessionId)) configs.set(sessionId, { model: 'fast', verbose: false });
  return { configOptions: configOptions(configs.get(sessionId)), modes: { currentModeId: 'ask', availableModes: [{ id: 'ask', name: 'Ask' }, { id: 'code', name: 'Code' }] } };
};
let cancelled = new Set();
let made = 0;
/** Prompt requests already answered -32800: their turn sends no second answer. */
const cancelledRequests = new Set();

const send = (m) => {
  // A prompt answered -32800 after $/cancel_request is not answered again when its turn stops.
  if (m.method === undefined && cancelledRequests.delete(JSON.stringify(m.id)) && !m.error) return;
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
};
const ask = (method, params) => new Promise((resolve) => {
  const id = nextId++;
  waiting.set(id, resolve);
  send({ id, method, params });
});
const update = (sessionId, u) => send({ method: 'session/update', params: { sessionId, update: u } });
const say = (sessionId, text) => update(sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const errText = (r) => `error ${r.error.code}: ${r.error.message}`;

async function prompt(id, p) {
  const sid = p.sessionId;
  const cwd = sessions.get(sid);
  const text = (p.prompt ?? []).map((b) => b.text ?? '').join('');
  cancelled.delete(sid);
  if (text === 'files') {
    const file = join(cwd, 'notes.txt');
    update(sid, { sessionUpdate: 'plan', entries: [{ content: 'Read notes.txt', status: 'in_progress', priority: 'high' }, { content: 'Append a line', status: 'pending', priority: 'medium' }] });
    update(sid, { sessionUpdate: 'tool_call', toolCallId: 'edit-1', title: 'Edit notes.txt', kind: 'edit', status: 'pending', locations: [{ path: file }] });
    const perm = await ask('session/request_permission', {
      sessionId: sid,
      toolCall: { toolCallId: 'edit-1', title: 'Edit notes.txt', kind: 'edit' },
      options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }, { optionId: 'reject', name: 'Reject', kind: 'reject_once' }],
    });
    const outcome = perm.result?.outcome;
    if (outcome?.outcome !== 'selected' || outcome.optionId !== 'allow') {
      update(sid, { sessionUpdate: 'tool_call_update', toolCallId: 'edit-1', status: 'failed' });
      say(sid, `not allowed (${JSON.stringify(outcome)})`);
      return send({ id, result: { stopReason: outcome?.outcome === 'cancelled' ? 'cancelled' : 'end_turn' } });
    }
    update(sid, { sessionUpdate: 'tool_call_update', toolCallId: 'edit-1', status: 'in_progress' });
    const read = await ask('fs/read_text_file', { sessionId: sid, path: file, line: 2, limit: 1 });
    say(sid, read.error ? `read failed: ${errText(read)}. ` : `line 2 reads "${read.result.content}". `);
    const whole = await ask('fs/read_text_file', { sessionId: sid, path: file });
    const before = whole.result?.content ?? '';
    const after = `${before}added by the agent\n`;
    const write = await ask('fs/write_text_file', { sessionId: sid, path: file, content: after });
    if (write.error) {
      update(sid, { sessionUpdate: 'tool_call_update', toolCallId: 'edit-1', status: 'failed' });
      say(sid, `write refused: ${errText(write)}`);
    } else {
      update(sid, { sessionUpdate: 'tool_call_update', toolCallId: 'edit-1', status: 'completed', content: [{ type: 'diff', path: file, oldText: before, newText: after }] });
      say(sid, 'wrote notes.txt');
    }
    update(sid, { sessionUpdate: 'plan', entries: [{ content: 'Read notes.txt', status: 'completed', priority: 'high' }, { content: 'Append a line', status: 'completed', priority: 'medium' }] });
    return send({ id, result: { stopReason: 'end_turn' } });
  }
  if (text === 'outside') {
    const w = await ask('fs/write_text_file', { sessionId: sid, path: join(cwd, '..', 'outside.txt'), content: 'escaped\n' });
    say(sid, w.error ? `write refused: ${errText(w)}` : 'wrote outside.txt');
    return send({ id, result: { stopReason: 'end_turn' } });
  }
  if (text === 'terminal') {
    const t = await ask('terminal/create', { sessionId: sid, command: 'echo', args: ['from-terminal'] });
    if (t.error) {
      say(sid, `terminal refused: ${errText(t)}`);
      return send({ id, result: { stopReason: 'end_turn' } });
    }
    const terminalId = t.result.terminalId;
    update(sid, { sessionUpdate: 'tool_call', toolCallId: 'term-1', title: 'echo from-terminal', kind: 'execute', status: 'in_progress', content: [{ type: 'terminal', terminalId }] });
    await ask('terminal/wait_for_exit', { sessionId: sid, terminalId });
    const out = await ask('terminal/output', { sessionId: sid, terminalId });
    await ask('terminal/release', { sessionId: sid, terminalId });
    update(sid, { sessionUpdate: 'tool_call_update', toolCallId: 'term-1', status: 'completed' });
    say(sid, `terminal said: ${out.result.output.trim()}`);
    return send({ id, result: { stopReason: 'end_turn' } });
  }
  if (text === 'watch terminal') {
    // A command that prints, waits for a file named "go" in the folder, prints again and exits 3:
    // its output is shown while it runs, then its exit; the terminal is released after.
    const script = "console.log('step one'); const fs = require('fs'); const t = setInterval(() => { if (fs.existsSync('go')) { clearInterval(t); console.log('step two'); process.exit(3); } }, 50);";
    const t = await ask('terminal/create', { sessionId: sid, command: process.execPath, args: ['-e', script], cwd });
    if (t.error) {
      say(sid, `terminal refused: ${errText(t)}`);
      return send({ id, result: { stopReason: 'end_turn' } });
    }
    const terminalId = t.result.terminalId;
    update(sid, { sessionUpdate: 'tool_call', toolCallId: 'watch-1', title: 'wait for go', kind: 'execute', status: 'in_progress', content: [{ type: 'terminal', terminalId }] });
    const exit = await ask('terminal/wait_for_exit', { sessionId: sid, terminalId });
    await ask('terminal/release', { sessionId: sid, terminalId });
    update(sid, { sessionUpdate: 'tool_call_update', toolCallId: 'watch-1', status: exit.result?.exitCode === 0 ? 'completed' : 'failed' });
    say(sid, `the command exited ${exit.result?.exitCode}`);
    return send({ id, result: { stopReason: 'end_turn' } });
  }
  if (text === 'elicit') {
    const r = await ask('elicitation/create', {
      sessionId: sid, mode: 'form', message: 'Who is asking?',
      requestedSchema: { type: 'object', required: ['name'], properties: {
        name: { type: 'string', title: 'Name' }, age: { type: 'integer', title: 'Age' }, tea: { type: 'boolean', title: 'Tea', default: false },
        colour: { type: 'string', title: 'Colour', oneOf: [{ const: 'r', title: 'Red' }, { const: 'b', title: 'Blue' }] },
      } },
    });
    say(sid, `elicited ${JSON.stringify(r.result ?? r.error)}`);
    return send({ id, result: { stopReason: 'end_turn' } });
  }
  if (text === 'slow') {
    // Stopped by session/cancel, or by $/cancel_request for this very prompt; else it streams until the
    // client goes (no turn length of its own: a test that cancels must not race a clock).
    for (let i = 0; !cancelled.has(sid) && !cancelledRequests.has(JSON.stringify(id)); i++) {
      say(sid, `chunk ${i} `);
      await sleep(200);
    }
    return send({ id, result: { stopReason: cancelled.has(sid) ? 'cancelled' : 'end_turn' } });
  }
  const blocks = (p.prompt ?? []).filter((b) => b.type !== 'text').map((b) =>
    b.type === 'resource_link' ? `[resource_link ${b.name} ${b.uri}]`
      : b.type === 'resource' ? `[resource ${b.resource.uri} ${'text' in b.resource ? `text ${JSON.stringify(b.resource.text)}` : `blob ${Buffer.from(b.resource.blob, 'base64').length} bytes`}]`
        : `[${b.type} ${b.mimeType} ${Buffer.from(b.data ?? '', 'base64').length} bytes]`);
  say(sid, `echo: ${text}${blocks.length ? ` ${blocks.join(' ')}` : ''}`);
  history.get(sid)?.push(text);
  send({ id, result: { stopReason: 'end_turn' } });
}

let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buf += chunk;
  let nl;
  while ((nl = buf.indexOf('\n')) !== -1) {
    const line = buf.slice(0, nl).trim();
    buf = buf.slice(nl + 1);
    if (line) handle(line);
  }
});
process.stdin.on('end', () => process.exit(0));

function handle(line) {
  let m;
  try { m = JSON.parse(line); } catch { return send({ id: null, error: { code: -32700, message: 'Parse error' } }); }
  if (m.method === undefined && m.id !== undefined && waiting.has(m.id)) {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    return w(m);
  }
  const p = m.params ?? {};
  switch (m.method) {
    case 'initialize':
      booleanOptions = p.clientCapabilities?.session?.configOptions?.boolean != null;
      return send({ id: m.id, result: { protocolVersion: 1,
        agentCapabilities: { loadSession: true, sessionCapabilities: { list: {}, close: {}, fork: {}, resume: {}, delete: {} }, ...(plain ? {} : { promptCapabilities: { image: true, audio: true, embeddedContext: true } }) },
        agentInfo: { name: 'console-test-agent', version: '1.0.0' },
        authMethods: [{ id: 'token', name: 'Token', description: 'a test token' },
          // A terminal method only for a client that can run one (the spec's rule).
          ...(p.clientCapabilities?.auth?.terminal === true ? [{ id: 'login', name: 'Log in', type: 'terminal', args: ['--login'], env: { LOGIN_USER: 'ada' } }, { id: 'broken', name: 'Broken login', type: 'terminal', args: ['--login'], env: { LOGIN_FAIL: '1' } },
            { id: 'slow', name: 'Slow login', type: 'terminal', args: ['--login'], env: { LOGIN_WAIT: '1' } }] : [])] } });
    case 'authenticate':
      return send({ id: m.id, result: {} });
    case 'session/new': {
      const sessionId = `sess-${++made}`;
      send({ id: m.id, result: { sessionId, ...opened(sessionId, p.cwd) } });
      return update(sessionId, { sessionUpdate: 'available_commands_update', availableCommands: [
        { name: 'files', description: 'Edit notes.txt', input: null }, { name: 'echo', description: 'Say it back', input: { hint: 'what to say' } }] });
    }
    case 'session/fork': {
      const sessionId = `sess-${++made}`;
      history.set(sessionId, [...(history.get(p.sessionId) ?? [])]);
      return send({ id: m.id, result: { sessionId, ...opened(sessionId, p.cwd) } });
    }
    case 'session/load':
    case 'session/resume': {
      if (!history.has(p.sessionId)) return send({ id: m.id, error: { code: -32002, message: `Resource not found: ${p.sessionId}` } });
      sessions.set(p.sessionId, p.cwd);
      // load streams the history back first; resume does not.
      if (m.method === 'session/load') for (const t of history.get(p.sessionId)) update(p.sessionId, { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: t } });
      return send({ id: m.id, result: opened(p.sessionId, p.cwd) });
    }
    case 'session/delete':
      sessions.delete(p.sessionId);
      history.delete(p.sessionId);
      return send({ id: m.id, result: {} });
    case 'session/set_config_option': {
      const c = configs.get(p.sessionId);
      if (!c || !(p.configId in c)) return send({ id: m.id, error: { code: -32602, message: `no config option ${p.configId}` } });
      c[p.configId] = p.value;
      send({ id: m.id, result: { configOptions: configOptions(c) } });
      // The agent may change another option on its own: a smart model talks more.
      if (p.configId === 'model' && p.value === 'smart' && !c.verbose) {
        c.verbose = true;
        update(p.sessionId, { sessionUpdate: 'config_option_update', configOptions: configOptions(c) });
      }
      return undefined;
    }
    case 'session/list':
      // Every session not deleted, open or closed (a closed one can be loaded or resumed again).
      return send({ id: m.id, result: { sessions: [...history.keys()].map((sessionId) => ({ sessionId, cwd: p.cwd ?? sessions.get(sessionId) ?? '/', title: `title of ${sessionId}` })) } });
    case 'session/close':
      sessions.delete(p.sessionId);
      return send({ id: m.id, result: {} });
    case 'session/set_mode':
      send({ id: m.id, result: {} });
      return update(p.sessionId, { sessionUpdate: 'current_mode_update', currentModeId: p.modeId });
    case 'session/prompt':
      runningPrompts.set(JSON.stringify(m.id), p.sessionId);
      return void prompt(m.id, p).finally(() => runningPrompts.delete(JSON.stringify(m.id)));
    case '$/cancel_request': {
      if (!runningPrompts.has(JSON.stringify(p.requestId))) return undefined;
      runningPrompts.delete(JSON.stringify(p.requestId));
      send({ id: p.requestId, error: { code: -32800, message: 'Request cancelled' } });
      cancelledRequests.add(JSON.stringify(p.requestId));
      return undefined;
    }
    case 'session/cancel':
      cancelled.add(p.sessionId);
      return undefined;
    default:
      if (m.id !== undefined && m.method !== undefined) send({ id: m.id, error: { code: -32601, message: `Method not found: ${m.method}` } });
      return undefined;
  }
}
