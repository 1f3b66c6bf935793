/**
 * An OTLP/HTTP trace receiver for tests: a real HTTP server that takes POST /v1/traces in protobuf
 * (decoded with protobufjs code generated from the official opentelemetry-proto definitions, as the
 * OpenTelemetry JS project shipped it) or JSON, and normalizes both into one span shape. It can
 * answer 500, or hold every request (a slow collector).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';

const require = createRequire(import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const root: any = require('otlp-transformer-protobufjs/build/src/generated/root.js');
const ExportTraceServiceRequest = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
const ExportTraceServiceResponse = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;

export type Value = string | number | boolean | Value[] | null;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind number: 1 internal, 2 server, 3 client. */
  kind: number;
  start: bigint;
  end: bigint;
  attributes: Record<string, Value>;
  events: { name: string; time: bigint; attributes: Record<string, Value> }[];
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  resource: Record<string, Value>;
  scope: string;
}

export interface ReceivedRequest {
  contentType: string;
  headers: Record<string, string | string[] | undefined>;
  spans: number;
}

const hex = (b: unknown): string => (b instanceof Uint8Array ? Buffer.from(b).toString('hex') : typeof b === 'string' ? b : '');

/** One AnyValue (protobuf-decoded or OTLP/JSON) as a plain value. */
function anyValue(v: Record<string, unknown> | undefined): Value {
  if (!v) return null;
  if ('stringValue' in v && v.stringValue !== undefined && v.stringValue !== null) return String(v.stringValue);
  if ('boolValue' in v && v.boolValue !== undefined && v.boolValue !== null) return Boolean(v.boolValue);
  if ('intValue' in v && v.intValue !== undefined && v.intValue !== null) return Number(String(v.intValue));
  if ('doubleValue' in v && v.doubleValue !== undefined && v.doubleValue !== null) return Number(v.doubleValue);
  if ('arrayValue' in v && v.arrayValue) return ((v.arrayValue as { values?: Record<string, unknown>[] }).values ?? []).map(anyValue);
  return null;
}

function attrs(list: unknown): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const kv of (list as { key: string; value: Record<string, unknown> }[] | undefined) ?? []) out[kv.key] = anyValue(kv.value);
  return out;
}

const nanos = (v: unknown): bigint => BigInt(typeof v === 'object' && v !== null && 'toString' in v ? String(v) : String(v ?? 0));

/** Normalizes an ExportTraceServiceRequest (decoded protobuf objects or parsed JSON). */
function spansOf(req: { resourceSpans?: unknown[] }): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of (req.resourceSpans ?? []) as { resource?: { attributes?: unknown }; scopeSpans?: unknown[] }[]) {
    const resource = attrs(rs.resource?.attributes);
    for (const ss of (rs.scopeSpans ?? []) as { scope?: { name?: string }; spans?: unknown[] }[]) {
      for (const s of (ss.spans ?? []) as Record<string, unknown>[]) {
        const status = (s.status ?? {}) as { code?: number | string; message?: string };
        out.push({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: hex(s.parentSpanId),
          name: String(s.name),
          kind: Number(s.kind ?? 0),
          start: nanos(s.startTimeUnixNano),
          end: nanos(s.endTimeUnixNano),
          attributes: attrs(s.attributes),
          events: ((s.events ?? []) as Record<string, unknown>[]).map((e) => ({ name: String(e.name), time: nanos(e.timeUnixNano), attributes: attrs(e.attributes) })),
          status: { code: typeof status.code === 'string' ? ({ STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 } as Record<string, number>)[status.code] ?? 0 : Number(status.code ?? 0), message: status.message ?? '' },
          resource,
          scope: ss.scope?.name ?? '',
        });
      }
    }
  }
  return out;
}

export interface Receiver {
  url: string;
  port: number;
  spans: ReceivedSpan[];
  requests: ReceivedRequest[];
  /** How the next requests are answered. */
  mode: 'ok' | 'fail500' | 'hang';
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

export async function startReceiver(mode: Receiver['mode'] = 'ok'): Promise<Receiver> {
  const held: ServerResponse[] = [];
  const r: Receiver = { url: '', port: 0, spans: [], requests: [], mode, close: async () => undefined };
  const server: Server = createServer(async (req, res) => {
    let body: Buffer;
    try {
      body = await readBody(req);
    } catch {
      // The exporter went away mid-request (its process exited, or it gave up on a hanging receiver).
      res.destroy();
      return;
    }
    const contentType = String(req.headers['content-type'] ?? '');
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      res.writeHead(404).end();
      return;
    }
    if (r.mode === 'hang') {
      held.push(res);
      r.requests.push({ contentType, headers: req.headers, spans: 0 });
      return;
    }
    if (r.mode === 'fail500') {
      r.requests.push({ contentType, headers: req.headers, spans: 0 });
      res.writeHead(500, { 'content-type': 'text/plain' }).end('collector is broken');
      return;
    }
    let spans: ReceivedSpan[];
    if (contentType.startsWith('application/x-protobuf')) {
      const msg = ExportTraceServiceRequest.decode(body);
      spans = spansOf(msg);
      r.requests.push({ contentType, headers: req.headers, spans: spans.length });
      r.spans.push(...spans);
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(Buffer.from(ExportTraceServiceResponse.encode({}).finish()));
    } else {
      spans = spansOf(JSON.parse(body.toString('utf8')));
      r.requests.push({ contentType, headers: req.headers, spans: spans.length });
      r.spans.push(...spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.port = (server.address() as AddressInfo).port;
  r.url = `http://127.0.0.1:${r.port}`;
  r.close = () => new Promise<void>((resolve) => {
    for (const res of held) res.destroy();
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return r;
}
