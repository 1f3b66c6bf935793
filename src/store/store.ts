/**
 * The SQLite store of recordings (better-sqlite3, WAL). Synchronous by design: the tap calls it only
 * from its recorder worker, never from the thread that forwards bytes. Everything the CLI, checker,
 * replay and server read goes through here.
 */
import Database from 'better-sqlite3';
import { isUtf8 } from 'node:buffer';
import { chmodSync, existsSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Item, Frame, Direction, FrameKind } from '../wire/frame.js';
import type { RecordingStatus, RecordingSummary, StoredFinding, StoredNote } from '../view/contract.js';
import { peerInfoOf, peerInfoFromFrame } from '../wire/peer-info.js';
import { itemOf } from '../view/columns.js';
import type { ChunkKind } from '../wire/chunk-frame.js';
import { StoredText, type Utf8Decoder } from '../wire/lazy-chunk.js';
import { decodeLatin1Utf8, decodeUtf8 } from '../wire/line-splitter.js';
import type { Recording, TranscriptHeader, TranscriptNote } from '../transcript/format.js';
import { MIGRATIONS } from './schema.js';
import { StoreError } from './errors.js';
import { CAPTURE_EXT, DONE_EXT, capturesDir, defaultDbPath, listCaptureLogs, listDoneCaptureLogs, makeDirs } from './paths.js';
import { processStartId } from './process-id.js';
import { orphanedCapturesFinisher } from './orphans.js';
import { handedOnLogs, sweepHandedOn } from './indexer-pids.js';
import { readCaptureHeader } from './capture-header.js';
import { ITEM_COLUMNS, ITEM_RAW, itemColumns, unpackRow, type PackedRows } from './item-rows.js';
import { diskFull, diskFullMessage, refusedForSpace } from './disk.js';
import type { Indexing } from '../view/indexing.js';

export { onOrphanedCaptures } from './orphans.js';
import { isSqliteBuildError, nativeFixCommand, sqliteBuildReason } from '../install-hint.js';

export type { RecordingStatus, RecordingSummary, StoredFinding, StoredNote };

interface NoteRow { id: number; recording_id: number; seq: number; text: string; created_at: string; updated_at: string | null }

const toNote = (r: NoteRow): StoredNote => ({
  id: r.id, recordingId: r.recording_id, seq: r.seq, text: r.text, createdAt: r.created_at, updatedAt: r.updated_at,
});

/** Page size of a database this version creates (see Store.open). */
const NEW_PAGE_SIZE = 16384;

/** Longest note text accepted (characters). */
export const MAX_NOTE_CHARS = 100_000;

export interface NewRecording {
  name?: string | null;
  startedAt?: string;
  status?: RecordingStatus;
  command?: string[] | null;
  cwd?: string | null;
  hostPid?: number | null;
  /** The writer's processStartId(hostPid): tells it apart from a later process given the same pid. */
  hostStart?: string | null;
  header?: Record<string, unknown>;
  /** Its capture log's file name (see capturesDir) and the indexer's identity (see processIdentity). */
  capture?: string | null;
  indexer?: string | null;
}

export interface OpenOptions {
  /** Open read-only (the file must exist). */
  readonly?: boolean;
  /** ms to wait on a lock held by another process (default 5000). */
  busyTimeout?: number;
  /** Do not create a missing database; throw E_DB_MISSING instead. */
  mustExist?: boolean;
  /**
   * Most KiB of database pages this connection keeps in memory (SQLite's cache_size). Unset: the
   * SQLite build's default (better-sqlite3 builds it with 16 MB), good for a reader.
   */
  cacheKiB?: number;
  /**
   * A connection that appends items to recordings it made or took over (the recorder's, an
   * indexer's): see APPEND_ONLY. Its other writes are single rows.
   */
  appendOnly?: boolean;
}

interface RecordingRow {
  id: number; name: string | null; started_at: string; ended_at: string | null; status: RecordingStatus;
  incomplete: number; incomplete_reason: string | null; command: string | null; cwd: string | null; pid: number | null;
  host_pid: number | null; heartbeat_at: number | null; exit_code: number | null; exit_signal: string | null;
  client_name: string | null; client_version: string | null; agent_name: string | null; agent_version: string | null;
  protocol_version: number | null; item_count: number; frame_count: number; error_count: number; warning_count: number;
  info_count: number; duration_ms: number | null; header: string | null;
  capture?: string | null; capture_indexed?: number | null; index_state?: string | null; indexer?: string | null;
}

export interface ItemRow {
  seq: number; t: number; dir: string; kind: string | null; method: string | null; rpc_id: string | null;
  reply_to: number | null; latency: number | null; session_id: string | null; size: number | null; raw: string;
  raw_bytes: Buffer | null; parse_error: string | null; truncated: number | null;
}

/** The columns of ItemRow in order, for reading rows as arrays (ItemRowArray). */
const ITEM_ROW_COLUMNS = 'seq, t, dir, kind, method, rpc_id, reply_to, latency, session_id, size, raw, raw_bytes, parse_error, truncated';
type ItemRowArray = [number, number, string, string | null, string | null, string | null, number | null, number | null, string | null, number | null, string, Buffer | null, string | null, number | null];

function isCorruptError(e: unknown): boolean {
  const code = (e as { code?: string }).code ?? '';
  return code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || /file is not a database|malformed/i.test(String((e as Error).message));
}
function isLockedError(e: unknown): boolean {
  const code = (e as { code?: string }).code ?? '';
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
}

/** Translates a SQLite exception into a one-line StoreError naming the problem and the fix. */
export function toStoreError(e: unknown, path: string): StoreError {
  if (e instanceof StoreError) return e;
  if (isCorruptError(e)) {
    return new StoreError('E_DB_CORRUPT', `database ${path} is corrupt or not an acp-inspect database; move it aside or pass another --db FILE`);
  }
  if (isLockedError(e)) {
    return new StoreError('E_DB_LOCKED', `database ${path} is locked by another process; retry, or pass another --db FILE`);
  }
  if (isSqliteBuildError(e)) {
    return new StoreError('E_DB_OPEN', `the native SQLite module (better-sqlite3) does not load (${sqliteBuildReason(e)}); run: ${nativeFixCommand('all')}`);
  }
  // A full disk is not the path's fault: say what is, and the two ways out.
  if (path !== ':memory:' && refusedForSpace(e, path)) return new StoreError('E_DB_FULL', diskFullMessage(path));
  const msg = (e as Error)?.message ?? String(e);
  return new StoreError('E_DB_OPEN', `cannot use database ${path}: ${msg}; check the path and its permissions, or pass another --db FILE`);
}

export class Store {
  readonly db: Database.Database;
  private stmts = new Map<string, Database.Statement>();
  /** Reused bound-value arrays of appendItems (one row; ROWS_PER_INSERT rows). */
  private itemRow: unknown[] | null = null;
  private itemRows: unknown[] | null = null;
  /** Schema version of the file (older than the newest only when opened read-only). */
  schemaVersion = MIGRATIONS.length;

  private constructor(db: Database.Database, readonly path: string) {
    this.db = db;
  }

  /** Opens (creating if needed, unless readonly/mustExist) and migrates the database at `path`. */
  static open(path: string = defaultDbPath(), opts: OpenOptions = {}): Store {
    const exists = path === ':memory:' || existsSync(path);
    // An empty file is what a first open on a full disk leaves: made anew, as if it were not there.
    const fresh = !exists || (path !== ':memory:' && !opts.readonly && fileEmpty(path));
    // A tap killed before it made the database leaves only capture logs: a writer makes the database
    // and adopts them, as it would into an existing one.
    if (!exists && (opts.readonly || (opts.mustExist && listCaptureLogs(path).length === 0))) {
      throw new StoreError('E_DB_MISSING', `database ${path} does not exist; record something first (acp-inspect -- <agent>) or pass --db FILE`);
    }
    let db: Database.Database;
    try {
      if (!exists) {
        makeDirs(dirname(path), 0o700);
      }
      db = new Database(path, { readonly: !!opts.readonly, fileMustExist: exists && !!opts.readonly });
      if (!exists) {
        try { chmodSync(path, 0o600); } catch { /* not fatal */ }
      }
    } catch (e) {
      throw toStoreError(e, path);
    }
    const store = new Store(db, path);
    try {
      db.pragma(`busy_timeout = ${opts.busyTimeout ?? 5000}`);
      if (exists) store.refuseForeign(); // before a pragma or a migration writes into it
      if (!opts.readonly) {
        // A new file gets 16 KiB pages (set before anything is written; an existing file keeps its
        // own): an item of a burst is about 1 KiB, and with 4 KiB pages the recorder spent about a
        // fifth more CPU per insert and twice as much copying the log into the database (fewer,
        // larger writes; fewer pages to split and to find again).
        if (fresh) db.pragma(`page_size = ${NEW_PAGE_SIZE}`);
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
      }
      db.pragma('foreign_keys = ON');
      if (opts.appendOnly && !opts.readonly) store.pragmas(APPEND_ONLY);
      if (opts.cacheKiB !== undefined) db.pragma(`cache_size = -${Math.max(1, Math.floor(opts.cacheKiB))}`);
      // Test and diagnosis knob: caps the database size (in pages) for this connection, to simulate a
      // full disk. SQLite does not persist max_page_count, so it is applied on every open.
      const maxPages = process.env.ACP_INSPECT_SQLITE_MAX_PAGE_COUNT;
      if (maxPages && /^\d+$/.test(maxPages) && !opts.readonly) db.pragma(`max_page_count = ${Number(maxPages)}`);
      store.migrate(!!opts.readonly);
    } catch (e) {
      db.close();
      throw toStoreError(e, path);
    }
    return store;
  }

