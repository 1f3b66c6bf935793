import { describe, expect, it } from 'vitest';
import { AgentReplayer, type Effect, NO_MATCH_CODE } from '../../src/replay/agent-replayer.js';
import { MALFORMED_LINE } from '../../src/replay/faults.js';
import { chunk, recordingOf, req, res, typicalSession, upd } from './helpers.js';

const sent = (effects: Effect[]) => effects.filter((e) => e.type === 'send').map((e) => JSON.parse((e as { line: string }).line));
const logs = (effects: Effect[]) => effects.filter((e) => e.type === 'log').map((e) => (e as { text: string }).text).join('\n');
const line = (o: unknown) => JSON.stringify(o);

describe('AgentReplayer (mock agent playbooks)', () => {
  it('plays a whole recorded session to a client with other ids, another cwd and another prompt', () => {
    const r = new AgentReplayer(typicalSession('/home/rec/proj'));
    expect(r.start()).toEqual([]);
    expect(sent(r.receive(line(req('a', 'initialize', { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true } } })))))
      .toEqual([{ jsonrpc: '2.0', id: 'a', result: { protocolVersion: 1, agentCapabilities: {} } }]);
    expect(sent(r.receive(line(req('b', 'session/new', { cwd: '/tmp/live', mcpServers: [] })))))
      .toEqual([{ jsonrpc: '2.0', id: 'b', result: { sessionId: 'sess-rec-1' } }]);
    const turn = r.receive(line(req('c', 'session/prompt', { sessionId: 'sess-rec-1', prompt: [{ type: 'text', text: 'other words' }] })));
    const out = sent(turn);
    expect(out.map((m) => m.method)).toEqual(['session/update', 'session/update', 'session/request_permission']);
    // The recorded path under the recorded cwd now points into the live cwd.
    expect(out[1].params.update.locations[0].path).toBe('/tmp/live/src/a.ts');
    expect(logs(turn)).toContain('params.prompt[0].text: recorded "fix it", live "other words"');
    const after = sent(r.receive(line(res(out[2].id, { outcome: { outcome: 'selected', optionId: 'opt-allow-1' } }))));
    expect(after.map((m) => m.method ?? `result ${m.id}`)).toEqual(['session/update', 'session/update', 'result c']);
    expect(after[2].result).toEqual({ stopReason: 'end_turn' });
    const { summary } = r.end();
    expect(summary).toMatchObject({ matched: 4, changed: 1, unmatched: 0, unused: [], unsent: 0 });
  });

  it('answers a request the recording cannot match with a JSON-RPC error saying why, and shows the nearest and a diff', () => {
    const r = new AgentReplayer(typicalSession());
    const effects = r.receive(line(req(5, 'session/load', { sessionId: 'x', cwd: '/a', mcpServers: [] })));
    const [err] = sent(effects);
    expect(err).toMatchObject({ id: 5, error: { code: NO_MATCH_CODE } });
    expect(err.error.message).toContain('no recorded session/load matches: the recording has no request session/load from the client');
    const text = logs(effects);
    expect(text).toContain('✗ no match for live request session/load (id 5)');
    expect(text).toContain('nearest recorded: #1 request initialize');
    expect(text).toMatch(/^ {4}--- recorded #1$/m);
  });

  it('holds back a response until the request it answers was matched (client reordered its requests)', () => {
    const r = new AgentReplayer(recordingOf([
      ['c2a', req(1, 'fs/a', {})],
      ['c2a', req(2, 'fs/b', {})],
      ['a2c', res(2, { b: true })],
      ['a2c', res(1, { a: true })],
    ]));
    expect(sent(r.receive(line(req(20, 'fs/b', {}))))).toEqual([{ jsonrpc: '2.0', id: 20, result: { b: true } }]);
    expect(sent(r.receive(line(req(10, 'fs/a', {}))))).toEqual([{ jsonrpc: '2.0', id: 10, result: { a: true } }]);
  });

  it('learns a terminal id from the live client and uses it in later agent frames', () => {
    const r = new AgentReplayer(recordingOf([
      ['c2a', req(1, 'session/prompt', { sessionId: 's', prompt: [] })],
      ['a2c', req(0, 'terminal/create', { sessionId: 's', command: 'ls' })],
      ['c2a', res(0, { terminalId: 'term-rec' })],
      ['a2c', upd('s', { sessionUpdate: 'tool_call', toolCallId: 't', content: [{ type: 'terminal', terminalId: 'term-rec' }] })],
      ['a2c', req(1, 'terminal/output', { sessionId: 's', terminalId: 'term-rec' })],
    ]));
    r.receive(line(req(1, 'session/prompt', { sessionId: 's', prompt: [] })));
    const out = sent(r.receive(line(res(0, { terminalId: 'term-live-9' }))));
    expect(out[0].params.update.content[0].terminalId).toBe('term-live-9');
    expect(out[1].params.terminalId).toBe('term-live-9');
  });

  it('paces frames as recorded divided by the speed factor', () => {
    const rec = recordingOf([['c2a', req(1, 'session/prompt', {}), 0], ['a2c', chunk('s', 'a'), 1000], ['a2c', chunk('s', 'b'), 3000]]);
    const delays = (speed: number) => new AgentReplayer(rec, { speed }).receive(line(req(1, 'session/prompt', {})))
      .filter((e) => e.type === 'send').map((e) => (e as { delayMs: number }).delayMs);
    expect(delays(0)).toEqual([0, 0]);
    expect(delays(1)).toEqual([1000, 2000]);
    expect(delays(4)).toEqual([250, 500]);
  });

  it('injects faults: drop, duplicate, error-for, a malformed line, and a kill after N frames', () => {
    const rec = typicalSession();
    const drive = (faults: ConstructorParameters<typeof AgentReplayer>[1]) => {
      const r = new AgentReplayer(rec, faults);
      const out: Effect[] = [];
      out.push(...r.receive(line(req(0, 'initialize', {}))));
      out.push(...r.receive(line(req(1, 'session/new', { cwd: '/home/rec/proj', mcpServers: [] }))));
      out.push(...r.receive(line(req(2, 'session/prompt', { sessionId: 'sess-rec-1', prompt: [] }))));
      return out;
    };
    const lines = (o: Effect[]) => o.filter((e) => e.type === 'send').map((e) => (e as { line: string }).line);
    expect(lines(drive({ faults: { drop: ['session/update:tool_call'] } })).filter((l) => l.includes('"tool_call"'))).toHaveLength(0);
    expect(lines(drive({ faults: { duplicate: ['session/update'] } })).filter((l) => l.includes('Looking.'))).toHaveLength(2);
    const errored = sent(drive({ faults: { errorFor: ['session/new'] } }));
    expect(errored[1]).toMatchObject({ id: 1, error: { code: -32603 } });
    expect(lines(drive({ faults: { malformedAfter: 2 } }))[2]).toBe(MALFORMED_LINE);
    const killed = drive({ faults: { killAfter: 1 } });
    expect(lines(killed)).toHaveLength(1);
    expect(killed.some((e) => e.type === 'close')).toBe(true);
  });

  it('replies to a line that is not JSON like an SDK agent does, and reports unused recorded frames at the end', () => {
    const r = new AgentReplayer(typicalSession());
    expect(sent(r.receive('not json'))).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }]);
    const { summary, effects } = r.end();
    expect(summary.unused.map((f) => f.seq)).toEqual([1, 3, 5, 9]);
    expect(logs(effects)).toContain('4 recorded client frames were never used: #1 request initialize');
  });
});

