/**
 * The tap as a stdio↔remote bridge (`acp-inspect -- http://…/acp`, `ws://…/acp`): the SDK's stdio
 * client drives the real binary through real pipes, the bridge speaks the SDK's remote transport to
 * the SDK's own server hosting a test agent, and the recording lands in a real SQLite file.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { cli } from '../helpers.js';
import { parseTranscript } from '../../src/transcript/format.js';
import type { EventItem, Frame, Item } from '../../src/wire/frame.js';
import { agentLog, closedPort, initialize, newSession, prompt, startRemoteAgent, testScope, throughBridge, type RemoteAgent } from './helpers.js';

const { defer, scope: setUp } = testScope(afterEach);

async function agentIn(dir: string, args: string[] = []): Promise<RemoteAgent> {
  const a = await startRemoteAgent(dir, args);
  defer(() => a.stop());
  return a;
}

async function recording(db: string): Promise<Item[]> {
  const r = await cli(['export', 'latest', '--db', db, '--no-redact']);
  expect(r.code, r.stderr).toBe(0);
  return parseTranscript(r.stdout.toString()).items;
}

const frames = (items: Item[], dir: 'c2a' | 'a2c') => items.filter((i): i is Frame => i.dir === dir).map((f) => f.json);
const transport = (items: Item[]) => items.filter((i): i is EventItem => i.dir === 'event' && i.type === 'transport').map((e) => e.data as Record<string, any>);
/** Messages in a canonical order (a remote agent's messages come on several streams; only each stream's order is kept). */
const sorted = (msgs: unknown[]) => msgs.map((m) => JSON.stringify(m)).sort();

