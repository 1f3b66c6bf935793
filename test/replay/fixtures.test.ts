/**
 * The fixtures API as a test suite would use it: a mock agent from a .jsonl fixture driven in-process
 * by a real 2.4.0 SDK client, VCR record modes, and replayClient against a real agent process.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { mockAgent, replayClient, readTranscriptFile, type MockAgent } from '../../src/index.js';
import { ROOT, tempDir } from '../helpers.js';

const FIXTURE = join(ROOT, 'test', 'replay', 'fixtures', 'sdk-example.jsonl');
const CHANGED_AGENT = join(ROOT, 'test', 'replay', 'peers', 'changed-agent.mjs');

let cleanup = () => {};
afterEach(() => { cleanup(); cleanup = () => {}; delete process.env.ACP_INSPECT_RECORD; });

/** A 2.4.0 SDK client session against the mock: initialize, new session, one prompt (or none). */
async function runClient(mock: MockAgent, opts: { prompt?: boolean } = {}) {
  const updates: string[] = [];
  const stop = await acp.client({ name: 'fixture-test' })
    .onRequest('session/request_permission', (ctx) => ({ outcome: { outcome: 'selected', optionId: ctx.params.options[0]!.optionId } }))
    .connectWith(acp.ndJsonStream(mock.writable, mock.readable), async (ctx) => {
      await ctx.request('initialize', { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } });
      return ctx.buildSession('/somewhere/else').withSession(async (session) => {
        if (opts.prompt === false) return 'no prompt';
        session.prompt('Hello, agent!');
        for (;;) {
          const m = await session.nextUpdate();
          if (m.kind === 'stop') return m.stopReason;
          updates.push(m.update.sessionUpdate);
        }
      });
    });
  return { stop, updates };
}

describe('mockAgent fixture', () => {
  it('serves a recorded session to an in-process SDK client and every recorded interaction is used', async () => {
    const mock = await mockAgent({ fixture: FIXTURE });
    const { stop, updates } = await runClient(mock);
    expect(stop).toBe('end_turn');
    expect(updates).toEqual(['agent_message_chunk', 'tool_call', 'tool_call_update', 'agent_message_chunk', 'tool_call', 'tool_call_update', 'agent_message_chunk']);
    mock.assertAllUsed();
    const summary = await mock.close();
    expect(summary).toMatchObject({ matched: 4, unmatched: 0, unused: [] });
  });

  it('assertAllUsed names the recorded interactions a client skipped', async () => {
    const mock = await mockAgent({ fixture: FIXTURE });
    expect(await runClient(mock, { prompt: false })).toMatchObject({ stop: 'no prompt' });
    expect(() => mock.assertAllUsed()).toThrow(/2 recorded client frame\(s\) unused[\s\S]*request session\/prompt[\s\S]*result for session\/request_permission/);
    await mock.close();
  });

  it('mode none refuses a missing fixture with a message saying how to record it', async () => {
    await expect(mockAgent({ fixture: '/nonexistent/x.jsonl' })).rejects.toThrow(/does not exist; record it with mode "once"/);
  });

  it('mode once records the real agent when the fixture is missing, then replays it', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const fixture = join(t.dir, 'fx', 'changed.jsonl');
    const rec = await mockAgent({ fixture, mode: 'once', agent: [process.execPath, CHANGED_AGENT] });
    expect(rec.recording).toBe(true);
    expect((await runClient(rec)).stop).toBe('end_turn');
    await rec.close();
    expect(existsSync(fixture)).toBe(true);
    const frames = readTranscriptFile(fixture).items.filter((i) => i.dir === 'c2a' || i.dir === 'a2c');
    expect(frames.length).toBeGreaterThan(10);

    const replay = await mockAgent({ fixture, mode: 'once', agent: [process.execPath, CHANGED_AGENT] });
    expect(replay.recording).toBe(false);
    expect((await runClient(replay)).stop).toBe('end_turn');
    replay.assertAllUsed();
    await replay.close();
  });

  it('ACP_INSPECT_RECORD=all re-records even when the fixture exists', async () => {
    process.env.ACP_INSPECT_RECORD = 'all';
    await expect(mockAgent({ fixture: FIXTURE })).rejects.toThrow(/mode "all" needs to record/);
  });
});

describe('replayClient fixture', () => {
  it('drives a real agent with the recorded client side and reports what diverged', async () => {
    const r = await replayClient({ fixture: FIXTURE, agent: [process.execPath, CHANGED_AGENT], timeoutMs: 5000, ignore: ['params.update.content.text'] });
    expect(r.equivalent).toBe(false);
    expect(r.summary).toBe('0 changed, 1 missing, 0 extra');
    expect(r.report).toContain('- missing: ← notification session/update tool_call_update');
  });
});
