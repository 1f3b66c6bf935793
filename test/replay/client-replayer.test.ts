import { describe, expect, it } from 'vitest';
import { ClientReplayer } from '../../src/replay/client-replayer.js';
import type { Effect } from '../../src/replay/agent-replayer.js';
import { renderDivergences } from '../../src/replay/report.js';
import { chunk, req, res, typicalSession, upd } from './helpers.js';

const sent = (effects: Effect[]) => effects.filter((e) => e.type === 'send').map((e) => JSON.parse((e as { line: string }).line));
const line = (o: unknown) => JSON.stringify(o);

/** A scripted live agent: new session id, new tool call id, new option ids, another cwd. */
function liveAgentTurn(sid: string, cwd: string): string[] {
  return [
    chunk(sid, 'Looking.'),
    upd(sid, { sessionUpdate: 'tool_call', toolCallId: 'tc-77', title: 'Edit', kind: 'edit', status: 'pending', locations: [{ path: `${cwd}/src/a.ts` }] }),
    req(5, 'session/request_permission', { sessionId: sid, toolCall: { toolCallId: 'tc-77' }, options: [{ kind: 'allow_once', name: 'Allow', optionId: 'yes-1' }, { kind: 'reject_once', name: 'No', optionId: 'no-1' }] }),
  ].map(line);
}

describe('ClientReplayer (mock client playbooks)', () => {
  it('sends client frames in causal order, answers the agent from the recording and finds no divergence', () => {
    const cwd = '/tmp/live-cwd';
    const r = new ClientReplayer(typicalSession('/home/rec/proj'), { cwd, timeoutMs: 1000 });
    const first = sent(r.start(0));
    expect(first).toEqual([{ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true } } } }]);
    // session/new waits for the initialize response, then carries the live cwd.
    expect(sent(r.receive(line(res(0, { protocolVersion: 1, agentCapabilities: {} })), 1))[0].params.cwd).toBe(cwd);
    // The prompt carries the live session id.
    expect(sent(r.receive(line(res(1, { sessionId: 'live-S' })), 2))[0]).toMatchObject({ method: 'session/prompt', params: { sessionId: 'live-S' } });
    for (const l of liveAgentTurn('live-S', cwd)) {
      const out = sent(r.receive(l, 3));
      if (l.includes('request_permission')) {
        // Answered with the recorded choice, mapped to the live option id and the live request id.
        expect(out).toEqual([{ jsonrpc: '2.0', id: 5, result: { outcome: { outcome: 'selected', optionId: 'yes-1' } } }]);
      }
    }
    r.receive(line(upd('live-S', { sessionUpdate: 'tool_call_update', toolCallId: 'tc-77', status: 'completed' })), 4);
    r.receive(line(chunk('live-S', 'Done.')), 5);
    expect(r.isDone(5)).toBe(false);
    r.receive(line(res(2, { stopReason: 'end_turn' })), 6);
    expect(r.isDone(6)).toBe(true);
    expect(r.finish()).toMatchObject({ equivalent: true, divergences: [], matched: 8, ended: 'complete' });
  });

  it('reports changed, missing and extra agent frames with a readable unified diff', () => {
    const r = new ClientReplayer(typicalSession(), { timeoutMs: 1000 });
    r.start(0);
    r.receive(line(res(0, { protocolVersion: 1, agentCapabilities: {} })), 1);
    r.receive(line(res(1, { sessionId: 'live-S' })), 2);
    r.receive(line(chunk('live-S', 'Looking around.')), 3);
    r.receive(line(upd('live-S', { sessionUpdate: 'plan', entries: [] })), 4);
    r.receive(line(res(2, { stopReason: 'end_turn' })), 5);
    expect(r.isDone(5)).toBe(false);
    // No progress for the timeout: the replay gives up waiting.
    expect(r.isDone(1006)).toBe(true);
    const result = r.finish();
    expect(result.equivalent).toBe(false);
    const kinds = result.divergences.map((d) => d.kind).sort();
    expect(kinds).toEqual(['changed', 'extra', 'missing', 'missing', 'missing', 'missing']);
    const text = renderDivergences(result.divergences, { map: r.map });
    expect(text).toContain('~ changed: ← notification session/update agent_message_chunk');
    expect(text).toContain('-        "text": "Looking.",');
    expect(text).toContain('+        "text": "Looking around.",');
    expect(text).toContain('+ extra: ← notification session/update plan');
    expect(text).toContain('- missing: ← request session/request_permission');
  });

  it('moves on after the timeout when an expected agent frame never comes', () => {
    const r = new ClientReplayer(typicalSession(), { timeoutMs: 500 });
    r.start(0);
    // The agent talks, but not the initialize response the next client frame waits for.
    r.receive(line(chunk('x', 'noise')), 50);
    expect(sent(r.tick(100))).toEqual([]);
    const effects = r.tick(600);
    expect(sent(effects)[0]).toMatchObject({ method: 'session/new' });
    expect(effects.find((e) => e.type === 'log')).toMatchObject({ text: expect.stringContaining('waited 500ms for 1 agent frame') });
  });

  it('gives up when the agent says nothing at all within the timeout', () => {
    const r = new ClientReplayer(typicalSession(), { timeoutMs: 500 });
    r.start(0);
    expect(r.tick(600)).toEqual([{ type: 'log', text: 'replay: the agent sent nothing within 500ms; giving up' }]);
    expect(r.isDone()).toBe(true);
    expect(r.finish().ended).toBe('timeout');
  });
});
