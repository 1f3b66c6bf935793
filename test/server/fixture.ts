/**
 * Builds realistic ACP traffic for server and UI tests: an initialize handshake, a session, a prompt
 * turn with streamed chunks, a tool call with a permission request, an fs read, a diff, a plan, a
 * stop reason; plus stderr lines, an error response and a line that is not JSON. Items go through
 * the real wire code (frameFromText + Correlator) and the real store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Correlator, frameFromText, type Direction, type Item } from '../../src/wire/index.js';
import { Store } from '../../src/store/store.js';
import { parseTranscript, serializeTranscript } from '../../src/transcript/format.js';

export class ItemBuilder {
  seq = 0;
  t = 0;
  private corr = new Correlator();
  items: Item[] = [];

  frame(dir: Direction, msg: unknown, dt = 3): Item {
    this.t += dt;
    const raw = typeof msg === 'string' ? msg : JSON.stringify(msg);
    const f = frameFromText(++this.seq, this.t, dir, raw);
    this.corr.observe(f);
    this.items.push(f);
    return f;
  }

  stderr(line: string, dt = 1): Item {
    this.t += dt;
    const it: Item = { seq: ++this.seq, t: this.t, dir: 'stderr', raw: line };
    this.items.push(it);
    return it;
  }

  /** Takes the items built since the last call. */
  take(): Item[] {
    const out = this.items;
    this.items = [];
    return out;
  }
}

export const SID = 'sess-1';

/** The handshake and session set-up. */
export function handshake(b: ItemBuilder): void {
  b.frame('c2a', { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false }, clientInfo: { name: 'test-editor', version: '1.2.3' } } });
  b.stderr('agent: starting up');
  b.frame('a2c', { jsonrpc: '2.0', id: 0, result: { protocolVersion: 1, agentCapabilities: { loadSession: false }, agentInfo: { name: 'test-agent', version: '0.9.0' }, authMethods: [] } }, 12);
  b.frame('c2a', { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/home/dev/project', mcpServers: [] } });
  b.frame('a2c', { jsonrpc: '2.0', id: 1, result: { sessionId: SID } }, 20);
}

const upd = (update: Record<string, unknown>) => ({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: SID, update } });

/** One complete prompt turn with `reqId` for the prompt. */
export function promptTurn(b: ItemBuilder, reqId: number, text: string): void {
  b.frame('c2a', { jsonrpc: '2.0', id: reqId, method: 'session/prompt', params: { sessionId: SID, prompt: [{ type: 'text', text }] } });
  b.frame('a2c', upd({ sessionUpdate: 'plan', entries: [{ content: 'Read the file', status: 'in_progress', priority: 'high' }, { content: 'Fix the bug', status: 'pending', priority: 'medium' }] }));
  b.frame('a2c', upd({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'I will **read** the file ' } }));
  b.frame('a2c', upd({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '`main.ts` first.\n\n- one\n- two <script>alert(1)</script>' } }));
  b.frame('a2c', upd({ sessionUpdate: 'tool_call', toolCallId: `call-${reqId}`, title: 'Edit main.ts', kind: 'edit', status: 'pending' }));
  b.frame('a2c', { jsonrpc: '2.0', id: 100 + reqId, method: 'session/request_permission', params: { sessionId: SID, toolCall: { toolCallId: `call-${reqId}`, title: 'Edit main.ts' }, options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }, { optionId: 'reject', name: 'Reject', kind: 'reject_once' }] } });
  b.frame('c2a', { jsonrpc: '2.0', id: 100 + reqId, result: { outcome: { outcome: 'selected', optionId: 'allow' } } }, 1500);
  b.frame('a2c', { jsonrpc: '2.0', id: 200 + reqId, method: 'fs/read_text_file', params: { sessionId: SID, path: '/home/dev/project/main.ts' } });
  b.frame('c2a', { jsonrpc: '2.0', id: 200 + reqId, result: { content: 'const a = 1;\nconsole.log(a);\n' } }, 4);
  b.frame('a2c', upd({ sessionUpdate: 'tool_call_update', toolCallId: `call-${reqId}`, status: 'in_progress' }));
  b.frame('a2c', upd({ sessionUpdate: 'tool_call_update', toolCallId: `call-${reqId}`, status: 'completed', content: [{ type: 'diff', path: '/home/dev/project/main.ts', oldText: 'const a = 1;\nconsole.log(a);\n', newText: 'const a = 2;\nconsole.log(a);\n' }] }));
  b.frame('a2c', upd({ sessionUpdate: 'plan', entries: [{ content: 'Read the file', status: 'completed', priority: 'high' }, { content: 'Fix the bug', status: 'completed', priority: 'medium' }] }));
  b.frame('a2c', upd({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: ' Done.' } }));
  b.frame('a2c', { jsonrpc: '2.0', id: reqId, result: { stopReason: 'end_turn' } }, 30);
}

