/**
 * ACP sessions as OpenTelemetry traces, end to end: the SDK's example client and agent through the
 * real tap, the trace sent by `export --otlp` (protobuf and JSON) and live by the tap's `--otlp`, to
 * an OTLP/HTTP receiver that decodes what arrives with the official proto definitions. Then the tap
 * with a collector that is down, hangs, or answers 500: forwarding stays byte-exact, the recording
 * complete, and stderr gets one warning.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { Store } from '../../src/store/store.js';
import type { Recording } from '../../src/transcript/format.js';
import type { Frame } from '../../src/wire/frame.js';
import { BIN, PEERS, EXAMPLE_AGENT, ROOT, cli, runExampleClient, sh, tempDir } from '../helpers.js';
import { startReceiver, type ReceivedSpan, type Receiver } from './receiver.js';

let t: ReturnType<typeof tempDir>;
let db: string;
let live: Receiver;

/** Recording id → the recording as stored (full-precision times). */
function load(id: number): Recording {
  const store = Store.open(db, { mustExist: true });
  try {
    return store.loadRecording(id);
  } finally {
    store.close();
  }
}

/** The recording's time of item `seq` as OTLP nanoseconds since the epoch. */
function nanosOf(rec: Recording, seq: number): bigint {
  const item = rec.items.find((i) => i.seq === seq)!;
  return BigInt(Date.parse(rec.header.startedAt!)) * 1_000_000n + BigInt(Math.round(item.t * 1e6));
}

function byId(spans: ReceivedSpan[]): Map<string, ReceivedSpan> {
  return new Map(spans.map((s) => [s.spanId, s]));
}

/** The tree as (name ← parent name) lines, sorted: a shape two traces of one recording share. */
function shape(spans: ReceivedSpan[]): string[] {
  const ids = byId(spans);
  return spans.map((s) => `${s.name} <- ${ids.get(s.parentSpanId)?.name ?? '(root)'}`).sort();
}

async function exportTo(receiver: Receiver, id: number, extra: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const r = await cli(['export', String(id), '--db', db, '--otlp', ...(env.OTEL_EXPORTER_OTLP_ENDPOINT ? [] : [receiver.url]), ...extra], { env: { ...process.env, ...env } });
  expect(r.code, r.stderr.toString()).toBe(0);
  return r;
}

beforeAll(async () => {
  t = tempDir('acp-inspect-otel-');
  db = join(t.dir, 'r.sqlite');
  live = await startReceiver();
  // Recording 1: the SDK's example client and agent through the tap, no export.
  const r1 = await runExampleClient(`${sh(process.execPath)} ${sh(BIN)} --db ${sh(db)} --name plain -- ${sh(process.execPath)} ${sh(EXAMPLE_AGENT)}`);
  expect(r1.stdout.toString()).toContain('end_turn');
  // Recording 2: the same through the tap sending spans live.
  const r2 = await runExampleClient(`${sh(process.execPath)} ${sh(BIN)} --db ${sh(db)} --name live --otlp ${sh(live.url)} -- ${sh(process.execPath)} ${sh(EXAMPLE_AGENT)}`);
  expect(r2.stdout.toString()).toContain('end_turn');
});

afterAll(async () => {
  await live?.close();
  t?.cleanup();
});