  private migrate(readonly: boolean): void {
    const version = this.db.pragma('user_version', { simple: true }) as number;
    if (version > MIGRATIONS.length) {
      throw new StoreError('E_DB_NEWER', `database ${this.path} was written by a newer acp-inspect (schema ${version}); upgrade acp-inspect`);
    }
    if (version === MIGRATIONS.length) {
      // Sanity check: an existing file must look like ours.
      if (version === 0) return;
      return;
    }
    if (readonly) {
      // Reading works on every older schema (what later migrations add reads as empty); the next
      // command that writes upgrades the file.
      if (version >= 1) {
        this.schemaVersion = version;
        return;
      }
      throw new StoreError('E_DB_OPEN', `database ${this.path} needs a schema upgrade; open it once without read-only access`);
    }
    const run = this.db.transaction(() => {
      const v = this.db.pragma('user_version', { simple: true }) as number; // re-read under the lock
      for (let i = v; i < MIGRATIONS.length; i++) this.db.exec(MIGRATIONS[i]!);
      this.db.pragma(`user_version = ${MIGRATIONS.length}`);
    });
    run.immediate();
  }

  /**
   * Refuses another program's SQLite database (tables, none of them ours) before its user_version
   * is read as our schema's or a migration writes into it.
   */
  private refuseForeign(): void {
    const tables = (this.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).all() as { name: string }[]).map((t) => t.name);
    if (tables.length === 0 || tables.includes('recordings')) return;
    const devtools = tables.includes('sessions') && tables.includes('messages');
    throw new StoreError('E_DB_CORRUPT', devtools
      ? `database ${this.path} is acp-devtools' captures database, not acp-inspect's; import its sessions with acp-inspect import ${this.path}, or pass another --db FILE`
      : `database ${this.path} is not an acp-inspect database (its tables: ${tables.slice(0, 5).join(', ')}${tables.length > 5 ? ', ...' : ''}); pass another --db FILE`);
  }

  close(): void {
    try { this.db.close(); } catch { /* already closed */ }
  }

  private stmt(sql: string): Database.Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  // ---- writing -------------------------------------------------------------------------------

  createRecording(r: NewRecording): number {
    const info = this.stmt(
      `INSERT INTO recordings (name, started_at, status, command, cwd, host_pid, heartbeat_at, header${r.capture ? ', capture, capture_indexed, indexer' : ''})
       VALUES (?, ?, ?, ?, ?, ?, ?, ?${r.capture ? ', ?, 0, ?' : ''})`,
    ).run(
      r.name ?? null,
      r.startedAt ?? new Date().toISOString(),
      r.status ?? 'running',
      r.command ? JSON.stringify(r.command) : null,
      r.cwd ?? null,
      r.hostPid ?? null,
      Date.now(),
      r.header ? JSON.stringify(r.header) : r.hostStart ? JSON.stringify({ [HOST_START]: r.hostStart }) : null,
      ...(r.capture ? [r.capture, r.indexer ?? null] : []),
    );
    return Number(info.lastInsertRowid);
  }

  // ---- capture logs (see src/tap/capture-log.ts) ---------------------------------------------

  /**
   * Takes capture log `name` for indexing by process `me` (see processIdentity), under the database's
   * write lock, so two processes never index it both: null when another live process indexes it, or
   * when its tap lives (`tapAlive`: it indexes its own log). A log without a recording (its tap died
   * before it could make one) gets one from `create`. Returns the recording, how far it is indexed,
   * the indexer's state there, and the last seq stored.
   */
  claimCapture(name: string, me: string, tapAlive: boolean, create: () => NewRecording): { id: number; indexed: number; state: string | null; storedSeq: number } | null {
    return this.db.transaction(() => {
      const file = join(capturesDir(this.path), name);
      // Finished meanwhile by another process.
      if (!existsSync(file)) return null;
      const row = this.stmt(`SELECT id, capture_indexed, index_state, indexer FROM recordings WHERE capture = ?`).get(name) as
        { id: number; capture_indexed: number | null; index_state: string | null; indexer: string | null } | undefined;
      if (!row && tapAlive) return null;
      if (!row && this.logDone(file, create())) return null;
      // Marked by a deletion that was not committed (killed before it): the log is its recording's again.
      if (row) unmarkDeleting(file);
      if (row && row.indexer && row.indexer !== me && identityAlive(row.indexer)) return null;
      const id = row ? row.id : this.createRecording({ ...create(), capture: name, indexer: me });
      if (row) this.stmt(`UPDATE recordings SET indexer = ? WHERE id = ?`).run(me, id);
      const seq = this.stmt(`SELECT max(seq) AS s FROM items WHERE recording_id = ?`).get(id) as { s: number | null };
      return { id, indexed: row?.capture_indexed ?? 0, state: row?.index_state ?? null, storedSeq: seq.s ?? 0 };
    }).immediate();
  }

  /** Which recording names capture log `name`, how far it is indexed, and who indexes it (processIdentity); null: none. */
  captureProgress(name: string): { id: number; indexed: number; indexer: string | null } | null {
    const row = this.stmt(`SELECT id, capture_indexed, indexer FROM recordings WHERE capture = ?`).get(name) as
      { id: number; capture_indexed: number | null; indexer: string | null } | undefined;
    return row ? { id: row.id, indexed: row.capture_indexed ?? 0, indexer: row.indexer } : null;
  }

  /** Records how far recording `id`'s capture log is indexed (call in the transaction that stored those items). */
  saveIndexState(id: number, indexed: number, state: string): void {
    this.stmt(`UPDATE recordings SET capture_indexed = ?, index_state = ? WHERE id = ?`).run(indexed, state, id);
  }

  /** Lets go of recording `id`'s capture log, not all indexed: the next opener takes it. */
  releaseCapture(id: number): void {
    this.stmt(`UPDATE recordings SET indexer = NULL WHERE id = ?`).run(id);
  }

  /**
   * Recording `id`'s capture log is all indexed: forgets it, in the caller's transaction, and returns
   * its name, for the caller to remove once that transaction is committed (dropCapture). Removed
   * before the commit, a kill at that instant left a row whose log was gone; removed after it, the
   * same kill leaves a log whose recording is indexed, which the next claim removes (claimCapture).
   */
  captureIndexed(id: number): string | null {
    const row = this.stmt(`SELECT capture FROM recordings WHERE id = ?`).get(id) as { capture: string | null } | undefined;
    this.stmt(`UPDATE recordings SET capture = NULL, capture_indexed = NULL, index_state = NULL, indexer = NULL WHERE id = ?`).run(id);
    return row?.capture ?? null;
  }

  /**
   * Removes capture log `name` (its recording no longer names it: committed). `leave`: rename it
   * (DONE_EXT) for another process to remove instead. A file removed while this process holds it
   * open is freed when the process exits: a tap that removed its 1 GiB log had its exit take
   * 50-200 ms longer.
   */
  dropCapture(name: string, leave = false): void {
    const file = join(capturesDir(this.path), name);
    if (leave) {
      try {
        renameSync(file, file.slice(0, -CAPTURE_EXT.length) + DONE_EXT);
        return;
      } catch { /* removed below */ }
    }
    rmSync(file, { force: true });
    // A name that carried its tap's exit goes with it (an indexer sweeps them as it ends, but a log
    // deleted with its recording may go after the indexer that was at it ended).
    if (this.path !== ':memory:') sweepHandedOn(this.path);
  }

  /**
   * Whether a log no recording names is one whose recording is done with it (removed here, then): one
   * deleted (markDeleting), or all indexed (the recording its header makes is there, its log
   * forgotten: captureIndexed) by a process killed, or not yet come, between its commit and the removal.
   */
  private logDone(file: string, made: NewRecording): boolean {
    const indexed = () => this.stmt(`SELECT 1 FROM recordings WHERE capture IS NULL AND host_pid IS ? AND started_at = ?`).get(made.hostPid ?? null, made.startedAt ?? '') !== undefined;
    if (!markedDeleting(file) && !indexed()) return false;
    rmSync(file, { force: true });
    return true;
  }

  /**
   * Makes the recordings of capture logs whose taps died before they made one (a tap killed in its
   * first moments on a busy machine), so that they are listed at once (as interrupted, once marked)
   * while an indexer fills them in. Needs write access; does nothing without it.
   */
  adoptOrphanedCaptures(): void {
    if (this.path === ':memory:' || this.schemaVersion < 5) return;
    const names = listCaptureLogs(this.path);
    if (names.length === 0) return;
    const known = new Set((this.db.prepare(`SELECT capture FROM recordings WHERE capture IS NOT NULL`).all() as { capture: string }[]).map((r) => r.capture));
    for (const name of names) {
      if (known.has(name)) continue;
      const h = readCaptureHeader(join(capturesDir(this.path), name));
      if (!h || writerAlive({ id: 0, host_pid: h.hostPid, header: JSON.stringify({ [HOST_START]: h.hostStart }) })) continue;
      const claim = this.claimCapture(name, processIdentity(), false, () => ({
        name: h.name, startedAt: h.startedAt, status: 'running', command: h.command, cwd: h.cwd, hostPid: h.hostPid, hostStart: h.hostStart,
      }));
      if (claim) this.releaseCapture(claim.id);
    }
  }

  /**
   * Whether capture logs beside this database wait for an indexer: a log whose recording no live
   * process indexes (its tap died or exited before it caught up, or a recovery stopped halfway), or
   * an indexed one whose tap is gone and left it to be removed.
   */
  capturesOrphaned(): boolean {
    if (this.path === ':memory:' || this.schemaVersion < 5) return false;
    // Indexed logs a tap left to remove (Store.dropCapture), whose remover did not come: the indexer removes them.
    if (listDoneCaptureLogs(this.path).some((n) => !logWriterAlive(n))) return true;
    const names = listCaptureLogs(this.path);
    if (names.length === 0) return false;
    const owned = new Map<string, string | null>();
    for (const r of this.db.prepare(`SELECT capture, indexer FROM recordings WHERE capture IS NOT NULL`).all() as { capture: string; indexer: string | null }[]) owned.set(r.capture, r.indexer);
    return names.some((n) => {
      if (!owned.has(n)) return !logWriterAlive(n);
      const who = owned.get(n);
      return !who || !identityAlive(who);
    });
  }

  /**
   * Capture logs beside this database that no recording names yet, while its disk is full: sessions
   * whose taps could not make their recording for want of space (they make it once space returns).
   * How many, and the bytes they hold; null when there are none, or the disk is not full.
   */
  unlistedWhileFull(): { logs: number; bytes: number } | null {
    if (this.path === ':memory:' || this.schemaVersion < 5 || !diskFull(this.path)) return null;
    const known = new Set((this.db.prepare(`SELECT capture FROM recordings WHERE capture IS NOT NULL`).all() as { capture: string }[]).map((r) => r.capture));
    let logs = 0;
    let bytes = 0;
    for (const name of listCaptureLogs(this.path)) {
      if (known.has(name)) continue;
      let size = 0;
      try { size = statSync(join(capturesDir(this.path), name)).size; } catch { continue; /* gone meanwhile */ }
      // Empty, its tap gone: the disk took nothing of that session (nothing will be listed).
      if (size === 0 && !logWriterAlive(name)) continue;
      logs++;
      bytes += size;
    }
    return logs > 0 ? { logs, bytes } : null;
  }

  /**
   * Waits (blocking, polling) until recording `id` has no capture log left to index, as long as
   * indexing advances (`onProgress` hears how far); returns at once for a recording whose tap still
   * runs (it is read as far as it got, as always). Otherwise says why the log is not all indexed:
   * `stalled` when indexing made no progress for `stallMs`, `blocked` at once when the database's
   * disk is full (nothing can be indexed until space returns), with how far it got.
   */
  waitIndexed(id: number, onProgress?: (indexing: Indexing) => void, stallMs = 15_000): { stopped: 'stalled' | 'blocked'; indexing: Indexing } | null {
    if (this.schemaVersion < 5) return null;
    const nap = new Int32Array(new SharedArrayBuffer(4));
    let last = -1;
    let since = Date.now();
    for (;;) {
      const row = this.stmt(`SELECT * FROM recordings WHERE id = ?`).get(id) as RecordingRow | undefined;
      if (!row?.capture) return null;
      if (row.status === 'running' && row.ended_at === null && row.host_pid !== null && writerAlive(row)) return null;
      const { indexing } = toSummary(row, this.path);
      if (indexing) {
        if (indexing.blocked) return { stopped: 'blocked', indexing };
        if (indexing.indexedBytes !== last) {
          last = indexing.indexedBytes;
          since = Date.now();
          onProgress?.(indexing);
        }
        if (Date.now() - since > stallMs) return { stopped: 'stalled', indexing };
      }
      Atomics.wait(nap, 0, 0, 100);
    }
  }

  /**
   * Appends items (in one transaction) and bumps the recording's counters. Rows go in ROWS_PER_INSERT
   * at a time through one prepared multi-row INSERT, the rest one by one: most of a bare insert's cost
   * is the call into SQLite (binding, stepping, resetting the statement), paid once per group this way.
   * The rows and their order are the same either way.
   */
  appendItems(recordingId: number, items: Item[]): void {
    if (items.length === 0) return;
    this.db.transaction(() => this.insertItems(recordingId, items))();
  }

  /**
   * appendItems' rows, in the transaction the caller holds (an import's, the recorder's batch), which
   * rolls back whole on any error: a savepoint per batch, as appendItems' own transaction makes inside
   * another, cost a seventh of an import's insert CPU and a tenth of the recorder's.
   */
  insertItems(recordingId: number, items: Item[]): void {
    if (items.length > 0) this.insertRows(recordingId, items, null);
  }

  /** insertItems for rows packed on another thread (see item-rows.ts), in the caller's transaction. */
  insertPacked(recordingId: number, p: PackedRows): void {
    if (p.count > 0) this.insertRows(recordingId, null, p);
  }

  /**
   * Inserts `items`, or the packed rows `p`, and bumps the recording's counters. A packed row's raw
   * text comes as its UTF-8 bytes, stored as the text they are (CAST(? AS TEXT): no string is made of
   * them, and SQLite copies them as they are; 0.35-0.6 µs less CPU a 1 KiB row than binding the
   * string). No callback per row: with one (a closure over the items), an import under a 24 MiB
   * heap ran out of it. The values go as arguments, not as one array: better-sqlite3 reads an array's
   * elements through V8's generic property access, and arguments directly (0.4-0.6 µs less CPU a
   * 1 KiB row, about a tenth of the insert's). `raws`: beside `items`, a raw text's UTF-8 bytes
   * where the reader has them (an import of non-ASCII text), bound as the packed rows' are, in
   * place of the string (which then is never encoded back to UTF-8); null where not.
   */
  private insertRows(recordingId: number, items: Item[] | null, p: PackedRows | null, raws: (Buffer | null)[] | null = null): void {
    const packed = p !== null || raws !== null;
    const n = p ? p.count : items!.length;
    const arena = p ? Buffer.from(p.arena) : null;
    const one = this.stmt(`${INSERT_ITEMS} ${itemPlaceholders(1, packed)}`);
    const many = this.stmt(`${INSERT_ITEMS} ${itemPlaceholders(ROWS_PER_INSERT, packed)}`);
    const single = this.itemRow ??= new Array<unknown>(ITEM_COLUMNS);
    const rows = this.itemRows ??= new Array<unknown>(ITEM_COLUMNS * ROWS_PER_INSERT);
    let frames = 0;
    const whole = n - (n % ROWS_PER_INSERT);
    for (let i = 0; i < whole; i += ROWS_PER_INSERT) {
      for (let k = 0; k < ROWS_PER_INSERT; k++) {
        if (p) unpackRow(p, arena!, i + k, recordingId, rows, k * ITEM_COLUMNS);
        else {
          frames += itemColumns(recordingId, items![i + k]!, rows, k * ITEM_COLUMNS, raws?.[i + k]);
        }
      }
      many.run(...rows);
    }
    for (let i = whole; i < n; i++) {
      if (p) unpackRow(p, arena!, i, recordingId, single, 0);
      else {
        frames += itemColumns(recordingId, items![i]!, single, 0, raws?.[i]);
      }
      one.run(...single);
    }
    rows.fill(null); // no raw line stays referenced between batches
    single.fill(null);
    const counted = this.stmt(
      `UPDATE recordings SET item_count = item_count + ?, frame_count = frame_count + ?, heartbeat_at = ?,
         duration_ms = MAX(COALESCE(duration_ms, 0), ?) WHERE id = ?`,
    ).run(n, p ? p.frames : frames, Date.now(), p ? p.lastT : items![n - 1]!.t, recordingId);
    if (counted.changes === 0) throw recordingGone(recordingId);
  }

  /** Appends findings and bumps the recording's severity counters. */
  appendFindings(recordingId: number, findings: Iterable<StoredFinding>): void {
    if (Array.isArray(findings) && findings.length === 0) return;
    const ins = this.stmt(`INSERT INTO findings (recording_id, seq, severity, rule, message, spec) VALUES (?, ?, ?, ?, ?, ?)`);
    let e = 0, w = 0, i = 0;
    this.db.transaction(() => {
      for (const f of findings) {
        ins.run(recordingId, f.seq, f.severity, f.rule, f.message, f.spec ?? null);
        if (f.severity === 'error') e++;
        else if (f.severity === 'warning') w++;
        else i++;
      }
      const counted = this.stmt(`UPDATE recordings SET error_count = error_count + ?, warning_count = warning_count + ?, info_count = info_count + ? WHERE id = ?`)
        .run(e, w, i, recordingId);
      if (counted.changes === 0) throw recordingGone(recordingId);
    })();
  }

  /** Replaces all findings of a recording (after a re-check). */
  replaceFindings(recordingId: number, findings: Iterable<StoredFinding>): void {
    this.db.transaction(() => {
      this.stmt(`DELETE FROM findings WHERE recording_id = ?`).run(recordingId);
      this.stmt(`UPDATE recordings SET error_count = 0, warning_count = 0, info_count = 0 WHERE id = ?`).run(recordingId);
      this.appendFindings(recordingId, findings);
    })();
  }

  /** Updates recording columns; keys are column names of `recordings`. */
  updateRecording(id: number, patch: Partial<Record<keyof RecordingRow, unknown>>): void {
    const keys = Object.keys(patch).filter((k) => /^[a-z_]+$/.test(k));
    if (keys.length === 0) return;
    const sql = `UPDATE recordings SET ${keys.map((k) => `${k} = ?`).join(', ')} WHERE id = ?`;
    this.db.prepare(sql).run(...keys.map((k) => {
      const v = (patch as Record<string, unknown>)[k];
      return v !== null && typeof v === 'object' ? JSON.stringify(v) : (v as string | number | null) ?? null;
    }), id);
  }

  /**
   * Marks recordings whose writer died (status running, tap pid gone) as interrupted, so a tap killed
   * with SIGKILL does not stay "running" forever. Returns how many were marked.
   */
  markInterrupted(isAlive: (pid: number) => boolean = pidAlive): number {
    finishOrphanedCaptures(this);
    let n = 0;
    const handedOn = this.handedOn();
    for (const r of this.runningRecordings()) {
      if (!cutShort(r, handedOn, isAlive)) continue;
      this.db.prepare(`UPDATE recordings SET status = 'interrupted', incomplete = 1,
        incomplete_reason = COALESCE(incomplete_reason, 'the recording process ended without finishing it') WHERE id = ? AND status = 'running'`).run(r.id);
      n++;
    }
    return n;
  }

  /** Recordings marked running, with what tells whether their writer still lives (see writerAlive). */
  runningRecordings(id?: number): RunningRow[] {
    return this.db.prepare(`SELECT id, host_pid, header, ended_at${this.schemaVersion >= 5 ? ', capture' : ''} FROM recordings WHERE status = 'running'${id === undefined ? '' : ' AND id = ?'}`)
      .all(...(id === undefined ? [] : [id])) as RunningRow[];
  }

  /** Whether running recording `r` (see runningRecordings) was cut short: its writer died (see cutShort). */
  diedRunning(r: RunningRow): boolean {
    return cutShort(r, this.handedOn());
  }

  /** The capture logs beside this database that taps handed on as they exited cleanly (see indexer-pids.ts). */
  private handedOn(): Set<string> {
    return this.path === ':memory:' ? new Set() : handedOnLogs(this.path);
  }

  /**
   * Deletes a recording: its rows and its capture log, if one is left. An indexer at work on the log
   * finds the recording gone at its next write and stops (see StoreWriter). The log is marked under
   * the write lock (markDeleting) and removed once the deletion is committed: a kill before the commit
   * leaves the recording with its log, one after it a marked log that the next claim removes rather
   * than adopts (claimCapture), as does a claim made between the commit and the removal.
   */
  deleteRecording(id: number): void {
    this.requireRecording(id);
    let capture: string | null = null;
    this.db.transaction(() => {
      capture = this.schemaVersion >= 5 ? (this.stmt(`SELECT capture FROM recordings WHERE id = ?`).get(id) as { capture: string | null }).capture : null;
      this.stmt(`DELETE FROM findings WHERE recording_id = ?`).run(id);
      this.stmt(`DELETE FROM notes WHERE recording_id = ?`).run(id);
      this.stmt(`DELETE FROM items WHERE recording_id = ?`).run(id);
      this.stmt(`DELETE FROM recordings WHERE id = ?`).run(id);
      if (capture) markDeleting(join(capturesDir(this.path), capture));
    }).immediate();
    if (capture) this.dropCapture(capture);
  }

  /** Whether recording `id` exists (an indexer asks when a write fails: was it deleted meanwhile?). */
  hasRecording(id: number): boolean {
    return this.stmt(`SELECT 1 FROM recordings WHERE id = ?`).get(id) !== undefined;
  }

  /** Imports an in-memory recording (from a transcript) as a new recording; returns its id. */
  importRecording(rec: Recording, name?: string): number {
    return this.importStream({ header: rec.header, items: rec.items, notes: () => rec.notes ?? [] }, name).id;
  }

  /**
   * Imports a recording read as it streams (a transcript file of any size) as a new recording, in
   * one transaction: the items go in IMPORT_BATCH at a time as they are read, and a bad line further
   * on (the reader throws) rolls everything back, so nothing half-imported is left. `notes` is asked
   * once the items were read; `created` is told the new id before the items are read. Returns the
   * new id and how many items and notes went in.
   */
  importStream(src: { header: TranscriptHeader; items: Iterable<Item>; notes: () => readonly TranscriptNote[]; lastRaw?: () => Buffer | null }, name?: string, created?: (id: number) => void): { id: number; items: number; notes: number } {
    const h = src.header;
    let id = 0;
    let count = 0;
    let noteCount = 0;
    // Appends without statement journals (see APPEND_ONLY) for the import alone: a connection that
    // reads keeps its temporary sorts on disk, and one that deletes its foreign keys' cascades.
    const was = this.pragmas(APPEND_ONLY);
    try {
      this.db.transaction(() => {
        id = this.createRecording({
          name: name ?? h.name ?? null,
          startedAt: h.startedAt ?? new Date().toISOString(),
          status: 'imported',
          command: h.command ?? null,
          cwd: h.cwd ?? null,
          header: h,
        });
        created?.(id);
        const info: ReturnType<typeof peerInfoOf> = {};
        let batch: Item[] = [];
        const lastRaw = src.lastRaw;
        // Each item's raw text as the UTF-8 bytes the reader has of it, or null (see insertRows), and
        // how many of the batch's are bytes: a batch of none goes as before (an import of ASCII text
        // whose batches went through insertRows with its `raws` took a third more CPU and 60 MiB more
        // memory, measured, though they were all null).
        let raws: (Buffer | null)[] = [];
        let bytes = 0;
        let lastT = 0;
        for (const it of src.items) {
          batch.push(it);
          if (lastRaw) {
            const raw = lastRaw();
            raws.push(raw);
            if (raw) bytes++;
          }
          lastT = it.t;
          count++;
          if ((it.dir === 'c2a' || it.dir === 'a2c') && (info.agentName === undefined || info.clientName === undefined)) Object.assign(info, peerInfoFromFrame(it as Frame));
          if (batch.length >= IMPORT_BATCH) {
            if (bytes > 0) this.insertRows(id, batch, null, raws);
            else this.insertItems(id, batch);
            batch = [];
            raws = [];
            bytes = 0;
          }
        }
        if (bytes > 0) this.insertRows(id, batch, null, raws);
        else this.insertItems(id, batch);
        const notes = src.notes();
        noteCount = notes.length;
        for (const n of notes) this.insertNote(id, n.seq, n.text, n.at, n.updatedAt);
        this.updateRecording(id, {
          ended_at: h.endedAt ?? null,
          exit_code: h.exitCode ?? null,
          exit_signal: h.exitSignal ?? null,
          pid: h.pid ?? null,
          client_name: h.client?.name ?? info.clientName ?? null,
          client_version: h.client?.version ?? info.clientVersion ?? null,
          agent_name: h.agent?.name ?? info.agentName ?? null,
          agent_version: h.agent?.version ?? info.agentVersion ?? null,
          protocol_version: h.protocolVersion ?? info.protocolVersion ?? null,
          duration_ms: count ? lastT : 0,
        });
      })();
    } finally {
      this.pragmas(was);
    }
    return { id, items: count, notes: noteCount };
  }

  /**
   * Sets pragmas where they can be set (temp_store cannot be inside a transaction, and foreign_keys
   * does nothing there); returns what they were, to set them back with.
   */
  private pragmas(to: ReadonlyArray<readonly [string, string | number]>): [string, string | number][] {
    const was: [string, string | number][] = [];
    for (const [k, v] of to) {
      try {
        const before = this.db.pragma(k, { simple: true }) as number;
        if (String(before) !== String(v)) this.db.pragma(`${k} = ${v}`);
        was.push([k, before]);
      } catch { /* in a transaction: left as it is */ }
    }
    return was;
  }

  // ---- reading -------------------------------------------------------------------------------

  listRecordings(opts: { search?: string; limit?: number } = {}): RecordingSummary[] {
    const where = opts.search ? `WHERE name LIKE ? OR agent_name LIKE ? OR client_name LIKE ? OR command LIKE ?` : '';
    const args = opts.search ? Array(4).fill(`%${opts.search}%`) : [];
    const rows = this.db.prepare(`SELECT * FROM recordings ${where} ORDER BY id DESC LIMIT ?`).all(...args, opts.limit ?? 1_000_000) as RecordingRow[];
    return rows.map((r) => toSummary(r, this.path));
  }

  getRecording(id: number): RecordingSummary | undefined {
    const row = this.stmt(`SELECT * FROM recordings WHERE id = ?`).get(id) as RecordingRow | undefined;
    return row ? toSummary(row, this.path) : undefined;
  }

  /** ` --db PATH` when this is not the default database, for commands a message suggests. */
  private dbFlag(): string {
    return this.path === defaultDbPath() ? '' : ` --db ${this.path}`;
  }

  private requireRecording(id: number): RecordingSummary {
    const r = this.getRecording(id);
    if (!r) throw new StoreError('E_UNKNOWN_RECORDING', `no recording with id ${id} in ${this.path}; run \`acp-inspect list${this.dbFlag()}\` to see the ids`);
    return r;
  }

  /** Resolves `latest` or a numeric id to an existing recording id. */
  resolveRef(ref: string): number {
    if (ref === 'latest') {
      const row = this.stmt(`SELECT id FROM recordings ORDER BY id DESC LIMIT 1`).get() as { id: number } | undefined;
      if (!row) throw new StoreError('E_UNKNOWN_RECORDING', `no recordings in ${this.path} yet; record one with \`acp-inspect -- <agent command>\``);
      return row.id;
    }
    if (!/^\d+$/.test(ref) || !Number.isSafeInteger(Number(ref))) {
      throw new StoreError('E_UNKNOWN_RECORDING', `"${ref}" is not a recording id, nor a file; use a number from \`acp-inspect list${this.dbFlag()}\`, "latest", or a transcript file's path`);
    }
    return this.requireRecording(Number(ref)).id;
  }

  /**
   * resolveRef, then waits until the recording's capture log is all indexed (a tap that died or
   * exited before its recorder caught up: see waitIndexed), saying once on stderr how far it is.
   */
  resolveIndexedRef(ref: string): number {
    const id = this.resolveRef(ref);
    let said = false;
    const stopped = this.waitIndexed(id, (p) => {
      if (said) return;
      said = true;
      process.stderr.write(`acp-inspect: recording ${id} is being indexed (${Math.floor((100 * p.indexedBytes) / Math.max(1, p.totalBytes))}% of ${(p.totalBytes / 1048576).toFixed(1)} MiB); waiting for it\n`);
    });
    // Never a partial answer: what is not indexed is not read (the capture log holds it, safe).
    if (stopped) {
      const { indexing } = stopped;
      const waiting = `${((indexing.totalBytes - indexing.indexedBytes) / 1048576).toFixed(1)} MiB of its capture log waiting`;
      throw new StoreError('E_NOT_INDEXED', stopped.stopped === 'blocked'
        ? `recording ${id} cannot be read whole: indexing blocked: disk full (${waiting}); free space on the disk of ${this.path} and indexing resumes by itself`
        : `recording ${id} cannot be read whole: its indexing made no progress for 15 s (${waiting}); run \`acp-inspect index${this.dbFlag()}\`, then read it again`);
    }
    return id;
  }

  /** Items of a recording in seq order, from `afterSeq` (exclusive), at most `limit`. */
  readItems(recordingId: number, afterSeq = 0, limit = -1): Item[] {
    const rows = this.stmt(`SELECT * FROM items WHERE recording_id = ? AND seq > ? ORDER BY seq LIMIT ?`).all(recordingId, afterSeq, limit) as ItemRow[];
    return rows.map((r) => rowToItem(r));
  }

  /** Iterates all items without holding them all in memory (the connection is busy until the end). */
  *iterateItems(recordingId: number, afterSeq = 0): Generator<Item> {
    // Rows as arrays: better-sqlite3 builds a 15-key object per row otherwise, which cost more than
    // reading the row (about 6 against 2.5 µs a row on a million-item recording).
    const st = this.stmt(`SELECT ${ITEM_ROW_COLUMNS} FROM items WHERE recording_id = ? AND seq > ? ORDER BY seq`).raw(true);
    for (const r of st.iterate(recordingId, afterSeq) as IterableIterator<ItemRowArray>) yield arrayToItem(r);
  }

  /**
   * Items after `afterSeq` up to `toSeq` (inclusive), in seq order, read a page of `pageRows` at a
   * time. Each page is a finished query: other statements may run on this connection between two
   * items (a server answering other requests while it streams a download), and only a page is held.
   */
  *pagedItems(recordingId: number, afterSeq = 0, toSeq = Number.MAX_SAFE_INTEGER, pageRows = 1000, opts: { json?: boolean; blankRawWhen?: string; rawJson?: boolean; bytes?: boolean } = {}): Generator<Item> {
    // `json` false: frames come without their JSON parsed (for readers of the raw lines: export).
    // `rawJson`: frames come as RawJsonFrame (for writers of transcript lines; implies `json` false).
    // `blankRawWhen`: as selectItems'.
    // `bytes`: see BYTES_ITEM_COLUMNS (for readers that seldom read a chunk frame's text: the waterfall, insights).
    const parse = opts.json !== false;
    const bytes = opts.bytes && !opts.blankRawWhen && !opts.rawJson;
    // A row that says its chunk (schema 7) comes without its text, read from the store only when read.
    const chunks = bytes && parse && this.schemaVersion >= 7;
    const cols = opts.rawJson ? RAW_JSON_COLUMNS : chunks ? CHUNK_ITEM_COLUMNS : bytes ? BYTES_ITEM_COLUMNS : itemColumnsSql(opts.blankRawWhen);
    const st = this.stmt(`SELECT ${cols} FROM items WHERE recording_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?`).raw(true);
    const fetch = chunks ? this.rawOf(recordingId) : undefined;
    for (let after = afterSeq; ;) {
      const rows = st.all(recordingId, after, toSeq, pageRows) as ItemRowArray[];
      if (opts.rawJson) for (let i = 0; i < rows.length; i++) yield rawJsonItem(rows[i] as unknown as RawJsonRow);
      else for (let i = 0; i < rows.length; i++) yield arrayToItem(rows[i]!, parse, fetch);
      if (rows.length < pageRows) return;
      after = rows[rows.length - 1]![0]; // seq, first in both column lists
    }
  }

  /** Reads the raw text of a frame of recording `recordingId` by its seq (a StoredText's fetch). */
  private rawOf(recordingId: number): (seq: number) => string {
    const st = this.stmt(`SELECT raw FROM items WHERE recording_id = ? AND seq = ?`).pluck();
    return (seq) => {
      const raw = st.get(recordingId, seq) as string | undefined;
      if (raw === undefined) throw new StoreError('E_NO_ITEM', `recording ${recordingId} has no frame ${seq} (deleted while it was read)`);
      return raw;
    };
  }

  /**
   * The items of a recording that a condition on the `items` table picks (`where`: SQL over its
   * columns, `?` for `params`), in seq order. For readers that find their rows through the indexes
   * (store/slice-source.ts): a condition is best one an index answers (no OR across columns).
   */
  selectItems(recordingId: number, where: string, params: unknown[] = [], opts: { blankRawWhen?: string; index?: string } = {}): Item[] {
    // `blankRawWhen`: rows whose text the reader does not need come with an empty `raw` (and no JSON).
    const cols = itemColumnsSql(opts.blankRawWhen);
    // Sorted here, not by SQL: an ORDER BY seq makes SQLite walk the seq index past every row
    // rather than use the index the condition names (method, reply_to, kind).
    // `index`: the index to read through, where SQLite (which keeps no statistics here) would pick a worse one.
    const from = opts.index && /^[a-z_]+$/.test(opts.index) ? `items INDEXED BY ${opts.index}` : 'items';
    const rows = this.stmt(`SELECT ${cols} FROM ${from} WHERE recording_id = ? AND (${where})`).raw(true).all(recordingId, ...params) as ItemRowArray[];
    rows.sort((a, b) => a[0] - b[0]);
    return rows.map((r) => arrayToItem(r));
  }

  /** The last seq of a recording (0 when it has no items). */
  maxSeq(recordingId: number): number {
    return (this.stmt(`SELECT MAX(seq) AS m FROM items WHERE recording_id = ?`).get(recordingId) as { m: number | null }).m ?? 0;
  }

  readFindings(recordingId: number): StoredFinding[] {
    return (this.stmt(`SELECT seq, severity, rule, message, spec FROM findings WHERE recording_id = ? ORDER BY seq, rowid`).all(recordingId) as StoredFinding[])
      .map((f) => (f.spec === null ? { ...f, spec: undefined } : f));
  }

  /** The whole recording as a transcript (header, items, notes). */
  loadRecording(id: number): Recording {
    const s = this.requireRecording(id);
    const rec: Recording = { header: headerOf(s, this.rawHeader(id)), items: this.readItems(id) };
    const notes = this.readNotes(id);
    if (notes.length) rec.notes = notes.map(toTranscriptNote);
    return rec;
  }

  // ---- notes ---------------------------------------------------------------------------------

  /** Notes of a recording in seq order, then in the order they were written. */
  readNotes(recordingId: number): StoredNote[] {
    if (this.schemaVersion < 2) return [];
    return (this.stmt(`SELECT * FROM notes WHERE recording_id = ? ORDER BY seq, id`).all(recordingId) as NoteRow[]).map(toNote);
  }

  /** Every note of every recording, newest recording first. */
  readAllNotes(): StoredNote[] {
    if (this.schemaVersion < 2) return [];
    return (this.stmt(`SELECT * FROM notes ORDER BY recording_id DESC, seq, id`).all() as NoteRow[]).map(toNote);
  }

  getNote(recordingId: number, noteId: number): StoredNote | undefined {
    if (this.schemaVersion < 2) return undefined;
    const row = this.stmt(`SELECT * FROM notes WHERE recording_id = ? AND id = ?`).get(recordingId, noteId) as NoteRow | undefined;
    return row ? toNote(row) : undefined;
  }

  /**
   * Writes a note on item `seq` of a recording (it may be running: one short transaction beside the
   * tap's). Throws a StoreError naming the fix for an unknown recording, an item it does not have
   * (yet), or an over-long text.
   */
  addNote(recordingId: number, seq: number, text: string): StoredNote {
    const rec = this.requireRecording(recordingId);
    checkNoteText(text);
    if (!Number.isSafeInteger(seq) || seq < 1 || !this.stmt(`SELECT 1 FROM items WHERE recording_id = ? AND seq = ?`).get(recordingId, seq)) {
      throw new StoreError('E_NO_ITEM', `recording ${recordingId} has no item #${seq}; its items are #1 to #${rec.items}${rec.status === 'running' ? ' so far' : ''} (see \`acp-inspect show ${recordingId}\`)`);
    }
    const id = this.insertNote(recordingId, seq, text);
    return this.getNote(recordingId, id)!;
  }

  /** Replaces the text of a note; throws E_NO_NOTE when the recording has no such note. */
  updateNote(recordingId: number, noteId: number, text: string): StoredNote {
    checkNoteText(text);
    const info = this.stmt(`UPDATE notes SET text = ?, updated_at = ? WHERE recording_id = ? AND id = ?`).run(text, new Date().toISOString(), recordingId, noteId);
    if (info.changes === 0) throw this.noNote(recordingId, noteId);
    return this.getNote(recordingId, noteId)!;
  }

  /** Deletes notes of a recording by id; throws E_NO_NOTE (deleting none) when one is not there. */
  deleteNotes(recordingId: number, noteIds: number[]): void {
    this.requireRecording(recordingId);
    this.db.transaction(() => {
      for (const id of noteIds) if (!this.getNote(recordingId, id)) throw this.noNote(recordingId, id);
      for (const id of noteIds) this.stmt(`DELETE FROM notes WHERE recording_id = ? AND id = ?`).run(recordingId, id);
    })();
  }

  private noNote(recordingId: number, noteId: number): StoreError {
    this.requireRecording(recordingId);
    return new StoreError('E_NO_NOTE', `recording ${recordingId} has no note ${noteId}; run \`acp-inspect note list ${recordingId}\` to see its notes`);
  }

  private insertNote(recordingId: number, seq: number, text: string, at?: string, updatedAt?: string): number {
    const info = this.stmt(`INSERT INTO notes (recording_id, seq, text, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`)
      .run(recordingId, seq, text, at ?? new Date().toISOString(), updatedAt ?? null);
    return Number(info.lastInsertRowid);
  }

  /** Transcript header of a stored recording. */
  headerOf(id: number): TranscriptHeader {
    return headerOf(this.requireRecording(id), this.rawHeader(id));
  }

  private rawHeader(id: number): Record<string, unknown> {
    const row = this.stmt(`SELECT header FROM recordings WHERE id = ?`).get(id) as { header: string | null } | undefined;
    if (!row?.header) return {};
    try { return JSON.parse(row.header) as Record<string, unknown>; } catch { return {}; }
  }
}