describe('AgentReplayer: answers that differ', () => {
  it('reports a client that picked another permission option than the recording', () => {
    const r = new AgentReplayer(typicalSession());
    r.receive(line(req(0, 'initialize', {})));
    r.receive(line(req(1, 'session/new', { cwd: '/home/rec/proj', mcpServers: [] })));
    r.receive(line(req(2, 'session/prompt', { sessionId: 'sess-rec-1', prompt: [{ type: 'text', text: 'fix it' }] })));
    const effects = r.receive(line(res(0, { outcome: { outcome: 'selected', optionId: 'opt-reject-1' } })));
    expect(logs(effects)).toContain('result.outcome.optionId: recorded "opt-allow-1", live "opt-reject-1"');
  });
});

describe('AgentReplayer: stdout pollution in the recording', () => {
  it('replays the garbage line and does not make the next answer wait for the client parse error', () => {
    const r = new AgentReplayer(recordingOf([
      ['a2c', 'Starting agent v1...'],
      ['c2a', req(0, 'initialize', {})],
      ['c2a', { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }],
      ['a2c', res(0, { protocolVersion: 1 })],
    ]));
    expect(r.start()).toEqual([{ type: 'send', line: 'Starting agent v1...', delayMs: 0 }]);
    expect(sent(r.receive(line(req(0, 'initialize', {}))))).toEqual([{ jsonrpc: '2.0', id: 0, result: { protocolVersion: 1 } }]);
    expect(r.end().summary.unused).toEqual([]);
  });
});

describe('AgentReplayer: client frames sent back to back', () => {
  it('plays a turn when the client sends the first request of a recorded burst, holding the other answer back', () => {
    const r = new AgentReplayer(recordingOf([
      ['c2a', req(2, 'session/prompt', { sessionId: 's', prompt: [] })],
      ['c2a', req(3, 'session/set_mode', { sessionId: 's', modeId: 'fast' })],
      ['a2c', chunk('s', 'hi')],
      ['a2c', res(3, {})],
      ['a2c', res(2, { stopReason: 'end_turn' })],
    ]));
    const first = sent(r.receive(line(req(20, 'session/prompt', { sessionId: 's', prompt: [] }))));
    expect(first.map((m) => m.method ?? m.id)).toEqual(['session/update', 20]);
    expect(sent(r.receive(line(req(30, 'session/set_mode', { sessionId: 's', modeId: 'fast' }))))).toEqual([{ jsonrpc: '2.0', id: 30, result: {} }]);
  });
});
