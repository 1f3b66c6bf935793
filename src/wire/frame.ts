/**
 * The one Frame type that travels from the wire to the UI.
 *
 * A recording is a sequence of items sharing one 1-based `seq` space: protocol frames in either
 * direction (`c2a` client→agent on the agent's stdin, `a2c` agent→client on its stdout), lines the
 * agent wrote to stderr, and lifecycle events. The exact bytes of every line are kept (`raw`);
 * what we understood of them (`kind`, `method`, `id`, ...) is derived and never replaces them.
 */

/** Direction of a protocol frame: client→agent (agent's stdin) or agent→client (agent's stdout). */
export type Direction = 'c2a' | 'a2c';
/** Every kind of item in a recording. */
export type ItemDir = Direction | 'stderr' | 'event';

/** JSON-RPC message kinds; `invalid` covers non-JSON lines and JSON that is not a JSON-RPC message. */
export type FrameKind = 'request' | 'notification' | 'result' | 'error' | 'invalid';

/** A JSON-RPC id as sent: string, number or null (null only in some error responses). */
export type RpcId = string | number | null;

/** What the parser learned about one line. Pure function of the raw text. */
export interface ParsedFrame {
  kind: FrameKind;
  /** Method of a request or notification. For responses it is filled in by correlation. */
  method?: string;
  /** The JSON-RPC id, for requests and responses. */
  id?: RpcId;
  /** The parsed JSON value, when the line is JSON. */
  json?: unknown;
  /** Why the line is `invalid`: a JSON syntax error or a shape problem (e.g. "not an object"). */
  parseError?: string;
}

/** One recorded protocol frame. */
export interface Frame extends ParsedFrame {
  /** 1-based position in the recording (shared with stderr lines and events). */
  seq: number;
  /** Milliseconds since the recording started (monotonic clock, sub-millisecond resolution). */
  t: number;
  dir: Direction;
  /** The exact line, without its terminating `\n` (a `\r` before it is kept). */
  raw: string;
  /** Byte length of the raw line as it was on the wire (before any storage truncation). */
  size: number;
  /** For a response: seq of the request it answers (matched by the request's direction and id). */
  replyTo?: number;
  /** For a request that has been answered: seq of its response (filled in by stores and views). */
  responseSeq?: number;
  /** For a response: milliseconds between the request and this response. */
  latency?: number;
  /** `params.sessionId` (or `result.sessionId`) when present, for grouping and filtering. */
  sessionId?: string;
  /** True when the stored raw text was cut to the store's frame byte cap (forwarding never is). */
  truncated?: boolean;
  /** True when the raw bytes were not valid UTF-8; `raw` then holds a lossy decoding and `rawBase64` the bytes. */
  rawBase64?: string;
}

/** A line the agent wrote to stderr. */
export interface StderrItem {
  seq: number;
  t: number;
  dir: 'stderr';
  raw: string;
}

/** Lifecycle event kinds. Readers must skip kinds they do not know. */
export type EventType =
  | 'spawn'
  | 'exit'
  | 'spawn-error'
  | 'stdin-closed'
  | 'stdout-closed'
  | 'gap'
  | 'store-error'
  | 'signal'
  | 'peer-info'
  | (string & {});

/** A lifecycle event (spawn, exit, gaps in the recording, ...). */
export interface EventItem {
  seq: number;
  t: number;
  dir: 'event';
  type: EventType;
  /** Event payload, e.g. `{command, args, cwd, pid}` for spawn, `{code, signal}` for exit. */
  data: Record<string, unknown>;
}

export type Item = Frame | StderrItem | EventItem;

export function isFrame(item: Item): item is Frame {
  return item.dir === 'c2a' || item.dir === 'a2c';
}
export function isRequest(f: ParsedFrame): boolean {
  return f.kind === 'request';
}
export function isResponse(f: ParsedFrame): boolean {
  return f.kind === 'result' || f.kind === 'error';
}
/** The opposite direction: the direction a response to a request sent in `dir` travels. */
export function reverse(dir: Direction): Direction {
  return dir === 'c2a' ? 'a2c' : 'c2a';
}
/** Readable arrow for a direction. */
export function arrow(dir: ItemDir): string {
  return dir === 'c2a' ? '→' : dir === 'a2c' ? '←' : dir === 'stderr' ? '!' : '•';
}