describe('export --otlp (protobuf)', () => {
  let rx: Receiver;
  let spans: ReceivedSpan[];
  let rec: Recording;
  beforeAll(async () => {
    rx = await startReceiver();
    const r = await exportTo(rx, 1);
    expect(r.stderr.toString()).toMatch(/^sent \d+ spans \(trace [0-9a-f]{32}\) for \d+ items to http:\/\/127\.0\.0\.1:\d+\/v1\/traces in \d+ ms\n$/);
    spans = rx.spans;
    rec = load(1);
  });
  afterAll(() => rx?.close());

  it('arrives as protobuf: one trace, one root, every parent inside the trace', () => {
    expect(rx.requests.every((q) => q.contentType.startsWith('application/x-protobuf'))).toBe(true);
    expect(spans.length).toBeGreaterThan(5);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    const ids = byId(spans);
    expect(ids.size).toBe(spans.length);
    const roots = spans.filter((s) => s.parentSpanId === '');
    expect(roots.map((s) => s.name)).toEqual(['acp connection']);
    for (const s of spans) if (s.parentSpanId) expect(ids.has(s.parentSpanId), s.name).toBe(true);
    expect(spans[0]!.resource['service.name']).toBe('acp-inspect');
    expect(spans[0]!.scope).toBe('acp-inspect');
  });

  it('builds connection → session → turn → tool calls and requests, with the conventions\' attributes', () => {
    const ids = byId(spans);
    const parentOf = (s: ReceivedSpan) => ids.get(s.parentSpanId);
    const root = spans.find((s) => s.parentSpanId === '')!;
    // The SDK's example peers send no clientInfo/agentInfo: names are absent, capabilities are read.
    expect(root.attributes).toMatchObject({ 'acp.protocol.version': 1, 'acp.recording.id': 1, 'acp.recording.name': 'plain', 'process.executable.name': 'node' });
    expect(root.attributes['acp.client.capabilities']).toEqual(['fs.readTextFile', 'fs.writeTextFile']);
    expect(root.attributes['acp.agent.capabilities']).toEqual([]);
    expect(root.attributes['acp.frames']).toBe(rec.items.filter((i) => i.dir === 'c2a' || i.dir === 'a2c').length);

    const init = spans.find((s) => s.name === 'initialize')!;
    expect(parentOf(init)).toBe(root);
    expect(init.kind).toBe(3); // client → agent: CLIENT
    expect(init.attributes).toMatchObject({ 'rpc.system.name': 'jsonrpc', 'rpc.method': 'initialize', 'rpc.jsonrpc.request_id': expect.any(String), 'acp.direction': 'c2a' });

    const newFrame = rec.items.find((i) => (i as Frame).method === 'session/new' && (i as Frame).kind === 'result') as Frame;
    const sessionId = (newFrame.json as { result: { sessionId: string } }).result.sessionId;
    const session = spans.find((s) => s.name === 'acp session')!;
    expect(parentOf(session)).toBe(root);
    expect(session.attributes).toMatchObject({ 'gen_ai.conversation.id': sessionId, 'acp.session.origin': 'new', 'acp.session.turns': 1 });
    expect(parentOf(spans.find((s) => s.name === 'session/new')!)).toBe(session);

    const turn = spans.find((s) => s.name.startsWith('invoke_agent'))!;
    expect(parentOf(turn)).toBe(session);
    expect(turn.kind).toBe(3);
    expect(turn.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': sessionId, 'rpc.method': 'session/prompt',
      'acp.turn.stop_reason': 'end_turn', 'gen_ai.response.finish_reasons': ['end_turn'],
    });
    expect(turn.attributes['acp.turn.message_chunks']).toBeGreaterThan(0);
    expect(turn.attributes['acp.turn.message_bytes']).toBeGreaterThan(0);
    expect(turn.attributes['acp.turn.time_to_first_chunk_ms']).toBeGreaterThanOrEqual(0);

    const tools = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(tools.length).toBeGreaterThan(0);
    for (const tool of tools) {
      expect(parentOf(tool)).toBe(turn);
      expect(tool.name).toMatch(/^execute_tool/);
      expect(tool.attributes).toMatchObject({ 'gen_ai.tool.call.id': expect.any(String), 'acp.tool_call.title': expect.any(String), 'acp.tool_call.status': expect.any(String) });
      expect(tool.status.code).toBe(tool.attributes['acp.tool_call.status'] === 'failed' ? 2 : 0);
    }

    const perm = spans.find((s) => s.name === 'session/request_permission')!;
    expect(perm.kind).toBe(2); // agent → client: SERVER
    expect(tools).toContain(parentOf(perm));
    expect(perm.attributes).toMatchObject({ 'acp.direction': 'a2c', 'acp.permission.outcome': 'selected', 'acp.permission.option_id': expect.any(String), 'acp.permission.wait_ms': expect.any(Number) });
    expect(parentOf(perm)!.attributes['gen_ai.tool.call.id']).toBe(perm.attributes['gen_ai.tool.call.id']);
  });

  it('takes its times from the recording: a request span starts at its frame and ends at its answer', () => {
    const rpc = spans.filter((s) => typeof s.attributes['acp.seq'] === 'number' && typeof s.attributes['acp.response.seq'] === 'number');
    expect(rpc.length).toBeGreaterThan(3);
    for (const s of rpc) {
      expect(s.start, s.name).toBe(nanosOf(rec, s.attributes['acp.seq'] as number));
      expect(s.end, s.name).toBe(nanosOf(rec, s.attributes['acp.response.seq'] as number));
    }
    const root = spans.find((s) => s.parentSpanId === '')!;
    expect(root.start).toBe(BigInt(Date.parse(rec.header.startedAt!)) * 1_000_000n);
    for (const s of spans) {
      expect(s.start).toBeGreaterThanOrEqual(root.start);
      expect(s.end).toBeLessThanOrEqual(root.end);
      expect(s.end).toBeGreaterThanOrEqual(s.start);
    }
  });

  it('sends no message content without --otel-content', () => {
    const prompt = rec.items.find((i) => (i as Frame).method === 'session/prompt' && (i as Frame).kind === 'request') as Frame;
    const text = (prompt.json as { params: { prompt: { text?: string }[] } }).params.prompt.find((b) => b.text)!.text!;
    const everything = JSON.stringify(spans, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
    expect(everything).not.toContain(text);
    for (const s of spans) {
      for (const k of ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result', 'acp.terminal.command', 'process.command_args']) {
        expect(s.attributes[k], `${s.name} ${k}`).toBeUndefined();
      }
    }
  });
});

