#!/usr/bin/env node
// A small, fast, complete ACP agent for the probe's tests: it advertises load, list, close, resume,
// fork, modes, config options, embedded context and (with PROBE_AGENT_AUTH=1) an auth method, and
// runs a scripted turn: a few message chunks, a permission request, then end_turn. It honours
// session/cancel and $/cancel_request. PROBE_AGENT_DEFECT=<name> plants one defect (see DEFECTS);
// each is meant to be caught by one probe scenario. PROBE_AGENT_SHORT_TURN=1 makes a turn end almost at once.
// PROBE_AGENT_STORE=DIR keeps each session's history in DIR and, like some real agents, reopens
// (load, resume) only a session that is not open on this connection; with PROBE_AGENT_LOAD_OPEN=wipe
// it loads an open one instead, as gemini does, answering without a replay and wiping the stored history.
// Behaviours of real agents that are no defect (PROBE_AGENT_QUIRKS, comma-separated):
// early-update: an available_commands_update before the session/new answer (as copilot);
// commands-before-turn: a prompt first gets an available_commands_update, and its turn starts 150 ms
// later, a cancel before it being lost (as opencode); permission-after-cancel: a running turn, its chunks
// sent, runs on until a cancel, then asks a permission and waits for its answer before it ends (as auggie);
// late-permission: 50 ms after a turn ended it asks one more permission for that session (as
// claude-agent-acp's tool calls that outlive their turn); permission-before-turn: right after its session/new answer it asks a permission
// for the session (as auggie asks whether to index the folder), and starts no turn of that session until
// it is answered; relative-cwd-exit: a session/new with a relative cwd is answered, and the agent exits (code 1)
// at the next prompt, failing to set up that folder (as auggie); cut-on-stop: once its stdin closes it starts
// a long line on stdout and never ends it, until a signal ends the agent (as qwen-code, stopped while
// writing a 400 KB update); queue-prompts: a prompt sent while a turn runs waits for it to end, then runs
// (with slow-queued-turn, streaming for 7.5 s first, as qwen-code's second turn on a loaded machine).
// PROBE_AGENT_ANONYMOUS=1 leaves agentInfo out of its initialize answer (it is optional), as many agents do.
import { createInterface } from 'node:readline';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const DEFECT = process.env.PROBE_AGENT_DEFECT ?? '';
let badFolder;
const QUIRKS = new Set((process.env.PROBE_AGENT_QUIRKS ?? '').split(',').filter(Boolean));
const AUTH = process.env.PROBE_AGENT_AUTH === '1';
const DEFECTS = [
  'version-echo', 'invalid-params-code', 'unknown-method-result', 'extension-unanswered', 'answers-notifications',
  'unknown-session-ok', 'not-json-exit', 'resource-link-refused', 'cancel-end-turn', 'update-after-cancel',
  'permission-cancel-end-turn', 'fs-without-capability', 'cancel-request-unanswered', 'bogus-mode-ok', 'bogus-config-ok',
  'load-history-after-answer', 'resume-replays-history', 'list-without-array', 'closed-session-prompt-ok', 'fork-same-id',
  'auth-wrong-code', 'crash-in-turn', 'image-accepted', 'initialize-version-2', 'stdout-log', 'concurrent-prompt-unanswered',
];
if (DEFECT && !DEFECTS.includes(DEFECT)) {
  process.stderr.write(`probe-agent: no defect ${DEFECT}\n`);
  process.exit(2);
}

const send = (m) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
const reply = (id, result) => send({ id, result });
const error = (id, code, message) => send({ id, error: { code, message } });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const sessions = new Map(); // id -> { history: update[], mode, config, turn?: { id, cancelled, permissionId? } }
let nextSession = 1;
let nextRequest = 1;
let authenticated = !AUTH;
const waiting = new Map(); // our request id -> resolve