function checkNoteText(text: string): void {
  if (text.length > MAX_NOTE_CHARS) {
    throw new StoreError('E_NOTE_TOO_LONG', `a note holds at most ${MAX_NOTE_CHARS} characters, this one has ${text.length}; shorten it or link to a file`);
  }
}

/** A stored note as a transcript note line's content. */
export function toTranscriptNote(n: StoredNote): TranscriptNote {
  const t: TranscriptNote = { seq: n.seq, text: n.text, at: n.createdAt };
  if (n.updatedAt) t.updatedAt = n.updatedAt;
  return t;
}

/**
 * Whether a recording is still being recorded: its tap runs. One whose tap has exited or died while
 * an indexer finishes its capture log is not (it can be deleted: the indexer stops).
 */
export function stillRecording(r: RecordingSummary): boolean {
  return r.status === 'running' && (!r.indexing || r.indexing.live === true);
}

function toSummary(r: RecordingRow, dbPath: string): RecordingSummary {
  let command: string[] | null = null;
  try { command = r.command ? (JSON.parse(r.command) as string[]) : null; } catch { command = null; }
  return {
    id: r.id, name: r.name, startedAt: r.started_at, endedAt: r.ended_at, status: r.status,
    incomplete: !!r.incomplete, incompleteReason: r.incomplete_reason, command, cwd: r.cwd, pid: r.pid,
    exitCode: r.exit_code, exitSignal: r.exit_signal,
    client: { name: r.client_name, version: r.client_version },
    agent: { name: r.agent_name, version: r.agent_version },
    protocolVersion: r.protocol_version, items: r.item_count, frames: r.frame_count,
    errors: r.error_count, warnings: r.warning_count, infos: r.info_count, durationMs: r.duration_ms,
    indexing: r.capture ? indexingOf(dbPath, r.capture, r.capture_indexed ?? 0, r.status !== 'running' || r.ended_at !== null || !writerAlive(r)) : null,
  };
}