describe('export --otlp with the standard environment (http/json)', () => {
  let rx: Receiver;
  let proto: Receiver;
  beforeAll(async () => {
    rx = await startReceiver();
    proto = await startReceiver();
    await exportTo(rx, 1, ['--otel-content'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: rx.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-team-token=abc123',
      OTEL_SERVICE_NAME: 'agent-fleet',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=ci,team=platform',
    });
    await exportTo(proto, 1);
  });
  afterAll(async () => {
    await rx?.close();
    await proto?.close();
  });

  it('posts JSON to $OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces with the configured headers and resource', () => {
    expect(rx.requests.length).toBeGreaterThan(0);
    for (const q of rx.requests) {
      expect(q.contentType).toMatch(/^application\/json/);
      expect(q.headers['x-team-token']).toBe('abc123');
    }
    expect(rx.spans[0]!.resource).toMatchObject({ 'service.name': 'agent-fleet', 'deployment.environment.name': 'ci', team: 'platform' });
  });

  it('has the same tree and times as the protobuf export', () => {
    expect(shape(rx.spans)).toEqual(shape(proto.spans));
    const times = (spans: ReceivedSpan[]) => spans.map((s) => `${s.name} ${s.start} ${s.end}`).sort();
    expect(times(rx.spans)).toEqual(times(proto.spans));
  });

  it('carries the prompt, the agent text and tool inputs with --otel-content', () => {
    const rec = load(1);
    const prompt = rec.items.find((i) => (i as Frame).method === 'session/prompt' && (i as Frame).kind === 'request') as Frame;
    const text = (prompt.json as { params: { prompt: { text?: string }[] } }).params.prompt.find((b) => b.text)!.text!;
    const turn = rx.spans.find((s) => s.name.startsWith('invoke_agent'))!;
    const input = JSON.parse(turn.attributes['gen_ai.input.messages'] as string);
    expect(input).toEqual([{ role: 'user', parts: expect.arrayContaining([{ type: 'text', content: text }]) }]);
    const output = JSON.parse(turn.attributes['gen_ai.output.messages'] as string);
    expect(output[0]).toMatchObject({ role: 'assistant', finish_reason: 'end_turn' });
    expect(output[0].parts.some((p: { type: string; content: string }) => p.type === 'text' && p.content.length > 0)).toBe(true);
    expect(rx.spans.some((s) => typeof s.attributes['gen_ai.tool.call.arguments'] === 'string')).toBe(true);
  });
});

