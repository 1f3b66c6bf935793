/**
 * A large recording for the UI bench, written straight into a SQLite file through the store (the same
 * code the recorder writes with) from frames made by the real wire code (frameFromText + Correlator):
 * a handshake, two sessions taking turns, each prompt turn a plan, streamed message chunks, a tool
 * call with a permission request and an fs read, tool call updates with a diff; every 50th turn a
 * set_mode the agent refuses (an error response) and a line on stdout that is not JSON; stderr lines
 * now and then. The checker then runs over it (as `import` does), so its findings are real.
 *
 * Generated in-process rather than as a transcript then `acp-inspect import`: import reads the whole
 * file into memory, which for a million frames costs more than the UI being measured.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const WORDS = ['the', 'parser', 'reads', 'a', 'token', 'stream', 'and', 'builds', 'an', 'index', 'over', 'files', 'so', 'lookups', 'stay', 'fast', 'when', 'project', 'grows', 'large'];

/** Builds a recording of about `n` items in `dbPath`; returns { id, items, frames, findings, ms: { items, check } }. */
export async function buildUiRecording(root, dbPath, n) {
  const dist = (p) => pathToFileURL(join(root, 'dist', 'src', p)).href;
  const { Store } = await import(dist('store/store.js'));
  const { frameFromText } = await import(dist('wire/make-frame.js'));
  const { Correlator } = await import(dist('wire/correlate.js'));
  const { checkStoredRecording } = await import(dist('check-run/stored.js'));
  const store = Store.open(dbPath);
  try {
    const t0 = performance.now();
    const id = store.createRecording({ name: 'million frames', status: 'complete', command: ['bench-agent', '--stdio'] });
    const corr = new Correlator();
    let seq = 0;
    let t = 0;
    let batch = [];
    const put = (dir, msg, dt = 2) => {
      t += dt;
      const f = frameFromText(++seq, t, dir, typeof msg === 'string' ? msg : JSON.stringify(msg));
      corr.observe(f);
      batch.push(f);
    };
    const stderr = (line) => { t += 1; batch.push({ seq: ++seq, t, dir: 'stderr', raw: line }); };
    const flush = () => { if (batch.length) store.appendItems(id, batch); batch = []; };
    put('c2a', { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false }, clientInfo: { name: 'bench-editor', version: '1.0.0' } } });
    put('a2c', { jsonrpc: '2.0', id: 0, result: { protocolVersion: 1, agentCapabilities: { loadSession: false }, agentInfo: { name: 'bench-agent', version: '1.0.0' }, authMethods: [] } }, 12);
    const sessions = ['sess-alpha', 'sess-beta'];
    let rid = 1;
    for (const s of sessions) {
      put('c2a', { jsonrpc: '2.0', id: rid, method: 'session/new', params: { cwd: `/home/dev/${s}`, mcpServers: [] } });
      put('a2c', { jsonrpc: '2.0', id: rid++, result: { sessionId: s } }, 20);
    }
    let turn = 0;
    while (seq < n) {
      turn++;
      const sid = sessions[turn % 2];
      const upd = (update) => ({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: sid, update } });
      const pid = rid++;
      const call = `call-${turn}`;
      const file = `/home/dev/${sid}/src/module${turn % 997}.ts`;
      put('c2a', { jsonrpc: '2.0', id: pid, method: 'session/prompt', params: { sessionId: sid, prompt: [{ type: 'text', text: `Turn ${turn}: fix the failing test in module${turn % 997}.ts` }] } });
      put('a2c', upd({ sessionUpdate: 'plan', entries: [{ content: 'Read the file', status: 'in_progress', priority: 'high' }, { content: 'Fix the bug', status: 'pending', priority: 'medium' }] }));
      for (let k = 0; k < 8; k++) {
        const w = (turn * 7 + k * 3) % WORDS.length;
        put('a2c', upd({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${WORDS[w]} ${WORDS[(w + 5) % WORDS.length]} ${WORDS[(w + 11) % WORDS.length]} (${turn}.${k}) ` } }), 1);
      }
      put('a2c', upd({ sessionUpdate: 'tool_call', toolCallId: call, title: `Edit module${turn % 997}.ts`, kind: 'edit', status: 'pending', locations: [{ path: file }] }));
      const perm = rid++;
      put('a2c', { jsonrpc: '2.0', id: perm, method: 'session/request_permission', params: { sessionId: sid, toolCall: { toolCallId: call, title: `Edit module${turn % 997}.ts` }, options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }, { optionId: 'reject', name: 'Reject', kind: 'reject_once' }] } });
      put('c2a', { jsonrpc: '2.0', id: perm, result: { outcome: { outcome: 'selected', optionId: 'allow' } } }, 400);
      const rd = rid++;
      put('a2c', { jsonrpc: '2.0', id: rd, method: 'fs/read_text_file', params: { sessionId: sid, path: file } });
      put('c2a', { jsonrpc: '2.0', id: rd, result: { content: `export const value = ${turn};\n` } }, 3);
      put('a2c', upd({ sessionUpdate: 'tool_call_update', toolCallId: call, status: 'in_progress' }));
      put('a2c', upd({ sessionUpdate: 'tool_call_update', toolCallId: call, status: 'completed', content: [{ type: 'diff', path: file, oldText: `export const value = ${turn};\n`, newText: `export const value = ${turn + 1};\n` }] }));
      put('a2c', upd({ sessionUpdate: 'plan', entries: [{ content: 'Read the file', status: 'completed', priority: 'high' }, { content: 'Fix the bug', status: 'completed', priority: 'medium' }] }));
      for (let k = 0; k < 4; k++) put('a2c', upd({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `done with step ${k} of turn ${turn}. ` } }), 1);
      if (turn % 50 === 0) {
        const m = rid++;
        put('c2a', { jsonrpc: '2.0', id: m, method: 'session/set_mode', params: { sessionId: sid, modeId: 'turbo' } });
        put('a2c', { jsonrpc: '2.0', id: m, error: { code: -32602, message: 'Invalid params: unknown mode turbo' } }, 2);
        put('a2c', `agent debug: turn ${turn} took the slow path`);
      }
      if (turn % 20 === 0) stderr(`[agent] turn ${turn}: cache hit ratio 0.${turn % 100}`);
      put('a2c', { jsonrpc: '2.0', id: pid, result: { stopReason: 'end_turn' } }, 30);
      if (batch.length >= 20_000) flush();
    }
    flush();
    store.updateRecording(id, { agent_name: 'bench-agent', agent_version: '1.0.0', client_name: 'bench-editor', client_version: '1.0.0', protocol_version: 1, ended_at: new Date().toISOString() });
    const t1 = performance.now();
    const findings = checkStoredRecording(store, id).length;
    const t2 = performance.now();
    const rec = store.getRecording(id);
    return { id, items: rec.items, frames: rec.frames, findings, turns: turn, ms: { items: t1 - t0, check: t2 - t1 } };
  } finally {
    store.close();
  }
}

/** The same figures for a recording built before (its build times unknown). */
export async function describeUiRecording(root, dbPath) {
  const { Store } = await import(pathToFileURL(join(root, 'dist', 'src', 'store', 'store.js')).href);
  const store = Store.open(dbPath);
  try {
    const rec = store.getRecording(1);
    const turns = store.db.prepare(`SELECT COUNT(*) AS n FROM items WHERE recording_id = 1 AND method = 'session/prompt' AND kind = 'request'`).get().n;
    return { id: 1, items: rec.items, frames: rec.frames, findings: rec.errors + rec.warnings + rec.infos, turns, ms: { items: NaN, check: NaN } };
  } finally {
    store.close();
  }
}