function headerOf(s: RecordingSummary, extra: Record<string, unknown>): TranscriptHeader {
  const { [HOST_START]: _host, ...rest } = extra; // the writer's process identity stays local
  const h: TranscriptHeader = { ...rest, acpInspect: 'recording', version: 1 };
  if (s.name !== null) h.name = s.name;
  h.startedAt = s.startedAt;
  if (s.endedAt) h.endedAt = s.endedAt;
  if (s.command) h.command = s.command;
  if (s.cwd) h.cwd = s.cwd;
  if (s.pid !== null) h.pid = s.pid;
  if (s.exitCode !== null) h.exitCode = s.exitCode;
  if (s.exitSignal !== null) h.exitSignal = s.exitSignal;
  h.status = s.status;
  if (s.incomplete) h.incomplete = true;
  if (s.client.name) h.client = { name: s.client.name, ...(s.client.version ? { version: s.client.version } : {}) };
  if (s.agent.name) h.agent = { name: s.agent.name, ...(s.agent.version ? { version: s.agent.version } : {}) };
  if (s.protocolVersion !== null) h.protocolVersion = s.protocolVersion;
  return h;
}

/** ITEM_ROW_COLUMNS, with an empty `raw` where `blankRawWhen` holds. */
function itemColumnsSql(blankRawWhen: string | undefined): string {
  return blankRawWhen ? ITEM_ROW_COLUMNS.replace(' raw,', ` CASE WHEN ${blankRawWhen} THEN '' ELSE raw END,`) : ITEM_ROW_COLUMNS;
}

