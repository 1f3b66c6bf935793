/**
 * What every MCP tool works over: the database opened read-only (lazily, so the server starts before
 * the first recording exists, and reopened if it was missing), the protocol model cache, redaction,
 * and the tool error every bad input becomes. Nothing here writes the database.
 */
import { existsSync } from 'node:fs';
import { Store, finishOrphanedCaptures } from '../store/store.js';
import { StoreError } from '../store/errors.js';
import { defaultDbPath } from '../store/paths.js';
import { ModelCache } from '../server/model-cache.js';
import { redactFrame, redactValue } from '../redact.js';
import type { Frame, Item } from '../wire/frame.js';

/** A bad input or a missing thing: one sentence naming the problem and the fix, answered with `isError: true`. */
export class ToolError extends Error {}

export interface McpOptions {
  /** The database (default: $ACP_INSPECT_DB or the per-user default). */
  dbPath?: string;
  /** Keep credentials in answers (default: redacted, as `export`). */
  noRedact?: boolean;
  /** How long state_at and get_frame wait for the protocol model of a large recording (ms, default 700). */
  foldBudgetMs?: number;
}

export class McpContext {
  readonly dbPath: string;
  readonly redact: boolean;
  readonly foldBudgetMs: number;
  private opened: Store | undefined;
  private cache: ModelCache | undefined;

  constructor(opts: McpOptions = {}) {
    this.dbPath = opts.dbPath ?? defaultDbPath();
    this.redact = !opts.noRedact;
    this.foldBudgetMs = opts.foldBudgetMs ?? 700;
  }

  /** The store, opened read-only on first use. */
  get store(): Store {
    if (!this.opened) {
      if (!existsSync(this.dbPath)) {
        throw new ToolError(`the database ${this.dbPath} does not exist yet; record a session first (acp-inspect -- <agent command>) or start the server with --db FILE`);
      }
      this.opened = Store.open(this.dbPath, { readonly: true });
      // Read-only here, but capture logs that dead taps left still get an indexer of their own.
      finishOrphanedCaptures(this.opened);
      this.cache = new ModelCache(this.opened);
    }
    return this.opened;
  }

  get models(): ModelCache {
    void this.store;
    return this.cache!;
  }

  /** `latest`, an id as a number or a string → an existing recording id. */
  resolve(ref: string | number | undefined): number {
    const r = ref === undefined ? 'latest' : String(ref).trim();
    try {
      return this.store.resolveRef(r);
    } catch (e) {
      if (e instanceof StoreError && e.code === 'E_UNKNOWN_RECORDING') {
        throw new ToolError(/^\d+$/.test(r)
          ? `there is no recording ${r}; call list_recordings for the ids, or pass "latest"`
          : r === 'latest' ? 'there are no recordings yet; record a session through the tap (acp-inspect -- <agent command>) first'
            : `"${r}" is not a recording id; pass a number from list_recordings or "latest"`);
      }
      throw e;
    }
  }

  /** A frame as answers show it: credentials redacted unless --no-redact. */
  frame<T extends Item>(item: T): T {
    return this.redact && (item.dir === 'c2a' || item.dir === 'a2c') ? (redactFrame(item as Frame) as unknown as T) : item;
  }

  /** Any JSON value as answers show it. */
  value<T>(v: T): T {
    return this.redact ? (redactValue(v).value as T) : v;
  }

  close(): void {
    this.opened?.close();
    this.opened = undefined;
  }
}

/** Parses a cursor this server gave (a whole number), or throws a ToolError. */
export function parseCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  if (!/^\d+$/.test(cursor)) throw new ToolError(`cursor "${cursor}" is not one this server gave; pass the nextCursor of the previous answer, or leave it out to start from the beginning`);
  return Number(cursor);
}