describe('the tap bridges stdio to a remote agent', () => {
  for (const scheme of ['http', 'ws'] as const) {
    it(`over ${scheme === 'http' ? 'Streamable HTTP' : 'WebSocket'}: every message is identical on both sides, two sessions run to the end, and the recording has the transport`, async () => {
      const { db, dir } = setUp();
      const agent = await agentIn(dir, ['--auth', 's3cr3t-token-value']);
      const url = scheme === 'http' ? agent.url : agent.url.replace(/^http/, 'ws');
      const run = await throughBridge(db, url, async (ctx) => {
        await initialize(ctx);
        const [a, b] = [await newSession(ctx), await newSession(ctx)];
        // Two sessions on one connection, their turns at once.
        const [ra, rb] = await Promise.all([prompt(ctx, a.sessionId, 'hello'), prompt(ctx, b.sessionId, 'permission')]);
        return [ra.stopReason, rb.stopReason];
      }, { args: ['--header', 'Authorization: Bearer ${ACP_TEST_TOKEN}'], env: { ACP_TEST_TOKEN: 's3cr3t-token-value' } });
      expect(run.error, run.stderr).toBeUndefined();
      expect(run.result).toEqual(['end_turn', 'end_turn']);
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');

      // The client, the agent and the recording saw the same messages.
      const seen = agentLog(agent);
      expect(seen.in).toEqual(run.sent);
      expect(sorted(seen.out)).toEqual(sorted(run.received));
      const items = await recording(db);
      expect(frames(items, 'c2a')).toEqual(run.sent);
      expect(frames(items, 'a2c')).toEqual(run.received);
      expect(run.received.some((m: any) => m.method === 'session/request_permission')).toBe(true);

      const meta = transport(items);
      expect(meta[0]).toMatchObject({ op: 'connect', transport: scheme, url, requestHeaders: { authorization: '<redacted>' } });
      if (scheme === 'http') {
        const posts = meta.filter((m) => m.op === 'post');
        expect(posts[0]).toMatchObject({ method: 'POST', status: 200, rpc: { method: 'initialize' } });
        expect(posts.slice(1).every((p) => p.status === 202 && p.connectionId === posts[0]!.connectionId)).toBe(true);
        const opened = meta.filter((m) => m.op === 'sse-open');
        expect(opened.map((m) => m.stream).sort()).toEqual(['connection', 'session', 'session']);
        // A session's messages come on its own stream, with its id.
        const updates = meta.filter((m) => m.op === 'sse-message' && m.rpc.method === 'session/update');
        expect(updates.length).toBeGreaterThan(0);
        expect(updates.every((m) => m.stream === 'session' && typeof m.sessionId === 'string')).toBe(true);
        expect(meta.some((m) => m.op === 'delete' && m.status === 202)).toBe(true);
        // `show` puts each exchange in a few words beside its frames.
        const show = (await cli(['show', 'latest', '--db', db])).stdout.toString();
        expect(show).toMatch(/• transport {2}POST 200 initialize #0\n/);
        expect(show).toMatch(/• transport {2}POST 202 session\/prompt #\d+ session \S+\n/);
        expect(show).toMatch(/• transport {2}GET 200 session stream \S+\n/);
        expect(show).toMatch(/• transport {2}SSE session stream \S+ → session\/update\n/);
      } else {
        expect(meta.find((m) => m.op === 'ws-open')).toMatchObject({ status: 101, connectionId: expect.any(String) });
        expect(meta.find((m) => m.op === 'ws-close')).toMatchObject({ code: 1005 });
      }
      // Credentials were redacted before they were written: the token is nowhere in the database.
      expect(readFileSync(db).includes('s3cr3t-token-value')).toBe(false);

      // The protocol rules and the transport rules find nothing wrong with the SDK on both ends.
      const check = await cli(['check', 'latest', '--db', db, '--json']);
      const findings = check.stdout.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { rule: string; severity: string });
      expect(findings.filter((f) => f.severity === 'error' || f.rule.startsWith('transport-')), check.stdout.toString()).toEqual([]);
    });
  }
});

describe('the end of the editor\'s input', () => {
  const INIT = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}\n';

  it('closes the connection once what the editor asked is answered, as an agent on stdio answers what it read', async () => {
    const { db, dir } = setUp();
    const agent = await agentIn(dir);
    const r = await cli(['--db', db, '--', agent.url], { input: INIT });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.toString())).toMatchObject({ id: 0, result: { protocolVersion: 1 } });
    const meta = transport(await recording(db));
    expect(meta.map((m) => m.op).filter((op) => op === 'post' || op === 'delete')).toEqual(['post', 'delete']);
  });

  it('still says why, and answers, when the connection fails after it', async () => {
    const { db } = setUp();
    const r = await cli(['--db', db, '--', `http://127.0.0.1:${await closedPort()}/acp`], { input: INIT });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^acp-inspect: cannot reach the remote agent at .*: connection refused/);
    expect(JSON.parse(r.stdout.toString())).toMatchObject({ id: 0, error: { code: -32603 } });
  });
});

describe('transport faults of a remote agent', () => {
  it('a 200 where the agent should answer 202 Accepted is flagged at its POST, and the session still runs', async () => {
    const { db, dir } = setUp();
    const agent = await agentIn(dir, ['--fault', 'status-200']);
    const run = await throughBridge(db, agent.url, async (ctx) => {
      await initialize(ctx);
      const s = await newSession(ctx);
      await ctx.notify(acp.methods.agent.session.cancel, { sessionId: s.sessionId });
      return (await prompt(ctx, s.sessionId, 'hello')).stopReason;
    });
    expect(run.result, run.stderr).toBe('end_turn');
    const items = await recording(db);
    const check = await cli(['check', 'latest', '--db', db, '--json']);
    const found = check.stdout.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { rule: string; seq: number; message: string }).filter((f) => f.rule === 'transport-accepted-status');
    // Each finding is at the POST's transport event, right after the frame it carried.
    const at = (seq: number) => items.find((i) => i.seq === seq) as EventItem;
    const carried = found.map((f) => (at(f.seq).data as Record<string, any>).rpc);
    expect(carried.map((r) => r.method ?? r.kind).sort()).toEqual(['session/cancel', 'session/new', 'session/prompt']);
    expect(found.find((f) => (at(f.seq).data as Record<string, any>).rpc.method === 'session/cancel')!.message).toBe('the agent answered the POST of notification session/cancel with 200, not 202 Accepted');
    // (The editor may send its next message while a POST is in flight: the event names its message by id and method.)
    for (const f of found) {
      const rpc = (at(f.seq).data as Record<string, any>).rpc;
      expect(items.some((i) => i.dir === 'c2a' && i.seq < f.seq && (i.json as any).method === rpc.method && (i.json as any).id === rpc.id)).toBe(true);
    }
    // The cancel was POSTed: nothing says it was not sent.
    expect(transport(items).filter((m) => m.op === 'not-sent')).toEqual([]);
  });
});

