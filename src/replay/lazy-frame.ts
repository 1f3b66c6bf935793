/**
 * A recorded frame whose JSON is parsed when first read and can be dropped again (`release`), for
 * comparing large recordings: the first recording's frames are all held while the second streams
 * by, and holding every parsed tree made garbage collection copy them all (most of a 100k-frame
 * comparison's time). What matching needs up front, the `sessionUpdate` kind, is taken when the
 * frame is built. Pure.
 */
import type { Direction, Frame, FrameKind, RpcId } from '../wire/frame.js';

/** `params.update.sessionUpdate` of a parsed message, when it is a string. */
export function updateKindOf(j: unknown): string | undefined {
  if (!j || typeof j !== 'object' || Array.isArray(j)) return undefined;
  const p = (j as Record<string, unknown>).params;
  if (!p || typeof p !== 'object' || Array.isArray(p)) return undefined;
  const u = (p as Record<string, unknown>).update;
  if (u && typeof u === 'object' && typeof (u as Record<string, unknown>).sessionUpdate === 'string') {
    return (u as Record<string, unknown>).sessionUpdate as string;
  }
  return undefined;
}

/** The JSON of a raw line, or undefined when it is not JSON. */
export function parseOrUndefined(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

export class LazyJsonFrame implements Frame {
  kind: FrameKind;
  method?: string;
  id?: RpcId;
  parseError?: string;
  replyTo?: number;
  sessionId?: string;
  truncated?: boolean;
  /** `params.update.sessionUpdate` (see `updateKindOf`), known without keeping the JSON. */
  readonly updateKind: string | undefined;
  private cached: unknown;
  private parsed: boolean;

  /**
   * `parse`: whether the raw line is read as JSON at all (not for lines stored as "not JSON");
   * `parsedNow`: a parse already made while building the frame, if one was (used, not kept);
   * `wellFormed`: the line is known to be well-formed JSON (stored as a JSON-RPC message, not cut),
   * so its update kind may be read off its text (`recognisedUpdateKind`) instead of parsed.
   */
  constructor(
    readonly seq: number, readonly t: number, readonly dir: Direction, readonly raw: string, readonly size: number,
    kind: FrameKind, private readonly parse: boolean, parsedNow?: { value: unknown }, wellFormed = false,
  ) {
    this.kind = kind;
    this.parsed = false;
    if (parsedNow !== undefined) this.updateKind = updateKindOf(parsedNow.value);
    else if (!parse || !mayHaveUpdateKind(raw)) this.updateKind = undefined;
    else {
      const k = wellFormed ? recognisedUpdateKind(raw) : null;
      this.updateKind = k !== null ? k : updateKindOf(parseOrUndefined(raw));
    }
  }

  get json(): unknown {
    if (!this.parsed) {
      this.cached = this.parse ? parseOrUndefined(this.raw) : undefined;
      this.parsed = true;
    }
    return this.cached;
  }

  /** Drops the parsed JSON; reading `json` again parses the line again. */
  release(): void {
    this.cached = undefined;
    this.parsed = false;
  }
}

/**
 * The one form of a `session/update` line that the SDKs write, up to its update kind: `jsonrpc`,
 * `method`, then `params` with `sessionId` and `update`, whose first key is `sessionUpdate` (a plain
 * string: no escape in it or in the session id).
 */
const CANONICAL_UPDATE = /^\{"jsonrpc":"2\.0","method":"session\/update","params":\{"sessionId":"[^"\\]*","update":\{"sessionUpdate":"([^"\\]*)"/;

/**
 * `params.update.sessionUpdate` of a well-formed JSON line as JSON.parse would give it, read off the
 * text when the line starts in the canonical form (`CANONICAL_UPDATE`); `null` when it cannot tell
 * (then parse). Sound only for well-formed JSON: the prefix fixes the path to the kind, and no key
 * later in the line can replace one on that path (JSON.parse keeps the last of duplicate keys): no
 * `\u` escape could spell a key, and `"params"`, `"update"` and `"sessionUpdate"` do not occur again.
 */
export function recognisedUpdateKind(raw: string): string | null {
  const m = CANONICAL_UPDATE.exec(raw);
  if (m === null || raw.includes('\\u')) return null;
  const end = m[0].length;
  if (raw.includes('"sessionUpdate"', end) || raw.includes('"update"', end) || raw.includes('"params"', end)) return null;
  return m[1]!;
}

/**
 * False only when the raw JSON text cannot hold a `sessionUpdate` key: the name does not occur and
 * no `\u` escape could spell it.
 */
export function mayHaveUpdateKind(raw: string): boolean {
  return raw.includes('sessionUpdate') || raw.includes('\\u');
}
