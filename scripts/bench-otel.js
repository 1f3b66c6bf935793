#!/usr/bin/env node
/**
 * Measures the OpenTelemetry export of a 100,000-frame recording: span counts, and the time to
 * check, build spans and send them (protobuf and JSON) to a local OTLP/HTTP receiver that takes
 * every request. The recording is made up of ordinary turns: a prompt, streamed chunks, tool calls
 * with a permission request and an fs read each, usage, the answer.
 *
 *   npm run build:engine && node scripts/bench-otel.js [frames]
 */
import { createServer } from 'node:http';
import { parseTranscript } from '../dist/src/transcript/format.js';
import { exportRecordingOtlp } from '../dist/src/otel/export.js';

const FRAMES = Number(process.argv[2] ?? 100_000);

function makeTranscript(frames) {
  const lines = [JSON.stringify({ acpInspect: 'recording', version: 1, name: 'bench-otel', startedAt: new Date(Date.now() - 3_600_000).toISOString(), command: ['agent'] })];
  let t = 0;
  let n = 0;
  const put = (dir, msg) => {
    t += 0.25;
    n++;
    lines.push(JSON.stringify({ t, dir, raw: JSON.stringify(msg) }));
  };
  put('c2a', { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true } }, clientInfo: { name: 'bench-client', version: '1' } } });
  put('a2c', { jsonrpc: '2.0', id: 0, result: { protocolVersion: 1, agentCapabilities: {}, agentInfo: { name: 'bench-agent', version: '1' } } });
  put('c2a', { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/p', mcpServers: [] } });
  put('a2c', { jsonrpc: '2.0', id: 1, result: { sessionId: 's1' } });
  let id = 2;
  let agentId = 1000;
  let turn = 0;
  while (n < frames) {
    turn++;
    const pid = id++;
    put('c2a', { jsonrpc: '2.0', id: pid, method: 'session/prompt', params: { sessionId: 's1', prompt: [{ type: 'text', text: `task ${turn}` }] } });
    for (let tc = 0; tc < 3 && n < frames; tc++) {
      const tcid = `t${turn}-${tc}`;
      const up = (u) => put('a2c', { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: u } });
      up({ sessionUpdate: 'tool_call', toolCallId: tcid, title: `Read f${tc}.ts`, kind: 'read', status: 'pending', rawInput: { path: `/p/f${tc}.ts` } });
      const perm = agentId++;
      put('a2c', { jsonrpc: '2.0', id: perm, method: 'session/request_permission', params: { sessionId: 's1', toolCall: { toolCallId: tcid }, options: [{ optionId: 'y', name: 'Allow', kind: 'allow_once' }] } });
      put('c2a', { jsonrpc: '2.0', id: perm, result: { outcome: { outcome: 'selected', optionId: 'y' } } });
      up({ sessionUpdate: 'tool_call_update', toolCallId: tcid, status: 'in_progress' });
      const rd = agentId++;
      put('a2c', { jsonrpc: '2.0', id: rd, method: 'fs/read_text_file', params: { sessionId: 's1', path: `/p/f${tc}.ts` } });
      put('c2a', { jsonrpc: '2.0', id: rd, result: { content: 'x'.repeat(200) } });
      up({ sessionUpdate: 'tool_call_update', toolCallId: tcid, status: 'completed' });
    }
    for (let c = 0; c < 20 && n < frames - 1; c++) put('a2c', { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `word${c} ` } } } });
    put('a2c', { jsonrpc: '2.0', id: pid, result: { stopReason: 'end_turn', usage: { totalTokens: 300, inputTokens: 200, outputTokens: 100 } } });
  }
  lines.push(JSON.stringify({ t: t + 1, dir: 'event', type: 'exit', data: { code: 0, signal: null } }));
  return { text: `${lines.join('\n')}\n`, turns: turn };
}