/**
 * ITEM_ROW_COLUMNS with a frame's raw text read as its UTF-8 bytes (a BLOB) when it is not ASCII (its
 * `length`, in characters, is not its `size`, in bytes; a truncated frame's size is its size on the
 * wire, more) and not stored beside bytes that were not UTF-8. better-sqlite3 decodes a non-ASCII
 * text into a string for every row it reads, which cost the waterfall and insights of a 1 GiB
 * recording of mixed text 4 s of their 15 (ASCII's: 7 s); from the bytes, a text chunk frame's text
 * is decoded only when it is read (wire/lazy-chunk.ts), and any other frame's at once.
 */
const BYTES_ITEM_COLUMNS = ITEM_ROW_COLUMNS.replace(' raw,', " CASE WHEN dir IN ('c2a', 'a2c') AND raw_bytes IS NULL AND length(raw) <> size THEN CAST(raw AS BLOB) ELSE raw END,");

/**
 * BYTES_ITEM_COLUMNS with the `chunk` column after them (schema 7), and no raw text (null) for a row
 * that has one: what the row's item needs of its text chunk frame is its session id (a column), its
 * update kind and its text's length, and its raw text is read only if something reads it.
 */
const CHUNK_ITEM_COLUMNS = BYTES_ITEM_COLUMNS.replace(' CASE WHEN', ' CASE WHEN chunk IS NOT NULL THEN NULL WHEN') + ', chunk';