describe('the tap with --otlp (live)', () => {
  it('builds its own model under --no-check, and sends content with --otel-content', async () => {
    const rx = await startReceiver();
    try {
      const r = await runExampleClient(`${sh(process.execPath)} ${sh(BIN)} --db ${sh(db)} --name live-content --no-check --otlp ${sh(rx.url)} --otel-content -- ${sh(process.execPath)} ${sh(EXAMPLE_AGENT)}`);
      expect(r.stdout.toString()).toContain('end_turn');
      const turn = rx.spans.find((s) => s.name.startsWith('invoke_agent'))!;
      expect(turn.attributes['acp.turn.stop_reason']).toBe('end_turn');
      expect(JSON.parse(turn.attributes['gen_ai.input.messages'] as string)[0].role).toBe('user');
      const root = rx.spans.find((s) => s.parentSpanId === '')!;
      expect(root.attributes['acp.frames']).toBeGreaterThan(5);
      expect(root.attributes['acp.client.capabilities']).toEqual(['fs.readTextFile', 'fs.writeTextFile']);
    } finally {
      await rx.close();
    }
  });

  it('continues the trace of whatever started it when TRACEPARENT is set', async () => {
    const rx = await startReceiver();
    try {
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const parent = '00f067aa0ba902b7';
      const r = await tapEcho(['--db', db, '--name', 'traceparent', '--otlp', rx.url], Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/list' })}\n`), { TRACEPARENT: `00-${traceId}-${parent}-01` });
      expect(r.code).toBe(0);
      const root = rx.spans.find((s) => s.name === 'acp connection')!;
      expect(root.traceId).toBe(traceId);
      expect(root.parentSpanId).toBe(parent);
      expect(new Set(rx.spans.map((s) => s.traceId))).toEqual(new Set([traceId]));
    } finally {
      await rx.close();
    }
  });

  it('sends a request\'s span while the session is still running', async () => {
    const rx = await startReceiver();
    const child = spawn(process.execPath, [BIN, '--db', db, '--name', 'live-while-running', '--otlp', rx.url, '--', process.execPath, join(PEERS, 'echo-agent.mjs')], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdout.resume();
    try {
      // The echo agent sends the request back (an agent→client request) and then the answer, which
      // answers the client's request: its span ends and must reach the collector before stdin closes.
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'session/list', params: {} })}\n`);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 7, result: { sessions: [] } })}\n`);
      const deadline = Date.now() + 20_000;
      while (!rx.spans.some((s) => s.name === 'session/list' && s.attributes['acp.direction'] === 'c2a') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(child.exitCode).toBeNull();
      const span = rx.spans.find((s) => s.name === 'session/list' && s.attributes['acp.direction'] === 'c2a')!;
      expect(span.attributes).toMatchObject({ 'rpc.jsonrpc.request_id': '7', 'acp.response.seq': expect.any(Number) });
      expect(rx.spans.some((s) => s.parentSpanId === '')).toBe(false); // the connection's span leaves at the end
    } finally {
      child.stdin.end();
      await new Promise((r) => child.once('close', r));
      await rx.close();
    }
    expect(rx.spans.filter((s) => s.parentSpanId === '')).toHaveLength(1);
  });

  it('sends the same trace, with the same times, as exporting the recording afterwards', async () => {
    const rx = await startReceiver();
    try {
      await exportTo(rx, 2);
      expect(live.spans.length).toBe(rx.spans.length);
      expect(shape(live.spans)).toEqual(shape(rx.spans));
      const times = (spans: ReceivedSpan[]) => spans.map((s) => `${s.name} ${s.start} ${s.end}`).sort();
      expect(times(live.spans)).toEqual(times(rx.spans));
      const root = live.spans.find((s) => s.parentSpanId === '')!;
      expect(root.attributes['acp.recording.id']).toBe(2);
    } finally {
      await rx.close();
    }
  });
});

/** Pairs of JSON-RPC lines (a request and an answer to it), a line that is not JSON, and bytes that are not UTF-8. */
function floodInput(pairs: number): Buffer {
  const lines: string[] = [];
  for (let i = 1; i <= pairs; i++) {
    lines.push(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'fs/read_text_file', params: { sessionId: 's', path: `/tmp/f${i}` } }));
    lines.push(JSON.stringify({ jsonrpc: '2.0', id: i, result: { content: `line ${i}` } }));
  }
  lines.push('not json at all');
  return Buffer.concat([Buffer.from(`${lines.join('\n')}\n`), Buffer.from([0xff, 0xfe, 0x0a])]);
}

function tapEcho(args: string[], input: Buffer, env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args, '--', process.execPath, join(PEERS, 'echo-agent.mjs')], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => { err += b.toString(); });
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr: err }));
    child.stdin.end(input);
  });
}

describe('the tap with a collector that fails', () => {
  const input = floodInput(3000);
  const cases: [string, () => Promise<{ url: string; close(): Promise<void>; requests?: unknown[] }>][] = [
    ['is down', async () => {
      const r = await startReceiver();
      await r.close(); // the port is free again: connections are refused
      return { url: r.url, close: async () => undefined };
    }],
    ['hangs', () => startReceiver('hang')],
    ['answers 500', () => startReceiver('fail500')],
  ];
  for (const [what, start] of cases) {
    it(`forwards byte-exact, records everything and warns once when the collector ${what}`, async () => {
      const collector = await start();
      const name = `fail-${what.replace(/\s+/g, '-')}`;
      try {
        const r = await tapEcho(['--db', db, '--name', name, '--otlp', collector.url], input);
        expect(r.code).toBe(0);
        expect(r.stdout.equals(input)).toBe(true);
        const warnings = r.stderr.split('\n').filter((l) => l.startsWith('acp-inspect'));
        expect(warnings, r.stderr).toHaveLength(1);
        expect(warnings[0]).toMatch(/^acp-inspect: OpenTelemetry: .*spans.*(dropped|not delivered)/);
        const store = Store.open(db, { mustExist: true });
        try {
          const id = store.resolveRef('latest');
          const rec = store.loadRecording(id);
          expect(rec.header.name).toBe(name);
          expect(rec.header.status).toBe('complete');
          expect(rec.items.filter((i) => i.dir === 'c2a')).toHaveLength(6002);
          expect(rec.items.filter((i) => i.dir === 'a2c')).toHaveLength(6002);
        } finally {
          store.close();
        }
      } finally {
        await collector.close();
      }
    });
  }
});

