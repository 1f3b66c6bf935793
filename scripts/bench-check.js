#!/usr/bin/env node
// Generates a conformant transcript of N frames of about 1 KiB each (initialize, a session, prompt
// turns of session/update chunks and tool calls, permission requests), then times `check` on it.
// usage: node scripts/bench-check.js [frames=1000000] [file=/tmp/acp-bench.jsonl]
import { createWriteStream } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const N = Number(process.argv[2] ?? 1_000_000);
const file = process.argv[3] ?? '/tmp/acp-bench.jsonl';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

async function generate() {
  const out = createWriteStream(file);
  let t = 0;
  let n = 0;
  let bytes = 0;
  const write = async (dir, msg) => {
    const raw = JSON.stringify(msg);
    bytes += raw.length;
    n++;
    t += 0.5;
    if (!out.write(JSON.stringify({ t, dir, raw }) + '\n')) await new Promise((r) => out.once('drain', r));
  };
  const pad = (len) => 'lorem ipsum dolor sit amet '.repeat(Math.ceil(len / 27)).slice(0, len);
  const sid = 'sess_0123456789abcdef';
  await write('c2a', { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true }, clientInfo: { name: 'bench', version: '1' } } });
  await write('a2c', { jsonrpc: '2.0', id: 0, result: { protocolVersion: 1, agentCapabilities: { loadSession: true }, agentInfo: { name: 'bench-agent', version: '1' }, authMethods: [] } });
  await write('c2a', { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/home/user/project', mcpServers: [] } });
  await write('a2c', { jsonrpc: '2.0', id: 1, result: { sessionId: sid } });
  let cid = 2;
  let aid = 0;
  let turn = 0;
  while (n < N - 4) {
    const pid = cid++;
    await write('c2a', { jsonrpc: '2.0', id: pid, method: 'session/prompt', params: { sessionId: sid, prompt: [{ type: 'text', text: pad(900) }] } });
    for (let i = 0; i < 40 && n < N - 4; i++) {
      if (i % 10 === 5) {
        const tc = `call_${turn}_${i}`;
        await write('a2c', { jsonrpc: '2.0', method: 'session/update', params: { sessionId: sid, update: { sessionUpdate: 'tool_call', toolCallId: tc, title: 'Reading file', kind: 'read', status: 'pending', locations: [{ path: '/home/user/project/src/index.ts' }], rawInput: { text: pad(700) } } } });
        const rid = aid++;
        await write('a2c', { jsonrpc: '2.0', id: rid, method: 'fs/read_text_file', params: { sessionId: sid, path: '/home/user/project/src/index.ts', line: 1, limit: 100 } });
        await write('c2a', { jsonrpc: '2.0', id: rid, result: { content: pad(950) } });
        await write('a2c', { jsonrpc: '2.0', method: 'session/update', params: { sessionId: sid, update: { sessionUpdate: 'tool_call_update', toolCallId: tc, status: 'completed', content: [{ type: 'content', content: { type: 'text', text: pad(800) } }] } } });
      } else {
        await write('a2c', { jsonrpc: '2.0', method: 'session/update', params: { sessionId: sid, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: pad(900) } } } });
      }
    }
    await write('a2c', { jsonrpc: '2.0', id: pid, result: { stopReason: 'end_turn' } });
    turn++;
  }
  await new Promise((r) => out.end(r));
  return { n, bytes };
}

const { n, bytes } = await generate();
console.log(`generated ${n} frames, ${(bytes / n).toFixed(0)} bytes per frame on average, in ${file}`);
const t0 = process.hrtime.bigint();
let code = 0;
try {
  execFileSync(process.execPath, [join(root, 'bin', 'acp-inspect.js'), 'check', file], { stdio: ['ignore', 'ignore', 'inherit'] });
} catch (e) {
  code = e.status;
}
const s = Number(process.hrtime.bigint() - t0) / 1e9;
console.log(`check: ${s.toFixed(2)} s, ${Math.round(n / s).toLocaleString('en')} frames/s (exit ${code})`);
