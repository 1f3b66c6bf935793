/**
 * The MCP server on a remote agent's recording: a frame comes with the transport event beside it
 * (its POST's method and status, the stream a streamed message came on).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, ROOT, cli, tempDir } from '../helpers.js';
import { endTurn, init, prompt, session, transcript, update } from '../check/helpers.js';

let t: ReturnType<typeof tempDir>;
let client: Client;
const getFrame = async (seq: number) => {
  const r = await client.callTool({ name: 'get_frame', arguments: { recording: 1, seq } }) as { content: { text: string }[]; structuredContent: Record<string, any> };
  return { text: r.content.map((c) => c.text).join('\n'), data: r.structuredContent };
};

beforeAll(async () => {
  t = tempDir('acp-inspect-mcp-transport-');
  const db = join(t.dir, 'r.sqlite');
  const file = join(t.dir, 'remote.jsonl');
  writeFileSync(file, transcript([
    ['event', 'transport', { op: 'connect', transport: 'http', url: 'https://agents.example/acp' }],
    ...init(),
    ...session('s1'),
    ['c2a', prompt(2, 's1', [{ type: 'text', text: 'hi' }])],
    // The session's stream opens between the prompt and its POST's event.
    ['event', 'transport', { op: 'sse-open', transport: 'http', method: 'GET', status: 200, stream: 'session', sessionId: 's1' }],
    ['event', 'transport', { op: 'post', transport: 'http', method: 'POST', status: 202, sessionId: 's1', rpc: { id: 2, method: 'session/prompt', kind: 'request', sessionId: 's1' } }],
    ['event', 'transport', { op: 'sse-message', transport: 'http', stream: 'session', sessionId: 's1', rpc: { method: 'session/update', kind: 'notification', sessionId: 's1' } }],
    ['a2c', update('s1', { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hello' } })],
    ['a2c', endTurn(2)],
  ]));
  const imp = await cli(['import', file, '--db', db]);
  expect(imp.code, imp.stderr).toBe(0);
  client = new Client({ name: 'acp-inspect-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--db', db], cwd: ROOT, stderr: 'pipe' }));
});

afterAll(async () => {
  await client?.close();
  t?.cleanup();
});

describe('acp-inspect mcp on a remote agent\'s recording', () => {
  it('get_frame gives a frame the transport event about it (past another event), and a stdio-like frame none', async () => {
    // Items: 1 connect, 2-5 initialize and session/new, 6 the prompt, 7 the session's stream opened, 8 the prompt's POST, 9 the SSE event, 10 the update, 11 the answer.
    const promptFrame = await getFrame(6);
    expect(promptFrame.data.transport).toEqual([expect.objectContaining({ op: 'post', status: 202, sessionId: 's1' })]);
    expect(promptFrame.text).toContain('transport: POST 202 session/prompt #2 session s1');
    const streamed = await getFrame(10);
    expect(streamed.data.transport).toEqual([expect.objectContaining({ op: 'sse-message', stream: 'session' })]);
    expect(streamed.text).toContain('transport: SSE session stream s1 → session/update');
    // The answer came with no transport event of its own beside it.
    expect((await getFrame(11)).data.transport).toBeUndefined();
  });
});