/** A temp folder with a database holding one finished recording; returns its path and the id. */
export function makeDb(opts: { turns?: number; extraMethods?: boolean } = {}): { dir: string; dbPath: string; id: number; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'acp-inspect-ui-'));
  const dbPath = join(dir, 'recordings.sqlite');
  const store = Store.open(dbPath);
  const b = new ItemBuilder();
  handshake(b);
  for (let i = 0; i < (opts.turns ?? 2); i++) promptTurn(b, 2 + i, i === 0 ? 'Fix the bug in main.ts' : `Turn number ${i + 1}`);
  if (opts.extraMethods !== false) {
    b.frame('c2a', { jsonrpc: '2.0', id: 50, method: 'session/set_mode', params: { sessionId: SID, modeId: 'nope' } });
    b.frame('a2c', { jsonrpc: '2.0', id: 50, error: { code: -32602, message: 'Invalid params: unknown mode' } }, 2);
    b.frame('a2c', 'this is not json, an agent logging to stdout');
  }
  const id = store.createRecording({ name: 'fixture session', status: 'complete', command: ['test-agent', '--stdio'] });
  store.appendItems(id, b.take());
  store.updateRecording(id, { agent_name: 'test-agent', agent_version: '0.9.0', client_name: 'test-editor', client_version: '1.2.3', protocol_version: 1, ended_at: new Date().toISOString() });
  store.appendFindings(id, [
    { seq: b.seq - 1, severity: 'error', rule: 'fixture-error-rule', message: 'set_mode with a mode id that was never advertised', spec: '4.4 rule 8' },
    { seq: b.seq, severity: 'warning', rule: 'fixture-stdout-pollution', message: 'a line on stdout that is not JSON', spec: '3' },
  ]);
  store.close();
  return { dir, dbPath, id, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Adds a recording of about `n` items (repeated prompt turns) to the database; returns its id. */
export function addBigRecording(dbPath: string, n: number, name = 'big session'): number {
  const store = Store.open(dbPath);
  try {
    const b = new ItemBuilder();
    handshake(b);
    const id = store.createRecording({ name, status: 'complete', command: ['big-agent'] });
    let reqId = 2;
    while (b.seq < n) {
      promptTurn(b, reqId++, `Turn ${reqId}`);
      if (b.items.length >= 5000) store.appendItems(id, b.take());
    }
    store.appendItems(id, b.take());
    store.appendFindings(id, [{ seq: b.seq, severity: 'warning', rule: 'fixture-last', message: 'the last item', spec: '9' }]);
    return id;
  } finally {
    store.close();
  }
}

/**
 * Adds a re-run of recording `sourceId` as another recording: other session ids and cwd (volatile),
 * another prompt text (a change), the line that is not JSON gone (missing), one update more (extra).
 */
export function addVariantRecording(dbPath: string, sourceId: number, name = 'variant run'): number {
  const store = Store.open(dbPath);
  try {
    const text = serializeTranscript(store.loadRecording(sourceId))
      .replaceAll(SID, 'sess-other-run')
      .replaceAll('/home/dev/project', '/tmp/elsewhere')
      .replace('Turn number 2', 'Turn number two')
      .split('\n').filter((l) => !l.includes('this is not json')).join('\n')
      + `\n${JSON.stringify({ dir: 'a2c', raw: JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'sess-other-run', update: { sessionUpdate: 'available_commands_update', availableCommands: [] } } }) })}\n`;
    return store.importRecording(parseTranscript(text), name);
  } finally {
    store.close();
  }
}