describe('a remote agent that cannot be reached or used', () => {
  /** The editor's initialize got a JSON-RPC error from the tap, which printed one line and exited 1. */
  async function refused(db: string, target: string, args: string[] = []) {
    const run = await throughBridge(db, target, (ctx) => initialize(ctx), { args });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n'), run.stderr).toHaveLength(1);
    expect(run.error).toMatchObject({ code: -32603 });
    expect(run.received).toEqual([expect.objectContaining({ id: 0, error: expect.objectContaining({ code: -32603, message: run.stderr.trim() }) })]);
    const items = await recording(db);
    const meta = transport(items);
    expect(meta.some((m) => m.op === 'error' && `acp-inspect: ${m.message}` === run.stderr.trim())).toBe(true);
    expect(meta.some((m) => m.op === 'answered-by-tap' && m.rpc.id === 0)).toBe(true);
    return run;
  }

  it('an unreachable URL: one line, an error for the pending request, the recording says so', async () => {
    const { db } = setUp();
    const port = await closedPort();
    const run = await refused(db, `http://127.0.0.1:${port}/acp`);
    expect(run.stderr).toMatch(/^acp-inspect: cannot reach the remote agent at http:\/\/127\.0\.0\.1:\d+\/acp: connection refused/);
  });

  it('an unreachable WebSocket URL likewise', async () => {
    const { db } = setUp();
    const port = await closedPort();
    const run = await refused(db, `ws://127.0.0.1:${port}/acp`);
    expect(run.stderr).toMatch(/cannot reach the remote agent at ws:\/\/127\.0\.0\.1:\d+\/acp: connection refused/);
  });

  it('a TLS error (https to a server that does not speak TLS)', async () => {
    const { db, dir } = setUp();
    const agent = await agentIn(dir);
    const run = await refused(db, agent.url.replace(/^http/, 'https'));
    expect(run.stderr).toMatch(/^acp-inspect: TLS error with the remote agent at https:/);
  });

  for (const scheme of ['http', 'ws'] as const) {
    it(`a 401 over ${scheme}: the line says the credentials were refused and how to give them`, async () => {
      const { db, dir } = setUp();
      const agent = await agentIn(dir, ['--auth', 'right']);
      const run = await refused(db, scheme === 'http' ? agent.url : agent.url.replace(/^http/, 'ws'), ['--header', 'Authorization: Bearer wrong']);
      expect(run.stderr).toContain('refused the credentials (HTTP 401');
      expect(run.stderr).toContain("--header 'Authorization: Bearer …'");
    });
  }

  for (const scheme of ['http', 'ws'] as const) {
    it(`a stream dropped mid-turn over ${scheme}: what came is forwarded, the turn gets an error, nothing hangs`, async () => {
      const { db, dir } = setUp();
      const agent = await agentIn(dir);
      const run = await throughBridge(db, scheme === 'http' ? agent.url : agent.url.replace(/^http/, 'ws'), async (ctx) => {
        await initialize(ctx);
        const s = await newSession(ctx);
        return prompt(ctx, s.sessionId, 'drop');
      });
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split('\n'), run.stderr).toHaveLength(1);
      expect(run.error).toMatchObject({ code: -32603 });
      expect(run.stderr).toMatch(new RegExp(`^acp-inspect: the connection to the remote agent at ${scheme}://127\\.0\\.0\\.1:\\d+/acp dropped`));
      expect(run.received.some((m: any) => m.method === 'session/update' && m.params.update.content.text === 'about to drop')).toBe(true);
      const items = await recording(db);
      const meta = transport(items);
      expect(meta.some((m) => m.op === 'error')).toBe(true);
      expect(meta.some((m) => m.op === 'answered-by-tap' && m.rpc.id === 2)).toBe(true);
      if (scheme === 'http') expect(meta.some((m) => m.op === 'sse-close' && m.reason === 'broken')).toBe(true);
      else expect(meta.some((m) => m.op === 'ws-close')).toBe(true);
    });
  }
});

