/** Small builders for replay playbooks: recordings from JSON-RPC objects, live frames from objects. */
import { parseTranscript, type Recording } from '../../src/transcript/format.js';
import { frameFromText } from '../../src/wire/make-frame.js';
import type { Direction, Frame } from '../../src/wire/frame.js';

export type Step = [Direction, unknown, number?];

/** A recording of the given frames, `t` 10 ms apart unless given. */
export function recordingOf(steps: Step[], cwd?: string): Recording {
  const header = JSON.stringify({ acpInspect: 'recording', version: 1, ...(cwd ? { cwd } : {}) });
  const lines = steps.map(([dir, msg, t], i) => JSON.stringify({ t: t ?? i * 10, dir, raw: typeof msg === 'string' ? msg : JSON.stringify(msg) }));
  return parseTranscript([header, ...lines].join('\n'));
}

let liveSeq = 1000;
/** A live frame (seq numbers far from recorded ones). */
export function live(dir: Direction, msg: unknown): Frame {
  return frameFromText(++liveSeq, 0, dir, typeof msg === 'string' ? msg : JSON.stringify(msg));
}

export const req = (id: number | string, method: string, params: unknown = {}) => ({ jsonrpc: '2.0', id, method, params });
export const note = (method: string, params: unknown = {}) => ({ jsonrpc: '2.0', method, params });
export const res = (id: number | string, result: unknown = {}) => ({ jsonrpc: '2.0', id, result });
export const upd = (sessionId: string, update: Record<string, unknown>) => note('session/update', { sessionId, update });
export const chunk = (sessionId: string, text: string) => upd(sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });

/** A typical recorded session: initialize, session/new in cwd, one prompt turn with a permission request. */
export function typicalSession(cwd = '/home/rec/proj', sid = 'sess-rec-1'): Recording {
  return recordingOf([
    ['c2a', req(0, 'initialize', { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true } } })],
    ['a2c', res(0, { protocolVersion: 1, agentCapabilities: {} })],
    ['c2a', req(1, 'session/new', { cwd, mcpServers: [] })],
    ['a2c', res(1, { sessionId: sid })],
    ['c2a', req(2, 'session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: 'fix it' }] })],
    ['a2c', chunk(sid, 'Looking.')],
    ['a2c', upd(sid, { sessionUpdate: 'tool_call', toolCallId: 'call_1', title: 'Edit', kind: 'edit', status: 'pending', locations: [{ path: `${cwd}/src/a.ts` }] })],
    ['a2c', req(0, 'session/request_permission', { sessionId: sid, toolCall: { toolCallId: 'call_1' }, options: [{ kind: 'allow_once', name: 'Allow', optionId: 'opt-allow-1' }, { kind: 'reject_once', name: 'No', optionId: 'opt-reject-1' }] })],
    ['c2a', res(0, { outcome: { outcome: 'selected', optionId: 'opt-allow-1' } })],
    ['a2c', upd(sid, { sessionUpdate: 'tool_call_update', toolCallId: 'call_1', status: 'completed' })],
    ['a2c', chunk(sid, 'Done.')],
    ['a2c', res(2, { stopReason: 'end_turn' })],
  ], cwd);
}