/**
 * An Item from its row read as an array (ITEM_ROW_COLUMNS, BYTES_ITEM_COLUMNS, or CHUNK_ITEM_COLUMNS
 * with `fetch`, which reads a raw text left out).
 */
function arrayToItem(r: ItemRowArray, parse = true, fetch?: (seq: number) => string): Item {
  const chunk = fetch === undefined ? null : (r as unknown as unknown[])[14] as number | null;
  if (chunk !== null && chunk !== undefined) {
    return itemOf({
      seq: r[0], t: r[1], dir: r[2], kind: r[3], method: r[4], rpcId: r[5], replyTo: r[6], latency: r[7], sessionId: r[8], size: r[9],
      raw: '', parseError: r[12], truncated: !!r[13], rawBase64: null,
    }, parse, undefined, undefined, { update: chunk & 3, text: new StoredText(fetch!, r[0], Math.floor(chunk / 4)) });
  }
  const raw = r[10] as string | Buffer;
  const bytes = typeof raw !== 'string';
  return itemOf({
    seq: r[0], t: r[1], dir: r[2], kind: r[3], method: r[4], rpcId: r[5], replyTo: r[6], latency: r[7], sessionId: r[8], size: r[9],
    raw: bytes ? raw.toString('latin1') : raw, parseError: r[12], truncated: !!r[13], rawBase64: r[11] ? Buffer.from(r[11]).toString('base64') : null,
  }, parse, undefined, bytes ? decodeLatin1Utf8 : undefined);
}

