/** The replay and diff commands through the real binary, on a fixture transcript: faults, help, errors. */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { BIN, ROOT, cli } from '../helpers.js';
import { MALFORMED_LINE } from '../../src/replay/faults.js';

const FIXTURE = join(ROOT, 'test', 'replay', 'fixtures', 'sdk-example.jsonl');
const SID = '6293a4c5c6a980a55a0588623fed64cb';
const client = [
  { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } },
  { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/tmp', mcpServers: [] } },
  { jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: SID, prompt: [{ type: 'text', text: 'Hello, agent!' }] } },
].map((m) => JSON.stringify(m)).join('\n') + '\n';

describe('replay --as agent fault injection', () => {
  it('drops, duplicates, injects an error response and a malformed line as asked', async () => {
    const r = await cli(['replay', '--as', 'agent', FIXTURE, '--drop', 'session/update:tool_call', '--duplicate', 'session/update:agent_message_chunk',
      '--error-for', 'session/new', '--inject-malformed', '1'], { input: client });
    expect(r.code).toBe(0);
    const lines = r.stdout.toString().trim().split('\n');
    expect(lines[1]).toBe(MALFORMED_LINE);
    const frames = lines.filter((l) => l !== MALFORMED_LINE).map((l) => JSON.parse(l));
    expect(frames[0]).toMatchObject({ id: 0, result: { protocolVersion: 1 } });
    expect(frames[1]).toMatchObject({ id: 1, error: { code: -32603, message: 'injected error (acp-inspect replay --error-for session/new)' } });
    const kinds = frames.slice(2).map((f) => f.params?.update?.sessionUpdate ?? f.method);
    // The turn up to the permission request: the first chunk twice, no tool_call.
    expect(kinds).toEqual(['agent_message_chunk', 'agent_message_chunk', 'tool_call_update', 'agent_message_chunk', 'agent_message_chunk', 'session/request_permission']);
  });

  it('closes the connection after N frames', async () => {
    const r = await cli(['replay', '--as', 'agent', FIXTURE, '--kill-after', '2'], { input: client });
    expect(r.stdout.toString().trim().split('\n')).toHaveLength(2);
    expect(r.stderr).toContain('closing the connection (--kill-after)');
  });

  it('--strict turns differing params into an error answer and exit 1', async () => {
    const r = await cli(['replay', '--as', 'agent', FIXTURE, '--strict', '--no-color'], { input: client.replace('"protocolVersion":1}', '"protocolVersion":2}') });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout.toString().split('\n')[0]!)).toMatchObject({ id: 0, error: { code: -32603 } });
    expect(r.stderr).toContain('params.protocolVersion: recorded 1, live 2');
  });

  it('documents every fault flag and the matching rules in --help, and rejects bad flag values in one line', async () => {
    const help = (await cli(['replay', '--help'])).stdout.toString();
    for (const flag of ['--delay <method=ms>', '--drop <method>', '--duplicate <method>', '--error-for <method>', '--inject-malformed <n>', '--kill-after <n>', '--speed <factor>', '--ignore <path>', '--record', '--cwd <dir>', 'Matching:']) {
      expect(help).toContain(flag);
    }
    const bad = await cli(['replay', '--as', 'agent', FIXTURE, '--delay', 'oops']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('acp-inspect: --delay needs METHOD=MS (e.g. session/update=500), got "oops"\n');
    const speed = await cli(['replay', '--as', 'agent', FIXTURE, '--speed', 'fast']);
    expect(speed.code).toBe(2);
    expect(speed.stderr).toContain('--speed must be 0 (instant), 1 (as recorded) or a positive factor');
  });
});

describe('replay --as client that cannot run', () => {
  it('exits 2 with one line when the agent exits at once or never says anything', async () => {
    const quits = await cli(['replay', '--as', 'client', FIXTURE, '--', process.execPath, '-e', 'process.exit(3)']);
    expect(quits.code).toBe(2);
    expect(quits.stderr).toMatch(/^acp-inspect: the agent exited \(code 3\) before sending anything; check the agent command after --\n$/m);
    const silent = await cli(['replay', '--as', 'client', FIXTURE, '--timeout', '300', '--', process.execPath, '-e', 'process.stdin.resume()']);
    expect(silent.code).toBe(2);
    expect(silent.stderr).toContain('acp-inspect: the agent sent nothing within 300ms');
  });
});

describe('diff', () => {
  it('a recording is the same as itself, and --json lists nothing', async () => {
    const r = await cli(['diff', FIXTURE, FIXTURE, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout.toString())).toMatchObject({ same: true, matched: 15, differences: [] });
  });

  it('a reader that stops early (`| head`) ends it quietly, with the exit code of its answer', async () => {
    // Two recordings that differ; the reading end of stdout is closed before diff writes a byte.
    const child = spawn(process.execPath, [BIN, 'diff', FIXTURE, join(ROOT, 'recordings', 'stdout-pollution.jsonl')], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { stderr += d; });
    const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
    expect(stderr).toBe('');
    expect(code).toBe(1);
  });

  it('names a missing file in one line with exit 2', async () => {
    const r = await cli(['diff', FIXTURE, join(ROOT, 'nope.jsonl')]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