describe('loading', () => {
  it('keeps the OpenTelemetry packages out of the tap unless --otlp is given', () => {
    const bundle = readFileSync(join(ROOT, 'dist', 'src', 'cli', 'main.bundle.cjs'), 'utf8');
    expect(bundle).not.toMatch(/@opentelemetry|otel\/live|otel\/sdk/);
    for (const file of ['recorder-worker.js', 'recorder/live-checker.js']) {
      const code = readFileSync(join(ROOT, 'dist', 'src', 'tap', file), 'utf8');
      expect(code).not.toMatch(/@opentelemetry/);
      // The live module is imported only through a variable, on demand.
      expect(code).not.toMatch(/^import .*otel/m);
    }
    expect(readFileSync(join(ROOT, 'dist', 'src', 'tap', 'recorder', 'live-checker.js'), 'utf8')).toMatch(/await import\(OTEL_MODULE\)/);
  });
});

describe('options', () => {
  it('refuses grpc and a bad URL with one line naming the fix', async () => {
    const a = await cli(['export', '1', '--db', db, '--otlp'], { env: { ...process.env, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' } });
    expect(a.code).not.toBe(0);
    expect(a.stderr.toString()).toMatch(/^acp-inspect: OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported; use http\/protobuf or http\/json.*\n$/);
    const b = await tapEcho(['--db', db, '--otlp', 'ftp://x'], Buffer.from(''));
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/--otlp must be an http:\/\/ or https:\/\/ URL/);
    const c = await cli(['export', '1', '--db', db, '--otel-content']);
    expect(c.code).not.toBe(0);
    expect(c.stderr.toString()).toMatch(/--otel-content needs --otlp/);
  });

  it('takes the recording on either side of --otlp, with or without a URL', async () => {
    const rx = await startReceiver();
    try {
      const env = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: rx.url };
      // --otlp's URL is optional: a recording after it is the recording, not the collector.
      for (const args of [['--otlp', 'latest'], ['latest', '--otlp'], ['--otlp', rx.url, 'latest'], ['--otlp', '1']]) {
        const before = rx.spans.length;
        const r = await cli(['export', '--db', db, ...args], { env });
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
        expect(r.stderr, args.join(' ')).toMatch(/^sent \d+ spans .* to http:\/\/127\.0\.0\.1:\d+\/v1\/traces in \d+ ms\n$/);
        expect(rx.spans.length, args.join(' ')).toBeGreaterThan(before);
      }
      const none = await cli(['export', '--db', db, '--otlp'], { env });
      expect(none.code).toBe(2);
      expect(none.stderr).toBe("acp-inspect: missing required argument 'ref'; see acp-inspect export --help\n");
    } finally {
      await rx.close();
    }
  });

  it('places a transcript without a start time so that it ends now', async () => {
    const rx = await startReceiver();
    try {
      const before = BigInt(Date.now()) * 1_000_000n;
      const r = await cli(['export', join(ROOT, 'recordings', 'golden', 'cancel-and-turns.jsonl'), '--otlp', rx.url]);
      expect(r.code, r.stderr.toString()).toBe(0);
      const after = BigInt(Date.now()) * 1_000_000n;
      const root = rx.spans.find((s) => s.parentSpanId === '')!;
      expect(root.end).toBeGreaterThanOrEqual(before);
      expect(root.end).toBeLessThanOrEqual(after);
      expect(rx.spans.filter((s) => s.name.startsWith('invoke_agent'))).toHaveLength(3);
    } finally {
      await rx.close();
    }
  });

  it('fails the export with one line when nothing listens', async () => {
    const r = await startReceiver();
    await r.close();
    const e = await cli(['export', '1', '--db', db, '--otlp', r.url], { env: { ...process.env, OTEL_EXPORTER_OTLP_TIMEOUT: '2000' } });
    expect(e.code).not.toBe(0);
    expect(e.stderr.toString()).toMatch(/^acp-inspect: could not send the trace to http:\/\/127\.0\.0\.1:\d+\/v1\/traces: .*is a collector listening there\?.*\n$/);
  });
});