/**
 * The columns of a row read for its transcript line, a frame's raw text written as a JSON string by
 * SQLite (see RawJsonFrame): as text when the raw text is ASCII (its `length`, in characters, is its
 * `size`, in bytes; a truncated frame's size is its size on the wire, more), else as its UTF-8 bytes
 * (a BLOB), which the line takes as they are. Read as text, a non-ASCII frame's was decoded from UTF-8
 * by better-sqlite3 and encoded back by the writer, which doubled an export's time per frame on
 * multi-byte text; read as a BLOB, an ASCII frame's costs a Buffer more than its string.
 */
const RAW_JSON_COLUMNS = `seq, t, dir, kind, size, CASE WHEN dir NOT IN ('c2a', 'a2c') THEN raw WHEN length(raw) = size THEN json_quote(raw) ELSE CAST(json_quote(raw) AS BLOB) END, raw_bytes, truncated`;
type RawJsonRow = [number, number, string, string | null, number | null, string | Buffer, Buffer | null, number | null];

/**
 * A stored frame read to be written as a transcript line (export, the download route). SQLite hands
 * its raw text over already written as a JSON string (`rawJson`: json_quote escapes exactly as
 * JSON.stringify does: quotes and backslashes, \b \f \n \r \t, other control characters as
 * lowercase \u00xx, nothing else; text read from SQLite holds no lone surrogate; the store's tests
 * compare the two over every UTF-16 unit), which a kilobyte frame's line
 * spent most of its time on in JavaScript. A frame whose text is not ASCII has it as that JSON
 * string's UTF-8 bytes (valid UTF-8: bytes that are not stay text, decoded as better-sqlite3 decodes
 * them), which the line copies as they are. `raw` is decoded from it when something reads it
 * (redaction, for a line that may hold a secret). Only what the line holds is read: no method, id,
 * session id, answer or parse error. A copy made by spreading it has no `raw` (a getter): give it
 * `raw: f.raw`.
 */
export class RawJsonFrame implements Frame {
  kind: FrameKind;
  truncated?: boolean;
  rawBase64?: string;
  private decoded: string | undefined;

  constructor(readonly seq: number, readonly t: number, readonly dir: Direction, readonly size: number, kind: FrameKind, readonly rawJson: string | Buffer) {
    this.kind = kind;
  }

  get raw(): string {
    return (this.decoded ??= JSON.parse(typeof this.rawJson === 'string' ? this.rawJson : this.rawJson.toString('utf8')) as string);
  }
}

/** The item of a row read with RAW_JSON_COLUMNS: a frame as a RawJsonFrame, anything else as itemOf's. */
function rawJsonItem(r: RawJsonRow): Item {
  const [seq, t, dir, kind, size, quoted, rawBytes, truncated] = r;
  if (dir !== 'c2a' && dir !== 'a2c') {
    return itemOf({ seq, t, dir, kind, method: null, rpcId: null, replyTo: null, latency: null, sessionId: null, size, raw: quoted as string, parseError: null, truncated: false, rawBase64: null });
  }
  // Text stored as bytes that are not UTF-8 (the tap's packed rows may hold some) is read as
  // better-sqlite3 reads text (Buffer's decoding replaces the same bytes with U+FFFD).
  const text = typeof quoted === 'string' || (size !== null && isUtf8(quoted)) ? quoted : quoted.toString('utf8');
  const f = new RawJsonFrame(seq, t, dir, size ?? Buffer.byteLength(JSON.parse(text as string) as string), (kind as FrameKind) ?? 'invalid', text);
  if (truncated) f.truncated = true;
  if (rawBytes) f.rawBase64 = Buffer.from(rawBytes).toString('base64');
  return f;
}

/** Rebuilds an Item from its row (the same reading the in-memory source does of its columns); `chunk`, `decode`: as itemOf's. */
export function rowToItem(r: ItemRow, chunk?: ChunkKind, decode?: Utf8Decoder): Item {
  return itemOf({
    seq: r.seq, t: r.t, dir: r.dir, kind: r.kind, method: r.method, rpcId: r.rpc_id, replyTo: r.reply_to, latency: r.latency,
    sessionId: r.session_id, size: r.size, raw: r.raw, parseError: r.parse_error, truncated: !!r.truncated,
    rawBase64: r.raw_bytes ? Buffer.from(r.raw_bytes).toString('base64') : null,
  }, true, chunk, decode);
}

export { peerInfoOf, peerInfoFromFrame };

/** Key of the writer's process identity in a recording's stored header (never exported). */
const HOST_START = 'hostStart';