const MODES = [{ id: 'ask', name: 'Ask' }, { id: 'code', name: 'Code' }];
const configOptions = (s) => [{ id: 'model', name: 'Model', type: 'select', currentValue: s.model, options: [{ value: 'small', name: 'Small' }, { value: 'large', name: 'Large' }] }];

const STORE = process.env.PROBE_AGENT_STORE;
const storedFile = (id) => join(STORE, `${String(id).replace(/[^\w-]/g, '_')}.json`);
const opened = new Set(); // sessions created or reopened on this connection

function update(sessionId, u) {
  const s = sessions.get(sessionId);
  s?.history.push(u);
  if (STORE && s) writeFileSync(storedFile(sessionId), JSON.stringify(s.history));
  send({ method: 'session/update', params: { sessionId, update: u } });
}

/** With a store: a session open on this connection cannot be reopened; a stored one is read back. */
function reopenStored(id, sessionId) {
  if (!STORE) return true;
  if (opened.has(sessionId) && process.env.PROBE_AGENT_LOAD_OPEN === 'wipe') {
    sessions.get(sessionId).history = [];
    writeFileSync(storedFile(sessionId), '[]');
    return true;
  }
  if (opened.has(sessionId)) { error(id, -32602, `session ${sessionId} is already loaded`); return false; }
  if (!existsSync(storedFile(sessionId))) { error(id, -32602, 'unknown session'); return false; }
  sessions.set(sessionId, { history: JSON.parse(readFileSync(storedFile(sessionId), 'utf8')), mode: 'ask', model: 'small', cwd: '/', closed: false });
  opened.add(sessionId);
  return true;
}

function request(method, params) {
  const id = nextRequest++;
  send({ id, method, params });
  return new Promise((resolve) => waiting.set(id, resolve));
}

async function turn(id, sessionId, prompt) {
  const s = sessions.get(sessionId);
  // A turn that waited for the session's first permission keeps what it was told meanwhile (a cancel).
  const t = s.turn?.id === id ? s.turn : { id, cancelled: false, dropped: false };
  s.turn = t;
  for (const block of prompt) update(sessionId, { sessionUpdate: 'user_message_chunk', content: block });
  const end = (stopReason) => {
    if (t.dropped) return;
    s.turn = undefined;
    reply(id, { stopReason });
    if (QUIRKS.has('late-permission')) {
      setTimeout(() => void request('session/request_permission', {
        sessionId, toolCall: { toolCallId: `after-${id}`, title: 'Write a file', kind: 'edit', status: 'pending' },
        options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }],
      }), 50);
    }
  };
  if (process.env.PROBE_AGENT_SHORT_TURN === '1') {
    // A turn over at once: one chunk, one turn of the event loop, the answer (cancelled if the cancel was
    // already read by then, as when it came right behind the prompt).
    update(sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'pong' } });
    await new Promise((r) => setImmediate(r));
    return end(t.cancelled ? 'cancelled' : 'end_turn');
  }
  if (DEFECT === 'fs-without-capability') {
    await request('fs/read_text_file', { sessionId, path: `${s.cwd}/probe-readme.txt` });
  }
  const cancelled = async () => {
    if (t.askAfterCancel) {
      // A tool call already under way asks its permission as the cancel arrives, and waits for the answer.
      const a = await request('session/request_permission', {
        sessionId, toolCall: { toolCallId: `late-${id}`, title: 'Write a file', kind: 'edit', status: 'pending' },
        options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }, { optionId: 'reject', name: 'Reject', kind: 'reject_once' }],
      });
      if (a?.result?.outcome?.outcome !== 'cancelled') process.stderr.write('probe-agent: the permission after the cancel was not answered cancelled\n');
      return end('cancelled');
    }
    return end(DEFECT === 'cancel-end-turn' ? 'end_turn' : 'cancelled');
  };
  for (let i = 1; i <= 4; i++) {
    if (t.cancelled) return cancelled();
    update(sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `part ${i} ` } });
    if (DEFECT === 'crash-in-turn' && i === 2) process.exit(3);
    await sleep(40);
  }
  // permission-after-cancel: the tool call under way runs until the cancel comes, however late (a loaded
  // machine), so its permission is always asked after the cancel, never the turn's own before it.
  // cancel-request-unanswered: likewise the turn runs until the cancel comes, so that on a loaded machine it
  // never ends by itself before the probe's $/cancel_request arrives (which would answer it, and pass).
  if ((QUIRKS.has('permission-after-cancel') || DEFECT === 'cancel-request-unanswered') && !t.cancelled) await new Promise((r) => { t.wake = r; });
  if (t.cancelled) return cancelled();
  update(sessionId, { sessionUpdate: 'tool_call', toolCallId: `call-${id}`, title: 'Write a file', kind: 'edit', status: 'pending' });
  const answer = await request('session/request_permission', {
    sessionId,
    toolCall: { toolCallId: `call-${id}`, title: 'Write a file', kind: 'edit', status: 'pending' },
    options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }, { optionId: 'reject', name: 'Reject', kind: 'reject_once' }],
  });
  const outcome = answer?.result?.outcome;
  if (t.cancelled || outcome?.outcome === 'cancelled') {
    update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId: `call-${id}`, status: 'failed' });
    return end(DEFECT === 'permission-cancel-end-turn' || DEFECT === 'cancel-end-turn' ? 'end_turn' : 'cancelled');
  }
  update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId: `call-${id}`, status: outcome?.optionId === 'allow' ? 'completed' : 'failed' });
  update(sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'pong' } });
  end('end_turn');
}