async function receiver() {
  const stats = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on('data', (b) => { stats.bytes += b.length; });
    req.on('end', () => {
      stats.requests++;
      res.writeHead(200, { 'content-type': String(req.headers['content-type'] ?? 'application/json') }).end(req.headers['content-type']?.includes('protobuf') ? '' : '{}');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/v1/traces`, stats, close: () => new Promise((r) => server.close(r)) };
}

const { text, turns } = makeTranscript(FRAMES);
const rec = parseTranscript(text);
const frames = rec.items.filter((i) => i.dir === 'c2a' || i.dir === 'a2c').length;
console.log(`recording: ${frames} frames, ${turns} turns, ${(text.length / 1e6).toFixed(1)} MB as a transcript`);
for (const protocol of ['http/protobuf', 'http/json']) {
  for (const content of [false, true]) {
    const rx = await receiver();
    const rss0 = process.memoryUsage().rss;
    const t0 = performance.now();
    const r = await exportRecordingOtlp(rec, { target: { url: rx.url, protocol }, content, redact: true });
    const ms = performance.now() - t0;
    console.log(`${protocol}${content ? ' --otel-content' : ''}: ${r.spans} spans (${r.delivered} delivered, ${r.findings} findings) in ${Math.round(ms)} ms ` +
      `(check ${Math.round(r.ms.check)} ms, spans ${Math.round(r.ms.spans)} ms, send ${Math.round(r.ms.send)} ms); ` +
      `${rx.stats.requests} requests, ${(rx.stats.bytes / 1e6).toFixed(1)} MB; RSS +${Math.round((process.memoryUsage().rss - rss0) / 1e6)} MB`);
    await rx.close();
  }
}

// The live tap: the first half of the recording's lines through the tap to the echo agent (which
// sends each back, so the recording has as many frames again), with and without --otlp.
const { spawn } = await import('node:child_process');
const { mkdtempSync, rmSync } = await import('node:fs');
const { tmpdir } = await import('node:os');
const { join } = await import('node:path');
const lines = text.split('\n').slice(1).filter(Boolean).map((l) => JSON.parse(l)).filter((o) => o.raw).slice(0, Math.ceil(FRAMES / 2)).map((o) => o.raw);
const input = Buffer.from(`${lines.join('\n')}\n`);
const dir = mkdtempSync(join(tmpdir(), 'bench-otel-'));
const root = new URL('..', import.meta.url).pathname;
function tap(args) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    // Under /usr/bin/time for the tap's CPU time and peak RSS (wall time on a shared machine says little).
    const child = spawn('/usr/bin/time', ['-f', 'TIME %U %S %M', process.execPath, join(root, 'bin/acp-inspect.js'), '--db', join(dir, 'r.sqlite'), ...args, '--', process.execPath, join(root, 'test/peers/echo-agent.mjs')], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = 0;
    let err = '';
    child.stdout.on('data', (b) => { out += b.length; });
    child.stderr.on('data', (b) => { err += b; });
    child.on('close', (code) => {
      const m = /TIME ([\d.]+) ([\d.]+) (\d+)\n?$/.exec(err);
      err = err.replace(/TIME .*\n?$/, '');
      resolve({ code, ms: performance.now() - t0, out, err, cpu: m ? `${Math.round((Number(m[1]) + Number(m[2])) * 1000)} ms CPU, peak RSS ${Math.round(Number(m[3]) / 1024)} MB` : '' });
    });
    child.stdin.end(input);
  });
}
try {
  // The command a user runs, from a transcript file, cold (process start, parse, check, send).
  const { writeFileSync } = await import('node:fs');
  const file = join(dir, 'bench.jsonl');
  writeFileSync(file, text);
  for (const protocol of ['http/protobuf', 'http/json']) {
    const rx = await receiver();
    const t0 = performance.now();
    const r = await new Promise((resolve) => {
      const child = spawn(process.execPath, [join(root, 'bin/acp-inspect.js'), 'export', file, '--otlp', rx.url], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, OTEL_EXPORTER_OTLP_PROTOCOL: protocol } });
      let err = '';
      child.stderr.on('data', (b) => { err += b; });
      child.on('close', (code) => resolve({ code, err }));
    });
    console.log(`acp-inspect export FILE --otlp (${protocol}): exit ${r.code} in ${Math.round(performance.now() - t0)} ms: ${r.err.trim()}`);
    await rx.close();
  }
  for (const withOtlp of [false, true]) {
    const rx = await receiver();
    const r = await tap(withOtlp ? ['--otlp', rx.url] : []);
    console.log(`tap ${withOtlp ? 'with --otlp' : 'without --otlp'}: ${lines.length * 2} frames, exit ${r.code} in ${Math.round(r.ms)} ms (${r.cpu}), ` +
      `${r.out === input.length ? 'forwarded byte-exact length' : `forwarded ${r.out} of ${input.length} bytes`}; collector got ${rx.stats.requests} requests, ${(rx.stats.bytes / 1e6).toFixed(1)} MB` +
      `${r.err.replace(/echo-agent ready\n/, '').trim() ? `; stderr: ${r.err.trim()}` : ''}`);
    await rx.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