/**
 * OR FAIL: a row that breaks a constraint ends the statement there, and the transaction it is in (every
 * caller's) is rolled back whole by its caller, as with the default (ABORT). But ABORT undoes the
 * statement alone first, so SQLite keeps a statement journal for it, the pages each multi-row INSERT
 * is about to change (about 10 pages of 16 KiB per 32 rows); with OR FAIL, and no foreign key to check
 * (APPEND_ONLY), it keeps none.
 */
const INSERT_ITEMS = `INSERT OR FAIL INTO items (recording_id, seq, t, dir, kind, method, rpc_id, reply_to, latency, session_id, size, raw, raw_bytes, parse_error, truncated, chunk) VALUES`;
/**
 * The pragmas of a connection that appends items (OpenOptions.appendOnly, and an import for its
 * transaction). Each multi-row INSERT in a transaction kept a statement journal (see INSERT_ITEMS),
 * because the items' foreign key could abort it alone, spilled to a temporary file past 64 KiB: of the
 * 286k pwrite calls indexing a 300k-frame log, 212k were those. Without the foreign key's check (the
 * recording is this connection's own, or made in the same transaction; one deleted meanwhile is seen
 * by the counters' UPDATE, which then changes nothing: see recordingGone) and with OR FAIL, there is
 * none; temp_store = MEMORY keeps any other (a findings batch's) off the disk. Measured on a 1 GiB
 * flood's log (1,048,576 frames) from a clean page cache, `acp-inspect index`: 9.5-10.1 s with
 * the spilled journal, 8.1-8.5 s in memory, and its writer thread's CPU 3.2-3.9 s -> 2.6-2.9 s without
 * it (3 runs each, alternating). An import of it as a transcript: 14.8-18.7 s -> 13.1-14.9 s in memory.
 */
const APPEND_ONLY: ReadonlyArray<readonly [string, string | number]> = [['temp_store', 'MEMORY'], ['foreign_keys', 'OFF']];

/** The error of a write for a recording that is no more (deleted while it was written). */
function recordingGone(id: number): Error {
  return Object.assign(new Error(`recording ${id} is no more: it was deleted while its items were written`), { code: 'E_RECORDING_GONE' });
}

/** Items imported per appendItems (a transaction's savepoint), as a transcript streams in. */
const IMPORT_BATCH = 2000;
/** Rows per multi-row INSERT (480 bound values, well under SQLite's limit of 32766). */
const ROWS_PER_INSERT = 32;

/** The VALUES of a multi-row INSERT_ITEMS; `rawBytes`: `raw` bound as UTF-8 bytes, stored as text. */
function itemPlaceholders(rows: number, rawBytes = false): string {
  const cols = new Array<string>(ITEM_COLUMNS).fill('?');
  if (rawBytes) cols[ITEM_RAW] = 'CAST(? AS TEXT)';
  return new Array(rows).fill(`(${cols.join(', ')})`).join(', ');
}

/**
 * Copies what SQLite's write-ahead log beside `path` holds into the database (a PASSIVE checkpoint:
 * it waits for nobody), when there is such a log, then empties the log's file (a TRUNCATE
 * checkpoint, which waits at most LOG_TRUNCATE_WAIT_MS for a writer, and copies what came
 * meanwhile). Without that, a flood's log file (1.8 GiB after a million 1 KiB frames) stayed as
 * large while its tap lived, and the first process to open the database after it read all of it to
 * recover its index. Does nothing, quietly, on a database it cannot open.
 */
export function copyLeftLog(path: string): void {
  try {
    if (statSync(`${path}-wal`).size === 0) return;
  } catch {
    return;
  }
  try {
    const store = Store.open(path);
    try {
      store.db.pragma('wal_checkpoint(PASSIVE)');
      try {
        store.db.pragma(`busy_timeout = ${LOG_TRUNCATE_WAIT_MS}`);
        store.db.pragma('wal_checkpoint(TRUNCATE)');
      } catch { /* a writer held on: the file empties at the last close */ }
    } finally {
      store.close();
    }
  } catch { /* locked, or not ours: the next opener's close copies it */ }
}

/** How long copyLeftLog's TRUNCATE checkpoint waits for a writer (ms). */
const LOG_TRUNCATE_WAIT_MS = 200;

export interface RunningRow { id: number; host_pid: number | null; header: string | null; ended_at?: string | null; capture?: string | null }

/**
 * Whether a running recording was cut short: its writer died. Not when its tap exited cleanly before
 * it indexed everything: its exit is stored, or, when the tap exited before its recorder could store
 * it, the tap named its log as handed on to the indexer it started (`handedOn`). Its capture log
 * holds the rest, and whoever indexes it finishes the recording; until then it reads as being indexed.
 */
function cutShort(r: RunningRow, handedOn: Set<string>, isAlive: (pid: number) => boolean = pidAlive): boolean {
  if (r.ended_at !== null && r.ended_at !== undefined) return false;
  if (r.capture && handedOn.has(r.capture)) return false;
  return !writerAlive(r, isAlive);
}

/** Whether a running recording's writer still lives: its pid exists and, where known, is the same process. */
export function writerAlive(r: RunningRow, isAlive: (pid: number) => boolean = pidAlive): boolean {
  if (r.host_pid === null || !isAlive(r.host_pid)) return false;
  let recorded: unknown;
  try { recorded = r.header ? (JSON.parse(r.header) as Record<string, unknown>)[HOST_START] : undefined; } catch { /* no identity */ }
  if (typeof recorded !== 'string') return true; // written before identities were kept: the pid is all we have
  const now = processStartId(r.host_pid);
  return now === null || now === recorded;
}

/** Whether the file at `path` is there and holds nothing. */
function fileEmpty(path: string): boolean {
  try {
    return statSync(path).size === 0;
  } catch {
    return false;
  }
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export { decodeUtf8, processStartId };

/** Hands the database to the finisher (see onOrphanedCaptures) when capture logs wait for an indexer. */
export function finishOrphanedCaptures(store: Store): void {
  try {
    if (!store.db.readonly) store.adoptOrphanedCaptures();
  } catch { /* locked: the indexer makes them */ }
  try {
    const finisher = orphanedCapturesFinisher();
    // Not on a full disk: nothing could be indexed (a tap that left a log on one started an indexer that waits for space).
    if (finisher && store.capturesOrphaned() && !diskFull(store.path)) finisher(store.path);
  } catch { /* a locked or older database: the next opener sees to it */ }
}

/**
 * How far a capture log is indexed: bytes indexed and the file's size (the indexed count if it is
 * gone), and whether a full disk blocks the rest. Said once its tap is done with it (`tapDone`:
 * exited, or dead); a live tap's own indexing is just "running", unless it is blocked.
 */
function indexingOf(dbPath: string, capture: string, indexed: number, tapDone: boolean): Indexing | null {
  let total = indexed;
  try { total = Math.max(indexed, statSync(join(capturesDir(dbPath), capture)).size); } catch { /* removed meanwhile */ }
  const blocked = total > indexed && diskFull(dbPath);
  if (!tapDone && !blocked) return null;
  const indexing: Indexing = { indexedBytes: indexed, totalBytes: total };
  if (blocked) indexing.blocked = 'disk full';
  if (!tapDone) indexing.live = true;
  return indexing;
}

/** A process's identity as an indexer records it: its pid and processStartId. */
export function processIdentity(pid: number = process.pid): string {
  return `${pid} ${processStartId(pid) ?? ''}`;
}

/** Whether the process an identity names (see processIdentity) still runs. */
export function identityAlive(who: string): boolean {
  const [pid, start] = who.split(' ');
  const n = Number(pid);
  if (!Number.isSafeInteger(n) || n <= 0 || !pidAlive(n)) return false;
  if (!start) return true;
  const now = processStartId(n);
  return now === null || now === start;
}

/**
 * Marks a capture log as its recording's deletion's (in the deleting transaction): no permissions at
 * all, which nothing else gives one (logs are made 0600), and which changes no data: a deletion rolled
 * back leaves its log as it was but for the mark, which the next claim clears (see claimCapture).
 */
function markDeleting(file: string): void {
  try { chmodSync(file, 0); } catch { /* gone */ }
}

function markedDeleting(file: string): boolean {
  try { return (statSync(file).mode & 0o777) === 0; } catch { return false; }
}

function unmarkDeleting(file: string): void {
  if (markedDeleting(file)) {
    try { chmodSync(file, 0o600); } catch { /* gone */ }
  }
}

/** Whether the tap writing capture log `name` (its pid is in the name: see createCaptureLog) may still run. */
export function logWriterAlive(name: string): boolean {
  const pid = Number(/-(\d+)-[a-z0-9]+\.capture(?:\.done)?$/.exec(name)?.[1]);
  return Number.isSafeInteger(pid) && pid > 0 && pidAlive(pid);
}
