/** Playbook helpers: build transcripts from frames and run the real parser and checker over them. */
import { parseTranscript } from '../../src/transcript/format.js';
import { checkRecording, type Finding } from '../../src/check/index.js';

export type Step = ['c2a' | 'a2c', unknown] | ['event', string, Record<string, unknown>?] | ['stderr', string];

/** A JSONL transcript; a string frame is written as the exact raw line. */
export function transcript(steps: Step[]): string {
  let t = 0;
  const lines = [JSON.stringify({ acpInspect: 'recording', version: 1 })];
  for (const s of steps) {
    t += 1;
    if (s[0] === 'event') lines.push(JSON.stringify({ t, dir: 'event', type: s[1], data: s[2] ?? {} }));
    else if (s[0] === 'stderr') lines.push(JSON.stringify({ t, dir: 'stderr', raw: s[1] }));
    else lines.push(JSON.stringify({ t, dir: s[0], raw: typeof s[1] === 'string' ? s[1] : JSON.stringify(s[1]) }));
  }
  return lines.join('\n') + '\n';
}

export function check(steps: Step[], ignore?: string[]): Finding[] {
  return checkRecording(parseTranscript(transcript(steps)), ignore ? { ignore } : undefined);
}

export const req = (id: unknown, method: string, params?: unknown) => (params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
export const res = (id: unknown, result: unknown) => ({ jsonrpc: '2.0', id, result });
export const err = (id: unknown, code: number, message = 'failed') => ({ jsonrpc: '2.0', id, error: { code, message } });
export const note = (method: string, params?: unknown) => (params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });

export const CLIENT_INFO = { name: 'test-client', version: '1.0.0' };
export const AGENT_INFO = { name: 'test-agent', version: '1.0.0' };

/** initialize request (id 0) and its answer. */
export function init(clientCapabilities: Record<string, unknown> = {}, agentCapabilities: Record<string, unknown> = {}, authMethods: unknown[] = []): Step[] {
  return [
    ['c2a', req(0, 'initialize', { protocolVersion: 1, clientCapabilities, clientInfo: CLIENT_INFO })],
    ['a2c', res(0, { protocolVersion: 1, agentCapabilities, agentInfo: AGENT_INFO, authMethods })],
  ];
}

/** session/new (id 1) answered with `sid`. */
export function session(sid = 's1', extra: Record<string, unknown> = {}, params: Record<string, unknown> = {}): Step[] {
  return [
    ['c2a', req(1, 'session/new', { cwd: '/work/project', mcpServers: [], ...params })],
    ['a2c', res(1, { sessionId: sid, ...extra })],
  ];
}

export const update = (sid: string, u: Record<string, unknown>) => note('session/update', { sessionId: sid, update: u });
export const chunk = (sid = 's1', text = 'hello') => update(sid, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
export const prompt = (id: unknown, sid = 's1', blocks: unknown[] = [{ type: 'text', text: 'hi' }]) => req(id, 'session/prompt', { sessionId: sid, prompt: blocks });
export const endTurn = (id: unknown, stopReason = 'end_turn') => res(id, { stopReason });

export function rulesOf(findings: Finding[]): string[] {
  return findings.map((f) => f.rule);
}
export function errorsOf(findings: Finding[]): Finding[] {
  return findings.filter((f) => f.severity === 'error');
}
