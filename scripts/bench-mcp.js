#!/usr/bin/env node
/**
 * Measures `acp-inspect mcp` on a large recording: writes a transcript of N frames (default
 * 1,000,000) of realistic prompt turns (plan, streamed chunks, a tool call with a permission request,
 * an fs read, a diff) with one planted violation in the middle, imports it (which checks it), then
 * starts the real binary's MCP server and calls every tool through the SDK's client over stdio,
 * printing the wall time and the server's CPU time (from /proc) of each call.
 *
 *   node scripts/bench-mcp.js [--frames N] [--db FILE] [--keep] [--heavy: also check_transcript and diff_recordings over the whole recording]
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'acp-inspect.js');
const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const frames = Number(opt('--frames', '1000000'));
const dir = mkdtempSync(join(tmpdir(), 'acp-inspect-mcp-bench-'));
const db = opt('--db', join(dir, 'bench.sqlite'));
const log = (s = '') => process.stdout.write(`${s}\n`);

/** Writes the transcript; returns [frames written, seq of the planted violation]. */
function writeTranscript(file, n) {
  const fd = openSync(file, 'w');
  let buf = [];
  let t = 0;
  let seq = 0;
  const put = (dir, msg, dt = 0.2) => {
    t += dt;
    seq++;
    buf.push(JSON.stringify({ t: Number(t.toFixed(3)), dir, raw: JSON.stringify(msg) }));
    if (buf.length >= 20000) { writeSync(fd, buf.join('\n') + '\n'); buf = []; }
  };
  writeSync(fd, `${JSON.stringify({ acpInspect: 'recording', version: 1, name: 'mcp bench' })}\n`);
  const SID = 'sess-bench';
  const upd = (update) => ({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: SID, update } });
  put('c2a', { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false }, clientInfo: { name: 'bench-editor', version: '1.0.0' } } });
  put('a2c', { jsonrpc: '2.0', id: 0, result: { protocolVersion: 1, agentCapabilities: { loadSession: false }, agentInfo: { name: 'bench-agent', version: '1.0.0' }, authMethods: [] } });
  put('c2a', { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/home/dev/project', mcpServers: [{ name: 'db', command: 'db-mcp', args: [], env: [{ name: 'DB_PASSWORD', value: 'hunter2-bench-secret' }] }] } });
  put('a2c', { jsonrpc: '2.0', id: 1, result: { sessionId: SID, modes: { currentModeId: 'ask', availableModes: [{ id: 'ask', name: 'Ask' }, { id: 'code', name: 'Code' }] } } });
  let planted = 0;
  for (let k = 2; seq < n - 13; k++) {
    const id = k * 10;
    put('c2a', { jsonrpc: '2.0', id, method: 'session/prompt', params: { sessionId: SID, prompt: [{ type: 'text', text: `Fix bug number ${k} in main.ts` }] } });
    put('a2c', upd({ sessionUpdate: 'plan', entries: [{ content: 'Read the file', status: 'in_progress', priority: 'high' }, { content: 'Fix it', status: 'pending', priority: 'medium' }] }));
    put('a2c', upd({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `Looking at bug ${k}: I will read ` } }));
    put('a2c', upd({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '`main.ts` first.' } }));
    put('a2c', upd({ sessionUpdate: 'tool_call', toolCallId: `call-${k}`, title: 'Edit main.ts', kind: 'edit', status: 'pending' }));
    put('a2c', { jsonrpc: '2.0', id: id + 1, method: 'session/request_permission', params: { sessionId: SID, toolCall: { toolCallId: `call-${k}` }, options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }] } });
    put('c2a', { jsonrpc: '2.0', id: id + 1, result: { outcome: { outcome: 'selected', optionId: 'allow' } } }, 900);
    put('a2c', { jsonrpc: '2.0', id: id + 2, method: 'fs/read_text_file', params: { sessionId: SID, path: '/home/dev/project/main.ts' } });
    put('c2a', { jsonrpc: '2.0', id: id + 2, result: { content: `const a = ${k};\n` } }, 2);
    put('a2c', upd({ sessionUpdate: 'tool_call_update', toolCallId: `call-${k}`, status: 'completed', content: [{ type: 'diff', path: '/home/dev/project/main.ts', oldText: `const a = ${k};\n`, newText: `const a = ${k + 1};\n` }] }));
    put('a2c', upd({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: ' Done.' } }));
    put('a2c', { jsonrpc: '2.0', id, result: { stopReason: 'end_turn' } }, 5);
    if (!planted && seq >= n / 2) {
      put('c2a', { jsonrpc: '2.0', id: id + 3, method: 'session/set_mode', params: { sessionId: SID, modeId: 'yolo' } });
      planted = seq;
      put('a2c', { jsonrpc: '2.0', id: id + 3, result: {} });
    }
  }
  writeSync(fd, buf.join('\n') + '\n');
  closeSync(fd);
  return [seq, planted];
}