describe('a session stream dropped mid-turn over Streamable HTTP', () => {
  it('fails that turn only: the next prompt reopens the stream, the session runs to the end, the tap exits 0', async () => {
    const { db, dir } = setUp();
    const agent = await agentIn(dir);
    const run = await throughBridge(db, agent.url, async (ctx) => {
      await initialize(ctx);
      const s = await newSession(ctx);
      let dropped: unknown;
      try { await prompt(ctx, s.sessionId, 'drop stream'); } catch (e) { dropped = e; }
      const again = await prompt(ctx, s.sessionId, 'hello');
      return { dropped, again: again.stopReason };
    });
    expect(run.error, run.stderr).toBeUndefined();
    // The dropped turn got the error the SDK's own client gives; the next turn ended normally.
    expect(run.result?.dropped).toMatchObject({ code: -32603 });
    expect(run.result?.again).toBe('end_turn');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.trim().split('\n'), run.stderr).toHaveLength(1);
    expect(run.stderr).toMatch(/^acp-inspect: the remote agent at http:\/\/127\.0\.0\.1:\d+\/acp ended the event stream of session \S+ mid-turn: 1 request waiting on it failed; the connection goes on/);
    expect(run.received.some((m: any) => m.method === 'session/update' && m.params.update.content.text === 'about to drop the stream')).toBe(true);
    expect(run.received.some((m: any) => m.method === 'session/update' && m.params.update.content.text === 'Hello')).toBe(true);

    const items = await recording(db);
    // Every message the editor was given is in the recording, the tap's error answer among them.
    expect(frames(items, 'a2c')).toEqual(run.received);
    const meta = transport(items);
    const session = meta.filter((m) => m.stream === 'session');
    const opens = session.filter((m) => m.op === 'sse-open');
    expect(opens.map((m) => [m.status, m.reason])).toEqual([[200, undefined], [200, 'reopened']]);
    const closes = session.filter((m) => m.op === 'sse-close');
    expect(closes[0]).toMatchObject({ reason: 'ended by the agent' });
    // In order: the stream's end, the tap's note of the failed turn, the stream opened again.
    const at = (pred: (m: Record<string, any>) => boolean) => meta.findIndex(pred);
    const closeAt = at((m) => m.op === 'sse-close' && m.stream === 'session');
    const droppedAt = at((m) => m.op === 'session-stream-dropped');
    const reopenAt = at((m) => m.op === 'sse-open' && m.reason === 'reopened');
    expect(closeAt).toBeGreaterThanOrEqual(0);
    expect(droppedAt).toBeGreaterThan(closeAt);
    expect(reopenAt).toBeGreaterThan(droppedAt);
    expect(meta[droppedAt]).toMatchObject({ sessionId: session[0]!.sessionId, rpc: { id: 2, kind: 'response' } });
    expect(meta.some((m) => m.op === 'error')).toBe(false);

    // The checker finds nothing wrong with a stream opened again.
    const check = await cli(['check', 'latest', '--db', db, '--json']);
    expect(check.code, check.stderr.toString()).toBe(0);
    const rules = check.stdout.toString().split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { rule: string }).rule);
    expect(rules.filter((r) => r.startsWith('transport-'))).toEqual([]);

    // The timeline says it in words.
    const shown = (await cli(['show', 'latest', '--db', db])).stdout.toString();
    expect(shown).toMatch(/transport +session stream \S+ ended: request #2 failed\n/);
    expect(shown).toMatch(/transport +GET 200 session stream \S+ \(reopened\)\n/);
  });

  it('a session stream that breaks (not ended) still ends the tap: the SDK\'s client closes the whole transport on it', async () => {
    const { db, dir } = setUp();
    const agent = await agentIn(dir);
    const run = await throughBridge(db, agent.url, async (ctx) => {
      await initialize(ctx);
      const s = await newSession(ctx);
      return prompt(ctx, s.sessionId, 'break stream');
    });
    expect(run.code).toBe(1);
    expect(run.error).toMatchObject({ code: -32603 });
    expect(run.stderr.trim().split('\n'), run.stderr).toHaveLength(1);
    expect(run.stderr).toMatch(/^acp-inspect: the connection to the remote agent at http:\/\/127\.0\.0\.1:\d+\/acp dropped/);
    expect(run.received.some((m: any) => m.method === 'session/update' && m.params.update.content.text === 'about to break the stream')).toBe(true);
    const meta = transport(await recording(db));
    expect(meta.find((m) => m.op === 'sse-close' && m.stream === 'session')).toMatchObject({ reason: 'broken' });
    expect(meta.some((m) => m.op === 'answered-by-tap' && m.rpc.id === 2)).toBe(true);
    expect(meta.some((m) => m.op === 'session-stream-dropped')).toBe(false);
  });
});