function handle(msg) {
  const { id, method, params = {} } = msg;
  if (method === undefined) { // a response to one of our requests
    waiting.get(id)?.(msg);
    waiting.delete(id);
    return;
  }
  const isRequest = id !== undefined;
  const s = sessions.get(params.sessionId);
  switch (method) {
    case 'initialize':
      return reply(id, {
        protocolVersion: DEFECT === 'version-echo' ? params.protocolVersion : DEFECT === 'initialize-version-2' ? 2 : 1,
        ...(process.env.PROBE_AGENT_ANONYMOUS === '1' ? {} : { agentInfo: { name: 'probe-test-agent', version: '1.0.0' } }),
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: false, audio: false, embeddedContext: true },
          sessionCapabilities: { list: {}, close: {}, resume: {}, fork: {} },
        },
        authMethods: AUTH ? [{ id: 'token', name: 'Token' }] : [],
      });
    case 'authenticate':
      if (params.methodId !== 'token') return error(id, -32602, 'unknown auth method');
      authenticated = true;
      return reply(id, {});
    case 'session/new': {
      if (typeof params.cwd !== 'string' || !Array.isArray(params.mcpServers)) return error(id, DEFECT === 'invalid-params-code' ? -32603 : -32602, 'cwd and mcpServers are required');
      if (!params.cwd.startsWith('/') && QUIRKS.has('relative-cwd-exit')) badFolder = params.cwd;
      else if (!params.cwd.startsWith('/')) return error(id, -32602, 'cwd must be absolute');
      if (!authenticated) return error(id, DEFECT === 'auth-wrong-code' ? -32603 : -32000, 'Authentication required');
      const sessionId = STORE ? `sess-${process.pid}-${nextSession++}` : `sess-${nextSession++}`;
      opened.add(sessionId);
      const sess = { history: [], mode: 'ask', model: 'small', cwd: params.cwd, closed: false };
      sessions.set(sessionId, sess);
      if (QUIRKS.has('early-update')) send({ method: 'session/update', params: { sessionId, update: { sessionUpdate: 'available_commands_update', availableCommands: [] } } });
      reply(id, { sessionId, modes: { currentModeId: 'ask', availableModes: MODES }, configOptions: configOptions(sess) });
      if (QUIRKS.has('permission-before-turn')) {
        sess.gate = request('session/request_permission', {
          sessionId, toolCall: { toolCallId: 'index-folder', title: 'Index the folder' },
          options: [{ optionId: 'index', name: 'Index', kind: 'allow_once' }, { optionId: 'skip', name: 'Skip', kind: 'reject_once' }],
        });
      }
      return;
    }
    case 'session/prompt': {
      if (badFolder) {
        process.stderr.write(`probe-agent: the folder ${badFolder} does not exist\n`);
        process.exit(1);
      }
      if (!s || (s.closed && DEFECT !== 'closed-session-prompt-ok')) {
        if (DEFECT === 'unknown-session-ok' || (s?.closed && DEFECT === 'closed-session-prompt-ok')) return reply(id, { stopReason: 'end_turn' });
        return error(id, -32602, `unknown session ${params.sessionId}`);
      }
      if (s.closed) return reply(id, { stopReason: 'end_turn' });
      const prompt = Array.isArray(params.prompt) ? params.prompt : [];
      for (const b of prompt) {
        if (b.type === 'resource_link' && DEFECT === 'resource-link-refused') return error(id, -32602, 'resource_link is not supported');
        if ((b.type === 'image' && DEFECT !== 'image-accepted') || b.type === 'audio') return error(id, -32602, `${b.type} content is not supported`);
      }
      if (s.turn && DEFECT === 'concurrent-prompt-unanswered') return; // as codex-acp 0.16: never answered
      if (s.turn && QUIRKS.has('queue-prompts')) {
        void (async () => {
          while (s.turn) await sleep(20);
          // slow-queued-turn: the queued turn streams for 7.5 s before it goes on (a long turn, a loaded machine).
          if (QUIRKS.has('slow-queued-turn')) {
            for (let i = 0; i < 25; i++) {
              update(params.sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '.' } });
              await sleep(300);
            }
          }
          void turn(id, params.sessionId, prompt);
        })();
        return;
      }
      if (s.turn) return error(id, -32602, 'a turn is already running on this session');
      if (QUIRKS.has('commands-before-turn')) {
        send({ method: 'session/update', params: { sessionId: params.sessionId, update: { sessionUpdate: 'available_commands_update', availableCommands: [] } } });
        setTimeout(() => void turn(id, params.sessionId, prompt), 150);
        return;
      }
      if (s.gate) {
        s.turn = { id, cancelled: false, dropped: false, waiting: true };
        void s.gate.then(() => turn(id, params.sessionId, prompt));
        return;
      }
      void turn(id, params.sessionId, prompt);
      return;
    }
    case 'session/cancel':
      if (s?.turn) {
        s.turn.cancelled = true;
        if (QUIRKS.has('permission-after-cancel')) s.turn.askAfterCancel = true;
        s.turn.wake?.();
        if (DEFECT === 'update-after-cancel') {
          const t = s.turn;
          setTimeout(() => { if (t.dropped) return; update(params.sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'late' } }); }, 80);
        }
      }
      return;
    case '$/cancel_request':
      for (const sess of sessions.values()) {
        if (sess.turn && sess.turn.id === params.requestId) {
          if (DEFECT === 'cancel-request-unanswered') { sess.turn.dropped = true; sess.turn.cancelled = true; return; }
          sess.turn.cancelled = true;
          sess.turn.wake?.();
        }
      }
      return;
    case 'session/set_mode':
      if (!s) return error(id, -32602, 'unknown session');
      if (!MODES.some((m) => m.id === params.modeId) && DEFECT !== 'bogus-mode-ok') return error(id, -32602, `unknown mode ${params.modeId}`);
      s.mode = params.modeId;
      return reply(id, {});
    case 'session/set_config_option':
      if (!s) return error(id, -32602, 'unknown session');
      if (params.configId !== 'model' || (!['small', 'large'].includes(params.value) && DEFECT !== 'bogus-config-ok')) return error(id, -32602, 'no such config value');
      s.model = params.value;
      return reply(id, { configOptions: configOptions(s) });
    case 'session/load': {
      if (!reopenStored(id, params.sessionId)) return;
      const s = sessions.get(params.sessionId);
      if (!s) return error(id, -32602, 'unknown session');
      const history = [...s.history];
      if (DEFECT === 'load-history-after-answer') {
        reply(id, {});
        for (const u of history) send({ method: 'session/update', params: { sessionId: params.sessionId, update: u } });
        return;
      }
      for (const u of history) send({ method: 'session/update', params: { sessionId: params.sessionId, update: u } });
      return reply(id, { modes: { currentModeId: s.mode, availableModes: MODES } });
    }
    case 'session/resume':
      if (!reopenStored(id, params.sessionId)) return;
      if (!sessions.get(params.sessionId)) return error(id, -32602, 'unknown session');
      if (DEFECT === 'resume-replays-history') update(params.sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'replayed' } });
      return reply(id, {});
    case 'session/list':
      if (DEFECT === 'list-without-array') return reply(id, {});
      return reply(id, { sessions: [...sessions.entries()].filter(([, v]) => !v.closed).map(([sessionId, v]) => ({ sessionId, cwd: v.cwd })) });
    case 'session/close':
      if (!s) return error(id, -32602, 'unknown session');
      s.closed = true;
      if (s.turn) { s.turn.cancelled = true; s.turn.wake?.(); }
      return reply(id, {});
    case 'session/fork': {
      if (!s) return error(id, -32602, 'unknown session');
      if (DEFECT === 'fork-same-id') return reply(id, { sessionId: params.sessionId });
      const sessionId = `sess-${nextSession++}`;
      sessions.set(sessionId, { ...s, history: [...s.history], turn: undefined });
      return reply(id, { sessionId });
    }
    default:
      if (!isRequest) {
        if (DEFECT === 'answers-notifications') error(null, -32601, `Method not found: ${method}`);
        return;
      }
      if (method.startsWith('_')) return DEFECT === 'extension-unanswered' ? undefined : reply(id, {});
      if (DEFECT === 'unknown-method-result') return reply(id, {});
      return error(id, -32601, `Method not found: ${method}`);
  }
}