function cpuMs(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const parts = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return ((Number(parts[11]) + Number(parts[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
}

async function main() {
  let planted = 0;
  let total = frames;
  if (!existsSync(db) || !args.includes('--db')) {
    const file = join(dir, 'bench.jsonl');
    let t0 = performance.now();
    [total, planted] = writeTranscript(file, frames);
    log(`wrote ${total} frames (violation planted at #${planted}) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    t0 = performance.now();
    const imp = spawnSync(process.execPath, [BIN, 'import', file, '--db', db, '--name', 'mcp bench'], { encoding: 'utf8' });
    if (imp.status !== 0) throw new Error(`import failed: ${imp.stderr}`);
    log(`imported and checked in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    rmSync(file);
  }
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--db', db], stderr: 'inherit' });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  const pid = transport.pid;
  const results = [];
  const call = async (label, name, a) => {
    const c0 = cpuMs(pid);
    const t0 = performance.now();
    const r = await client.callTool({ name, arguments: a });
    const wall = performance.now() - t0;
    const cpu = cpuMs(pid) - c0;
    const text = r.content?.[0]?.text ?? '';
    results.push({ label, wall, cpu, bytes: text.length, error: !!r.isError });
    log(`${label.padEnd(46)} ${wall.toFixed(0).padStart(6)} ms wall ${cpu.toFixed(0).padStart(6)} ms CPU ${String(text.length).padStart(6)} chars${r.isError ? `  ERROR ${text}` : ''}`);
    return r;
  };
  const tWarm = performance.now();
  const recs = await call('list_recordings', 'list_recordings', {});
  total = recs.structuredContent.recordings[0].items;
  await call('recording_summary', 'recording_summary', { recording: 'latest' });
  await call('list_findings severity:error', 'list_findings', { recording: 'latest', severity: 'error' });
  const fnd = await call('list_findings rule:set-mode-unadvertised', 'list_findings', { recording: 'latest', rule: 'set-mode-unadvertised' });
  const seq = planted || fnd.structuredContent?.findings?.[0]?.seq || Math.floor(total / 2);
  await call('list_frames (first page)', 'list_frames', { recording: 'latest' });
  await call('list_frames method:session/set_mode', 'list_frames', { recording: 'latest', filter: 'method:session/set_mode' });
  await call('list_frames free text "bug number 4242"', 'list_frames', { recording: 'latest', filter: '"bug number 4242"' });
  await call('list_frames is:error', 'list_frames', { recording: 'latest', filter: 'is:error' });
  await call(`list_frames cursor near the end`, 'list_frames', { recording: 'latest', cursor: String(total - 30) });
  await call(`get_frame #${seq} (first call)`, 'get_frame', { recording: 'latest', seq });
  await call(`state_at #${seq}`, 'state_at', { recording: 'latest', seq });
  await call(`state_at #${total - 5}`, 'state_at', { recording: 'latest', seq: total - 5 });
  await call('list_turns', 'list_turns', { recording: 'latest' });
  await call(`get_turn ${seq - 5} (a seq inside a turn)`, 'get_turn', { recording: 'latest', turn: seq - 5 });
  await call('get_turn last', 'get_turn', { recording: 'latest', turn: 'last' });
  await call('explain_rule set-mode-unadvertised', 'explain_rule', { rule: 'set-mode-unadvertised', recording: 'latest' });
  // The model folds in the background; wait for it, then ask again.
  for (let i = 0; i < 120; i++) {
    const r = await client.callTool({ name: 'state_at', arguments: { recording: 'latest', seq: total - 5 } });
    if (!r.structuredContent?.pending) break;
    await new Promise((res) => setTimeout(res, 1000));
  }
  log(`the model was folded to the end ${((performance.now() - tWarm) / 1000).toFixed(1)} s after the first call (list_recordings starts it)`);
  log(`server CPU so far (the background fold included): ${cpuMs(pid).toFixed(0)} ms; RSS ${(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024).toFixed(0)} MiB, peak ${(Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024).toFixed(0)} MiB`);
  await call(`get_frame #${seq} (model folded)`, 'get_frame', { recording: 'latest', seq });
  await call(`state_at #${seq} (model folded)`, 'state_at', { recording: 'latest', seq });
  await call(`state_at #${total - 5} (model folded)`, 'state_at', { recording: 'latest', seq: total - 5 });
  if (args.includes('--heavy')) {
    // The two tools that read whole recordings: a transcript file checked, and two recordings aligned.
    const file = join(dir, 'export.jsonl');
    const exp = spawnSync(process.execPath, [BIN, 'export', 'latest', '--db', db, '-o', file], { encoding: 'utf8' });
    if (exp.status !== 0) throw new Error(`export failed: ${exp.stderr}`);
    await call('check_transcript (the recording exported)', 'check_transcript', { path: file });
    await call('diff_recordings latest, latest (whole: refused)', 'diff_recordings', { a: 'latest', b: 'latest' });
    await call('diff_recordings 40,000 items of each', 'diff_recordings', { a: 'latest', b: 'latest', aSeq: '1-40000', bSeq: '1-40000' });
    await call('diff_recordings 2 turns of the middle', 'diff_recordings', { a: 'latest', b: 'latest', aSeq: `${seq - 30}-${seq}`, bSeq: `${seq - 17}-${seq + 13}` });
    await call('diff_recordings latest with its export (a file, refused)', 'diff_recordings', { a: 'latest', b: file, aSeq: '1-20000' });
    log(`server peak RSS: ${(Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024).toFixed(0)} MiB`);
  }
  await client.close();
  if (!args.includes('--keep') && !args.includes('--db')) rmSync(dir, { recursive: true, force: true });
  else log(`database kept: ${db}`);
  const slow = results.filter((r) => r.wall > 1000);
  log(slow.length ? `over a second: ${slow.map((r) => r.label).join(', ')}` : 'every call answered under a second');
}

main().catch((e) => { process.stderr.write(`bench-mcp: ${e.message}\n`); process.exit(1); });
