/**
 * End-to-end with real peers: the SDK's example client and agent recorded through the real tap,
 * replayed as the agent to that client and to a different client (2.4.0 SDK), and as the client to
 * the real agent (new session ids every run) and to a changed agent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, EXAMPLE_AGENT, ROOT, cli, run, runExampleClient, sh, tempDir } from '../helpers.js';

const PEERS = join(ROOT, 'test', 'replay', 'peers');
const CHANGED_AGENT = join(PEERS, 'changed-agent.mjs');
const OTHER_CLIENT = join(PEERS, 'other-client.mjs');
const node = process.execPath;

let t: ReturnType<typeof tempDir>;
let db: string;
let recordedSession: string;

beforeAll(async () => {
  t = tempDir('acp-replay-e2e-');
  db = join(t.dir, 'r.sqlite');
  const projA = join(t.dir, 'project-a');
  mkdirSync(projA);
  const tap = `${sh(node)} ${sh(BIN)} --db ${sh(db)} --name sdk-example -- ${sh(node)} ${sh(EXAMPLE_AGENT)}`;
  const r = await runExampleClient(tap, { cwd: projA });
  expect(r.stdout.toString()).toContain('Agent completed with: end_turn');
  recordedSession = /Created session: (\w+)/.exec(r.stdout.toString())![1]!;
});
afterAll(() => t?.cleanup());

describe('replay --as agent', () => {
  it('serves the tapped recording to the real SDK example client, in another folder', async () => {
    const elsewhere = join(t.dir, 'elsewhere');
    mkdirSync(elsewhere, { recursive: true });
    const r = await runExampleClient(`${sh(node)} ${sh(BIN)} replay --as agent latest --db ${sh(db)}`, { cwd: elsewhere });
    const out = r.stdout.toString();
    expect(out).toContain(`Created session: ${recordedSession}`);
    expect(out).toContain('Perfect!');
    expect(out).toContain('Agent completed with: end_turn');
  });

  it('serves it to a different real client (2.4.0 SDK) and reports its different params on stderr', async () => {
    const r = await run(node, [OTHER_CLIENT, '--', node, BIN, 'replay', '--as', 'agent', 'latest', '--db', db], { cwd: t.dir });
    const result = JSON.parse(r.stdout.toString().trim().split('\n').at(-1)!);
    expect(result).toMatchObject({ stopReason: 'end_turn', permission: 'allow', sessionId: recordedSession });
    expect(result.updates).toContain('tool_call');
    expect(r.stderr).toContain('params.prompt[0].text: recorded "Hello, agent!", live "Please update the database host in config.json"');
    expect(r.stderr).toContain('params.clientInfo: live {"name":"other-client","version":"0.0.1"}, not in the recording');
    expect(r.stderr).not.toContain('params.cwd');
  });

  it('answers an unmatched request with a JSON-RPC error that says why, and explains it on stderr', async () => {
    const input = [
      '{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":1}}',
      '{"jsonrpc":"2.0","id":"x","method":"session/load","params":{"sessionId":"nope","cwd":"/tmp","mcpServers":[]}}',
      '',
    ].join('\n');
    const r = await cli(['replay', '--as', 'agent', 'latest', '--db', db, '--no-color'], { input });
    expect(r.code).toBe(0);
    const lines = r.stdout.toString().trim().split('\n').map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ id: 'i', result: { protocolVersion: 1 } });
    expect(lines[1]).toMatchObject({ id: 'x', error: { code: -32603 } });
    expect(lines[1].error.message).toContain('the recording has no request session/load from the client');
    expect(r.stderr).toContain('✗ no match for live request session/load (id "x")');
    expect(r.stderr).toContain('nearest recorded:');
    expect(r.stderr).toMatch(/never used: #\d+ request session\/new/);
  });
});

describe('replay --as client', () => {
  it('drives the real agent (new session id every run) with no divergence, and --record stores the run', async () => {
    const cwd = join(t.dir, 'project-b');
    mkdirSync(cwd);
    const r = await cli(['replay', '--as', 'client', 'latest', '--db', db, '--cwd', cwd, '--record', '--name', 'replayed', '--', node, EXAMPLE_AGENT]);
    expect(r.stdout.toString()).toContain('replay: equivalent: 11 agent frames matched; 0 changed, 0 missing, 0 extra');
    expect(r.code).toBe(0);
    const id = /stored this run as recording (\d+)/.exec(r.stdout.toString())![1]!;
    const list = JSON.parse((await cli(['list', '--json', '--db', db])).stdout.toString());
    expect(list.find((x: { id: number }) => String(x.id) === id)).toMatchObject({ name: 'replayed', status: 'complete' });
    // The stored run is the same session with other ids: `diff` normalises them away.
    const d = await cli(['diff', '1', id, '--db', db]);
    expect(d.stdout.toString()).toContain('same: 15 of 15 frames of b matched 15 frames of a');
    expect(d.code).toBe(0);
  });

  it('runs the agent in the recorded folder, with a relative agent path still meant from the caller\'s folder', async () => {
    const rel = join('node_modules', 'acp-sdk-v1-examples', 'dist', 'examples', 'agent.js');
    const r = await cli(['replay', '--as', 'client', 'latest', '--db', db, '--', node, rel]);
    expect(r.stdout.toString()).toContain('replay: equivalent: 11 agent frames matched; 0 changed, 0 missing, 0 extra');
    expect(r.code).toBe(0);
  });

  it('against a changed agent exits 1 with a readable diff of what changed and what is missing', async () => {
    const r = await cli(['replay', '--as', 'client', 'latest', '--db', db, '--timeout', '10000', '--no-color', '--', node, CHANGED_AGENT]);
    expect(r.code).toBe(1);
    const out = r.stdout.toString();
    expect(out).toContain('~ changed: ← notification session/update agent_message_chunk');
    expect(out).toContain('-        "text": " Now I understand the project structure. I need to make some changes to improve it.",');
    expect(out).toContain('+        "text": " Now I understand the project layout. I will change one setting.",');
    expect(out).toContain('- missing: ← notification session/update tool_call_update');
    expect(out).toContain('replay: diverged: 10 agent frames matched; 1 changed, 1 missing, 0 extra');
    // Its random tool call ids and permission option ids are mapped, not reported.
    expect(out).not.toContain('toolCallId:');
    expect(out).not.toContain('optionId');
  });

  it('fails with exit 2 and one line when it cannot run', async () => {
    const noCmd = await cli(['replay', '--as', 'client', 'latest', '--db', db]);
    expect(noCmd.code).toBe(2);
    expect(noCmd.stderr.trim().split('\n')).toHaveLength(1);
    expect(noCmd.stderr).toContain('needs the agent command after --');
    const missing = await cli(['replay', '--as', 'client', join(t.dir, 'nope.jsonl'), '--', node, EXAMPLE_AGENT]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^acp-inspect: .*nope\.jsonl does not exist; check the path\n$/);
    const bad = await cli(['replay', '--as', 'client', 'latest', '--db', db, '--', join(t.dir, 'no-such-agent')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('could not start');
    const side = await cli(['replay', '--as', 'editor', 'latest', '--db', db]);
    expect(side.code).toBe(2);
    expect(side.stderr).toContain('--as must be "agent" or "client"');
  });
});