if (DEFECT === 'stdout-log') process.stdout.write('probe-agent starting\n');
const SLOW_START = (() => {
  const f = process.env.PROBE_AGENT_SLOW_RESTART;
  if (!f) return false;
  const again = existsSync(f);
  appendFileSync(f, 'start\n');
  return again;
})();
const rl = createInterface({ input: process.stdin });
rl.on('line', (line) => {
  if (!line.trim()) return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    if (DEFECT === 'not-json-exit') process.exit(4);
    return send({ id: null, error: { code: -32700, message: 'Parse error' } });
  }
  // PROBE_AGENT_SLOW_RESTART=FILE: every start after the first (FILE counts them) answers initialize
  // 12 s late, as a real agent on a loaded machine.
  if (SLOW_START && msg.method === 'initialize') return void setTimeout(() => handle(msg), 12_000);
  handle(msg);
});
// PROBE_AGENT_LINGER=1: stays up when stdin closes (as codex-acp), =term: ignores SIGTERM as well.
// PROBE_AGENT_PIDFILE=FILE: appends its pid there (a test checks it is gone after the probe).
const LINGER = process.env.PROBE_AGENT_LINGER;
if (process.env.PROBE_AGENT_PIDFILE) appendFileSync(process.env.PROBE_AGENT_PIDFILE, `${process.pid}\n`);
if (LINGER === 'term') process.on('SIGTERM', () => undefined);
rl.on('close', () => {
  if (QUIRKS.has('cut-on-stop')) {
    process.stdout.write(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-0","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"${'x'.repeat(1000)}`);
    setInterval(() => undefined, 60_000);
    return;
  }
  if (LINGER) setInterval(() => undefined, 60_000); else process.exit(0);
});