describe('a session stream refused 409 (another receiver holds it) over Streamable HTTP', () => {
  it('fails that session\'s requests with the SDK\'s error, recorded as the tap\'s answers, says so in one line, and the tap exits 0', async () => {
    const { db, dir } = setUp();
    const agent = await agentIn(dir, ['--fault', 'session-conflict']);
    const run = await throughBridge(db, agent.url, async (ctx) => {
      await initialize(ctx);
      const s = await newSession(ctx);
      const outcome = async () => { try { return await prompt(ctx, s.sessionId, 'hello'); } catch (e) { return e; } };
      const result = { sessionId: s.sessionId, first: await outcome(), second: await outcome() };
      // The SDK discards the refused session's notifications: the cancel never leaves the tap.
      await ctx.notify(acp.methods.agent.session.cancel, { sessionId: s.sessionId });
      await ctx.notify(acp.methods.agent.session.cancel, { sessionId: s.sessionId });
      return result;
    });
    expect(run.error, run.stderr).toBeUndefined();
    expect(run.code, run.stderr).toBe(0);
    // Both prompts fail with the SDK's own error (it fails the session until it is loaded or resumed).
    const refused = { code: -32603, data: { status: 409, body: 'Outbound stream already has an active receiver' } };
    expect(run.result?.first).toMatchObject(refused);
    expect(run.result?.second).toMatchObject(refused);
    const sid = run.result!.sessionId;
    expect(run.stderr.trim().split('\n'), run.stderr).toEqual([
      `acp-inspect: the remote agent at ${agent.url} refused session ${sid} with 409 Conflict ("Outbound stream already has an active receiver"): another receiver holds its event stream; the SDK's client fails that session's requests until the editor loads or resumes it again; the connection goes on`,
      `acp-inspect: the SDK's client discarded the editor's session/cancel notification of session ${sid} without sending it (it discards a session's notifications and responses after a 409, until the editor loads or resumes it again); the remote agent never got it; recorded as not sent`,
    ]);

    const items = await recording(db);
    expect(frames(items, 'a2c')).toEqual(run.received);
    const meta = transport(items);
    expect(meta.filter((m) => m.op === 'sse-open' && m.stream === 'session').map((m) => [m.status, m.sessionId])).toEqual([[409, sid]]);
    // Each error is the tap's answer, recorded right before it, not the agent's.
    const tapAnswers = items.filter((i) => i.dir === 'event' && (i as EventItem).type === 'transport' && (i as EventItem).data && ((i as EventItem).data as any).op === 'answered-by-tap');
    expect(tapAnswers.map((e) => [((e as EventItem).data as any).rpc.id, ((e as EventItem).data as any).status])).toEqual([[2, 409], [3, 409]]);
    for (const e of tapAnswers) expect(items[items.indexOf(e) + 1]).toMatchObject({ dir: 'a2c', json: { id: ((e as EventItem).data as any).rpc.id, error: { code: -32603 } } });
    const shown = (await cli(['show', 'latest', '--db', db])).stdout.toString();
    expect(shown).toMatch(/transport +answered by the tap response #2 \(HTTP 409 for session \S+\)\n/);
    // Both cancels are recorded as sent by the editor and not sent by the tap, each right after its frame; no POST carried one.
    const notSent = items.filter((i) => i.dir === 'event' && ((i as EventItem).data as any)?.op === 'not-sent');
    expect(notSent.map((e) => ((e as EventItem).data as any).rpc)).toEqual([
      { kind: 'notification', method: 'session/cancel', sessionId: sid },
      { kind: 'notification', method: 'session/cancel', sessionId: sid },
    ]);
    expect(((notSent[0] as EventItem).data as any).message).toBe(`the SDK's client discarded the editor's session/cancel notification of session ${sid}: its session was refused 409, and is not loaded or resumed again`);
    expect(items.filter((i) => i.dir === 'c2a' && (i.json as any).method === 'session/cancel')).toHaveLength(2);
    expect(meta.filter((m) => m.op === 'post' && m.rpc?.method === 'session/cancel')).toEqual([]);

    // Nothing is an error: neither side broke a rule.
    const check = await cli(['check', 'latest', '--db', db, '--json']);
    const findings = check.stdout.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { rule: string; severity: string });
    expect(findings.filter((f) => f.severity === 'error' || f.rule.startsWith('transport-')), check.stdout.toString()).toEqual([]);
  });
});

describe('a POST refused with another status over Streamable HTTP', () => {
  it('fails only that request, recorded as the tap\'s answer, one line; the session goes on', async () => {
    const { db, dir } = setUp();
    const agent = await agentIn(dir, ['--fault', 'session-post-500']);
    const run = await throughBridge(db, agent.url, async (ctx) => {
      await initialize(ctx);
      const s = await newSession(ctx);
      let refused: unknown;
      try { await prompt(ctx, s.sessionId, 'hello'); } catch (e) { refused = e; }
      return { refused, again: (await prompt(ctx, s.sessionId, 'hello')).stopReason };
    });
    expect(run.error, run.stderr).toBeUndefined();
    expect(run.code, run.stderr).toBe(0);
    expect(run.result?.refused).toMatchObject({ code: -32603, data: { status: 500, body: 'boom' } });
    expect(run.result?.again).toBe('end_turn');
    expect(run.stderr.trim().split('\n'), run.stderr).toEqual([`acp-inspect: the remote agent at ${agent.url} answered a request with HTTP 500 ("boom"); the request failed, the connection goes on`]);
    const meta = transport(await recording(db));
    expect(meta.filter((m) => m.op === 'answered-by-tap').map((m) => [m.rpc.id, m.status])).toEqual([[2, 500]]);
    expect(meta.filter((m) => m.op === 'post' && m.status === 500).map((m) => m.rpc.method)).toEqual(['session/prompt']);
  });
});

describe('remote tap flags', () => {
  it('--header without a remote agent is a usage error', async () => {
    const r = await cli(['--header', 'A: b', '--', 'cat']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^acp-inspect: --header is for a remote agent/);
  });

  it('a header naming an unset environment variable is a usage error naming it', async () => {
    const env = { ...process.env };
    delete env.ACP_TEST_UNSET;
    const r = await cli(['--header', 'Authorization: Bearer ${ACP_TEST_UNSET}', '--', 'http://127.0.0.1:9/acp'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('acp-inspect: --header Authorization: environment variable ACP_TEST_UNSET is not set');
  });
});
