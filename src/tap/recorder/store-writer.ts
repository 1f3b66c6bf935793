/**
 * The recorder's SQLite side: opens the database, writes items and findings in batches (one
 * transaction each), times the write-ahead log's checkpoints, and finishes the recording.
 *
 * Failure policy: the session matters more than the recording. A database that cannot be opened or
 * written produces one warning; the recording is marked incomplete and the data that could not be
 * written is counted as a gap. A database locked by another process loses nothing: the write is
 * tried again every RETRY_MS, and meanwhile the intake takes nothing more (see `blocked` and
 * intake.ts): the backlog waits in the capture log. Nothing here throws.
 *
 * Each batch is written with how far the capture log is indexed and the indexer's state there (see
 * `checkpoint` in WriterHooks), in one transaction: whoever goes on from there (this recorder, or
 * another process once the tap is gone) neither loses nor repeats an item.
 */
import { closeSync, fdatasync, openSync, statSync } from 'node:fs';
import type { FromRecorder, RecorderConfig } from '../messages.js';
import type { Frame, Item } from '../../wire/frame.js';
import { Store, processIdentity, processStartId, toStoreError, type StoredFinding } from '../../store/store.js';
import type { Guard } from './guard.js';
import type { PackedRows } from '../../store/item-rows.js';
import { FLUSH_BYTES, FLUSH_ITEMS, FLUSH_MS, STATE_EVERY_BYTES } from './batch-bounds.js';
import { copyLogElsewhere, copyingElsewhere, startDetachedIndexer, startRetention } from '../detached-indexer.js';
import { retentionDue, retentionSettings } from '../../store/retention.js';
import { FULL_RETRY_MS, FULL_WAIT_MS, blockedByFullDisk, diskFull, fullDiskDelay, isFullError, refusedForSpace, writeRefused, type StopReason } from '../../store/disk.js';
import { LogFreer } from './log-freer.js';
import { handedOnExit } from '../../store/indexer-pids.js';

/**
 * A batch made on the indexer's worker (see index-worker.ts): its rows, their findings, where the log
 * is indexed up to after them, the indexer's state there when it is to be saved, and what the items
 * said of the peers or of the recording.
 */
export interface PackedBatch {
  rows: PackedRows | null;
  findings: StoredFinding[];
  offset: number;
  state: string | null;
  peer: Record<string, unknown> | null;
  incomplete: string | null;
}

/** A file's size, 0 when it is not there. */
function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** How often a locked database is tried again. */
const RETRY_MS = 250;
/** Items kept in memory while the database is busy; beyond this they are dropped (a gap). */
const MAX_PENDING_BYTES = 96 * 1024 * 1024;
/** Findings written per statement batch before the progress counter moves (see flush). */
const FINDINGS_SLICE = 500;
/**
 * Log growth past which a checkpoint runs at once, without waiting for the session to be quiet, as
 * soon as no backlog waits (never while one is indexed: copying the log into the database every
 * 64 MiB of a 1 GiB flood's backlog had its last row stored 7.9-8.8 s after the flood's end against
 * 6.0-6.5 s without, and the indexer exit 9.3-10.4 s against 8.1-9.1 s, with the log copied once
 * at the close). A backlog's log is copied when it is caught up, or when its indexer closes the
 * database; the tap hands a large backlog on rather than wait for that (see RecorderClient.finish).
 */
const CHECKPOINT_FORCE_BYTES = 64 * 1024 * 1024;
/**
 * While a burst is indexed, the write-ahead log is flushed to disk every this many bytes, on a
 * thread of Node's pool (see flushLogAhead).
 */
const LOG_FLUSH_BYTES = 8 * 1024 * 1024;
/**
 * A checkpoint waits until the capture log has been quiet for this long, and as long after a
 * burst's backlog was caught up: a session whose agent just flooded is likely to flood again, and a
 * checkpoint run at the moment of catching up (50-200 ms of the recorder's thread and the disk)
 * landed on the next flood's first tens of milliseconds: in a bench session every flood after the
 * first met the checkpoint of the one before.
 */
const CHECKPOINT_QUIET_MS = 250;
/**
 * SQLite's log past which a tap's own recorder does not close the database at the end (its close
 * would copy the log into it first): right after catching up with 96 MiB of floods, the tap exited
 * 195-389 ms after its client closed stdin, most of it that copy.
 */
const CLOSE_COPY_MAX_BYTES = 16 * 1024 * 1024;
/**
 * SQLite's log is copied into the database once this much was written since the last copy, however
 * much waits to be indexed, on this connection, between two batches: only a copy made between two
 * of the writer's transactions lets the next one start the log's file over, so it stays about this
 * large. Before, nothing was copied while a backlog waited: the log reached 378 MB for 200k frames,
 * 1.9 GB for a 1 GiB flood, beside the capture log and the database.
 */
export const WAL_BOUND_BYTES = 128 * 1024 * 1024;
/** A backlog this large is a burst's (see CHECKPOINT_QUIET_MS). */
const BURST_BACKLOG_BYTES = 512 * 1024;
/**
 * The recorder's page cache (KiB). It only appends: what it needs cached is the last page of the
 * table and of each index and the paths down to them, a few hundred KiB. SQLite's default in this
 * build (16 MB) filled up while a burst was indexed, and stayed: 16 MiB of the tap's peak RSS
 * (111 MiB through a 128 MiB flood with it, 96 MiB with 2 MiB; indexing no slower).
 */
const CACHE_KIB = 2048;

/** What the writer asks of the rest of the recorder: where messages go, and whether traffic flows. */
export interface WriterHooks {
  send(m: FromRecorder): void;
  /** True while a burst arrives or waits to be indexed: no checkpoint then, unless the log is large. */
  inBurst(): boolean;
  /** True while a burst arrives: no checkpoint at all then. */
  arriving(): boolean;
  /** Bytes of the capture log not indexed yet. */
  backlog(): number;
  /** Where the capture log is indexed up to (between two records, when a batch is written). */
  indexedTo(): number;
  /** The indexer's state there, to resume from (null: not worth saving now). */
  state(): string | null;
  /** When traffic was last seen (performance.now()). */
  lastTraffic(): number;
  /** A timer's work failed unexpectedly (a bug): see RecorderOptions.onFatal. */
  onFatal(e: unknown): void;
  /** The recording was deleted (rm, prune, the UI) while this indexed it: take nothing more. */
  gone(): void;
  /** These packed batches (addPacked) were written, or given up. */
  written?(batches: PackedBatch[]): void;
}

/** Peer names and versions, as the recording's row holds them. */
type PeerInfo = Record<string, unknown>;

export class StoreWriter {
  private store: Store | null = null;
  recordingId: number | null = null;
  /** Set when the database cannot be used at all: nothing is captured or stored. */
  failed = false;
  /** Set once the recording was found deleted: nothing more is written (see deleted()). */
  gone = false;
  /** True while the database was locked at start and opening it is being retried. */
  private opening = false;
  /** True while a write found the database locked, or its disk full, and is being retried. */
  private stalled = false;
  /** When a write was first refused by a full disk, while it is (Date.now() time; 0: not full). */
  private fullSince = 0;
  private fullNoted = false;
  private warned = false;
  private delayNoted = false;
  private stopSaid = false;
  private incompleteReason: string | null = null;
  private items: Item[] = [];
  private findings: StoredFinding[] = [];
  /** Batches made on the indexer's worker, written in order (see addPacked). */
  private packed: PackedBatch[] = [];
  private bytes = 0;
  private dropped = 0;
  private flushTimer: NodeJS.Timeout | null = null;
  /** Bytes committed since the last checkpoint (roughly what the write-ahead log grew by). */
  private unCheckpointed = 0;
  private checkpointTimer: NodeJS.Timeout | null = null;
  /** The write-ahead log, opened for flushLogAhead (null: not yet; -1: cannot be). */
  private logFd: number | null = null;
  /** The log flush in flight, if any, and `unCheckpointed` when it was started. */
  private logFlush: Promise<void> | null = null;
  private logFlushedAt = 0;
  private readonly peer: PeerInfo = {};
  /** Where the log was indexed up to when the indexer's state was last saved. */
  private stateSavedAt: number;
  /** Where the database says the log is indexed up to, as of the last commit (any batch's state). */
  private committedTo: number;
  /** Frees the capture log below where indexing got, once the database's word for it is on disk. */
  private readonly freer: LogFreer;
  /** Whether a burst's backlog is being indexed, and when the last one was caught up (performance.now()). */
  private burstBacklog = false;
  private caughtUpAt = -Infinity;

  constructor(private readonly config: RecorderConfig, private readonly guard: Guard, private readonly hooks: WriterHooks, private readonly busyTimeoutMs: number) {
    this.stateSavedAt = this.committedTo = config.resume?.indexed ?? 0;
    this.freer = new LogFreer(config.capture.path);
  }

  /** Runs `fn` later; what it throws goes to onFatal, never out of a timer. */
  private later(fn: () => void, ms: number): NodeJS.Timeout {
    return setTimeout(() => {
      try { fn(); } catch (e) { this.hooks.onFatal(e); }
    }, ms);
  }

  /** Says `msg` once (the first problem is the one the user needs) and marks the recording incomplete. */
  warnOnce(msg: string): void {
    if (!this.incompleteReason) this.incompleteReason = msg;
    if (this.warned) return;
    this.warned = true;
    this.hooks.send({ warn: msg });
  }

  /** `3 items were not recorded` (or `1 item was`). */
  private droppedText(): string {
    return `${this.dropped === 1 ? '1 item was' : `${this.dropped} items were`} not recorded`;
  }

  /**
   * An indexer whose tap is gone stops before the log's end, the rest kept in the log for the next
   * one: says why and the way out, once (the first reason is the one that stopped it).
   */
  private stopped(reason: StopReason): void {
    if (this.stopSaid) return;
    this.stopSaid = true;
    this.hooks.send({ stopped: reason });
  }

  /** Marks the recording incomplete without a warning (the first reason given is kept). */
  noteIncomplete(reason: string): void {
    this.incompleteReason ??= reason;
  }

  /** A delay (database locked) loses nothing, so it is said once but does not mark the recording incomplete. */
  private noteDelay(): void {
    if (this.delayNoted || this.warned) return;
    this.delayNoted = true;
    this.hooks.send({ info: this.config.resume
      ? `acp-inspect: indexing delayed: database ${this.config.dbPath} is locked by another process; it goes on once that lets go`
      : `acp-inspect: recording delayed: database ${this.config.dbPath} is locked by another process; forwarding continues` });
  }

  /**
   * True while nothing can be written because another process holds the database's lock (opening it,
   * or a write, is tried again every RETRY_MS). The intake then stops taking records into memory.
   */
  get blocked(): boolean {
    return this.opening || this.stalled;
  }

  /** The database, once open (for the UI started beside the recorder). */
  get open(): boolean {
    return this.store !== null;
  }

  openStore(): void {
    const { config, guard } = this;
    try {
      // appendOnly: no statement journal per multi-row INSERT (see APPEND_ONLY in store.ts).
      const store = (this.store ??= guard.sql(() => Store.open(config.dbPath, { busyTimeout: this.busyTimeoutMs, cacheKiB: CACHE_KIB, appendOnly: true })));
      // Checkpoints (copying the write-ahead log into the database, with an fsync) are ours to time:
      // SQLite would run one inside whichever commit crosses 4 MB of log, and an fsync can take
      // hundreds of ms, long enough to hold up the recorder in the middle of a backlog. See checkpointSoon().
      try { guard.sql(() => store.db.pragma('wal_autocheckpoint = 0')); } catch { /* SQLite's own schedule then */ }
      try { guard.sql(() => store.markInterrupted()); } catch { /* another writer holds the lock; not ours to fix now */ }
      this.recordingId = config.resume ? config.resume.recordingId : guard.sql(() => store.createRecording({
        name: config.name,
        startedAt: config.startedAt,
        status: 'running',
        command: config.command,
        cwd: config.cwd,
        hostPid: config.hostPid,
        hostStart: processStartId(config.hostPid),
        capture: config.capture.name,
        indexer: processIdentity(),
      }));
      this.opening = false;
      this.fullSince = 0;
      this.hooks.send({ recordingId: this.recordingId });
      if (!config.resume) this.retentionDue(store);
      if (Object.keys(this.peer).length) this.updatePeer();
    } catch (e) {
      if (isBusy(e)) {
        // Locked by another process: try again shortly (the intake holds back meanwhile: see `blocked`).
        this.opening = true;
        this.noteDelay();
        this.retrySoon();
        return;
      }
      if (this.openingOnFullDisk(e)) return;
      this.opening = false;
      this.failed = true;
      const err = toStoreError(e, config.dbPath);
      if (config.resume) this.stopped(writeRefused(err, config.dbPath));
      else this.warnOnce(`not recording: ${err.message}. The session is forwarded untouched.`);
      this.store?.close();
      this.store = null;
    }
  }

  /**
   * The database could not be opened, or the recording made, for want of space (a tap started on a
   * full disk): as for a lock, nothing is lost. The intake holds back (see `blocked`), what arrives
   * waits in the capture log, said once, and opening is tried again every FULL_RETRY_MS; once space
   * returns the recording is made and indexed from the log's start. An indexer whose tap is gone
   * waits as waitForSpace lets it. False: not a full disk (or waited too long).
   */
  private openingOnFullDisk(e: unknown): boolean {
    try { this.store?.close(); } catch { /* closed below */ }
    this.store = null;
    if (!refusedForSpace(e, this.config.dbPath)) return false;
    const now = Date.now();
    if (this.fullSince === 0) this.fullSince = now;
    if (this.config.resume && now - this.fullSince > FULL_WAIT_MS) return false;
    this.opening = true;
    if (!this.fullNoted) {
      this.fullNoted = true;
      this.hooks.send({ warn: fullDiskDelay(this.config.dbPath) });
    }
    this.retrySoon(FULL_RETRY_MS);
    return true;
  }

  /**
   * A tap's recorder, its recording made (its agent runs): when the store's retention has something to
   * do, has another process do it (startRetention). Bad settings are said once; the session goes on.
   */
  private retentionDue(store: Store): void {
    if (process.env.ACP_INSPECT_NO_RETENTION === '1') return;
    try {
      if (retentionDue(store, retentionSettings(this.config.dbPath))) startRetention(this.config.dbPath);
    } catch (e) {
      this.hooks.send({ info: `acp-inspect: retention not applied: ${(e as Error).message}` });
    }
  }

  /** Records what the frames said about the peers (names, versions) on the recording's row. */
  setPeer(info: PeerInfo): void {
    Object.assign(this.peer, info);
    this.updatePeer();
  }

  private updatePeer(): void {
    const { store, recordingId, peer } = this;
    if (!store || recordingId === null) return;
    // Only what this indexer saw: one that resumed a log after its initialize keeps what is stored.
    const columns: Record<string, string> = { clientName: 'client_name', clientVersion: 'client_version', agentName: 'agent_name', agentVersion: 'agent_version', protocolVersion: 'protocol_version' };
    const patch = Object.fromEntries(Object.entries(columns).filter(([k]) => peer[k] !== undefined).map(([k, col]) => [col, peer[k]]));
    if (Object.keys(patch).length === 0) return;
    try {
      this.guard.sql(() => store.updateRecording(recordingId, patch));
    } catch { /* retried with the next peer update or at finish */ }
  }

  /** Queues an item (about `bytes` in memory) and its findings; writes the batch when it is due. */
  add(item: Item, bytes: number, findings: StoredFinding[]): void {
    this.items.push(item);
    this.bytes += bytes;
    for (const f of findings) this.findings.push(f);
    // What waits for the batch write needs the raw line and the derived columns, not the parsed JSON
    // (often twice the line's size in objects): let it go now, while it is still young.
    if ((item as Frame).json !== undefined) (item as Frame).json = undefined;
    // Blocked: the retry writes the batch (each try may wait for the lock), not every item added.
    if (this.blocked) return;
    if (!this.flushTimer) this.flushTimer = this.later(() => this.flush(), FLUSH_MS);
  }

  /**
   * Queues a batch made on the indexer's worker and writes it (with what waits before it) unless the
   * database is locked: one transaction, as a batch made here. Its state is saved as it came.
   */
  addPacked(b: PackedBatch): void {
    this.packed.push(b);
    this.bytes += b.rows?.arena.byteLength ?? 0;
    if (b.peer) this.setPeer(b.peer);
    if (b.incomplete) this.noteIncomplete(b.incomplete);
    if (!this.blocked) this.flush();
  }

  /** Items (or packed batches) waiting to be written. */
  private get pending(): number {
    return this.items.length + this.packed.length;
  }

  /** Rows waiting to be written. */
  private get pendingRows(): number {
    return this.packed.reduce((n, b) => n + (b.rows?.count ?? 0), this.items.length);
  }

  /** A record of the capture log is indexed whole: the batch is written here when it is due. */
  recordDone(): void {
    if (!this.blocked && (this.items.length >= FLUSH_ITEMS || this.bytes >= FLUSH_BYTES)) this.flush();
  }

  /** Forgets what waits (written, or given up); the worker hears of its batches (hooks.written). */
  private clear(): void {
    const batches = this.packed;
    this.items = [];
    this.findings = [];
    this.packed = [];
    if (batches.length > 0) this.hooks.written?.(batches);
    this.bytes = 0;
  }

  private retrySoon(ms = RETRY_MS): void {
    if (!this.flushTimer) this.flushTimer = this.later(() => this.flush(), ms);
  }

  /**
   * A write was refused for want of space. When the database's disk is full (not a page limit), nothing
   * is lost: what waits is kept (the intake takes nothing more, the rest waits in the capture log, which
   * is what the next write goes on from), said once, and tried again every FULL_RETRY_MS. An indexer
   * whose tap is gone waits FULL_WAIT_MS at most, then lets go. False: a page limit, dropped as before.
   */
  private waitForSpace(e: unknown): boolean {
    if (!isFullError(e) || !diskFull(this.config.dbPath)) return false;
    const now = Date.now();
    if (this.fullSince === 0) this.fullSince = now;
    if (this.config.resume && now - this.fullSince > FULL_WAIT_MS) {
      this.stopped(blockedByFullDisk(this.config.dbPath));
      this.stopWriting();
      return true;
    }
    this.stalled = true;
    if (!this.fullNoted) {
      this.fullNoted = true;
      this.hooks.send(this.config.resume
        ? { info: `indexing blocked: the disk of database ${this.config.dbPath} is full; it goes on once space returns (waiting ${waitWords(FULL_WAIT_MS)} at most, then the rest stays in the capture log for the next \`acp-inspect index\`)` }
        : { warn: fullDiskDelay(this.config.dbPath) });
    }
    this.retrySoon(FULL_RETRY_MS);
    return true;
  }

  /**
   * Writes nothing more, closes the database and tells the recorder (hooks.gone), which takes nothing
   * more: the recording was deleted (see deleted()), or an indexer whose tap is gone waited for space
   * too long (the log stays as far as it is indexed, for the next opener of the database).
   */
  private stopWriting(): void {
    this.gone = true;
    this.clear();
    if (this.flushTimer) clearTimeout(this.flushTimer);
    if (this.checkpointTimer) clearTimeout(this.checkpointTimer);
    this.flushTimer = this.checkpointTimer = null;
    this.stalled = false;
    this.close();
    this.hooks.gone();
  }

  /**
   * Writes what waits in one transaction; on a locked database keeps it (bounded) and tries again.
   * `saveState`: with the indexer's state, however little the log moved since it was last saved.
   */
  flush(saveState = false): void {
    if (this.flushTimer) {
      clearTimeout(this.flushTimer);
      this.flushTimer = null;
    }
    if (this.opening) this.openStore();
    if (this.gone) this.clear();
    if (this.pending === 0 && this.findings.length === 0 && !saveState) return;
    if (this.opening) {
      if (this.bytes >= MAX_PENDING_BYTES) {
        this.dropped += this.pendingRows;
        this.incompleteReason ??= `the database was locked for too long; ${this.droppedText()}`;
        this.clear();
      }
      this.retrySoon();
      return;
    }
    const { store, recordingId, guard } = this;
    if (!store || recordingId === null) {
      this.clear();
      return;
    }
    try {
      const { items, findings, packed } = this;
      const offset = this.hooks.indexedTo();
      // A packed batch brings its own state (the worker's, where it ended).
      const state = packed.length === 0 && (saveState || offset - this.stateSavedAt >= STATE_EVERY_BYTES) ? this.hooks.state() : null;
      guard.sql(() => store.db.transaction(() => {
        store.insertItems(recordingId, items);
        if (state !== null) store.saveIndexState(recordingId, offset, state);
        this.appendFindings(store, recordingId, findings);
        for (const b of packed) {
          if (b.rows) store.insertPacked(recordingId, b.rows);
          if (b.state !== null) store.saveIndexState(recordingId, b.offset, b.state);
          this.appendFindings(store, recordingId, b.findings);
        }
      })());
      if (state !== null) this.stateSavedAt = this.committedTo = offset;
      for (const b of packed) if (b.state !== null) this.committedTo = Math.max(this.committedTo, b.offset);
      // Tests kill an indexer once it stored a state to resume from, wherever its timing puts that, or
      // slow it down to act while it is under way.
      if (this.config.resume && process.env.ACP_INSPECT_TEST_KILL_AFTER_STATE === '1' && (state !== null || packed.some((b) => b.state !== null))) process.kill(process.pid, 'SIGKILL');
      if (this.config.resume && process.env.ACP_INSPECT_TEST_BATCH_PAUSE_MS) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(process.env.ACP_INSPECT_TEST_BATCH_PAUSE_MS));
      this.unCheckpointed += this.bytes;
      this.clear();
      this.stalled = false;
      if (this.fullSince !== 0 && this.config.resume && this.fullNoted) {
        // An indexer said it was blocked (`acp-inspect index` in a terminal shows it): say it goes on.
        this.fullNoted = false;
        this.hooks.send({ info: `indexing goes on: there is space again on the disk of database ${this.config.dbPath}` });
      }
      this.fullSince = 0;
      if (this.hooks.inBurst()) this.flushLogAhead();
      this.checkpointSoon();
    } catch (e) {
      if (this.deleted()) return;
      if (isBusy(e) && this.bytes < MAX_PENDING_BYTES) {
        this.stalled = true;
        this.noteDelay();
        this.retrySoon();
      } else if (this.waitForSpace(e)) {
        // Kept: see waitForSpace.
      } else if (this.config.resume) {
        // An indexer whose tap is gone: the capture log is all there is of what waits, and finishing
        // would remove it. So nothing is dropped: writing stops, the log stays as far as it is
        // indexed, and the next opener of the database goes on from there.
        this.stopped(writeRefused(e, this.config.dbPath));
        this.stopWriting();
      } else {
        this.stalled = false; // not a lock (or held too long): dropped below; the intake goes on
        this.dropped += this.pendingRows;
        this.clear();
        this.warnOnce(`recording incomplete: cannot write to ${this.config.dbPath} (${(e as Error).message}); forwarding continues`);
      }
    }
  }

  /**
   * Whether the recording was deleted while this indexed it (asked when a write failed: its rows
   * refer to a recording that is no more). Then nothing more is written, the database is closed
   * and the recorder is told (hooks.gone): deleting a recording stops its indexer, which neither
   * makes it again nor says more about it. Its capture log went with it (Store.deleteRecording).
   */
  private deleted(): boolean {
    const { store, recordingId } = this;
    if (this.gone) return true;
    if (!store || recordingId === null) return false;
    try {
      if (store.hasRecording(recordingId)) return false;
    } catch {
      return false;
    }
    this.stopWriting();
    return true;
  }

  /** Closes the database without writing anything more (the recording is no more). */
  close(): void {
    this.store?.close();
    this.store = null;
    void this.closeLog();
  }

  /** Stores findings (in a transaction); thousands can come at once: each slice written is progress. */
  private appendFindings(store: Store, recordingId: number, findings: StoredFinding[]): void {
    for (let i = 0; i < findings.length; i += FINDINGS_SLICE) {
      store.appendFindings(recordingId, findings.slice(i, i + FINDINGS_SLICE));
      this.guard.progressed();
    }
  }

  /**
   * Checkpoints once the session is quiet (or the log very large), never in the middle of a burst
   * nor right after one was caught up (see CHECKPOINT_QUIET_MS).
   */
  private checkpointSoon(): void {
    const afterBurst = () => {
      const backlog = this.hooks.backlog();
      if (backlog > BURST_BACKLOG_BYTES) this.burstBacklog = true;
      else if (this.burstBacklog && backlog === 0) {
        this.burstBacklog = false;
        this.caughtUpAt = performance.now();
      }
      return performance.now() - this.caughtUpAt < CHECKPOINT_QUIET_MS;
    };
    const after = afterBurst();
    if (this.unCheckpointed >= WAL_BOUND_BYTES) {
      this.checkpoint(true);
      return;
    }
    if (this.unCheckpointed === 0 || this.checkpointTimer) return;
    const { hooks } = this;
    if (this.unCheckpointed >= CHECKPOINT_FORCE_BYTES && !after && !hooks.arriving() && hooks.backlog() === 0) {
      this.checkpoint();
      return;
    }
    this.checkpointTimer = this.later(() => {
      this.checkpointTimer = null;
      if (hooks.inBurst() || hooks.backlog() > 0 || afterBurst() || performance.now() - hooks.lastTraffic() < CHECKPOINT_QUIET_MS) this.checkpointSoon();
      else this.checkpoint();
    }, CHECKPOINT_QUIET_MS);
    this.checkpointTimer.unref();
  }

  /** `here`: on this connection, whatever its size (see WAL_BOUND_BYTES). */
  private checkpoint(here = false): void {
    const { store } = this;
    if (!store) return;
    try {
      // A tap's own recorder with much to copy (a flood's log) has another process copy it: stdin closed
      // 400-700 ms after a 1 GiB backlog was caught up, the tap exited 3.3-5.1 s later, the copy done.
      const elsewhere = !here && !this.config.resume && this.unCheckpointed >= CLOSE_COPY_MAX_BYTES && copyLogElsewhere(this.config.dbPath);
      if (!elsewhere) {
        // A checkpoint syncs SQLite's log first: what it committed is on disk, and so where indexing got.
        const to = this.committedTo;
        this.guard.sql(() => store.db.pragma('wal_checkpoint(PASSIVE)'));
        this.freer.freeTo(to);
      }
      this.unCheckpointed = 0;
      this.logFlushedAt = 0;
    } catch { /* busy or stopping: the next one, or the last connection's close, does it */ }
  }

  /**
   * Flushes the write-ahead log to disk ahead of the next checkpoint, on a thread of Node's pool,
   * while this thread goes on indexing. A checkpoint first syncs the log (so that no page reaches the
   * database before the log that holds it is on disk), then copies it and syncs the database; both
   * syncs wait for the disk, on this thread. Through a burst the log grows by 64 MiB between
   * checkpoints, and its sync was about half of a checkpoint's time (8–15 µs per 1 KiB frame, of
   * which 1.5 µs of CPU): flushed ahead, a checkpoint's own sync finds little left to write. Only a
   * flush of what SQLite would flush anyway, so nothing about durability changes.
   */
  private flushLogAhead(): void {
    if (this.logFlush || this.logFd === -1 || this.unCheckpointed - this.logFlushedAt < LOG_FLUSH_BYTES) return;
    try {
      this.logFd ??= openSync(`${this.config.dbPath}-wal`, 'r');
    } catch {
      this.logFd = -1; // no log file to open (another journal mode, or not there yet): checkpoints sync it
      return;
    }
    const fd = this.logFd;
    this.logFlushedAt = this.unCheckpointed;
    // Once flushed, what was committed before is on disk, where indexing got with it: the capture
    // log before that is freed (log-freer.ts). Not before: a machine that crashed would come back
    // with a database that says less, and a log that no longer holds it.
    const to = this.committedTo;
    this.logFlush = new Promise<void>((done) => fdatasync(fd, (err) => {
      this.logFlush = null;
      if (!err && !this.gone) this.freer.freeTo(to);
      done();
    }));
  }

  /** Waits for a log flush in flight, then closes the log's descriptor (and the capture log's, see LogFreer). */
  private async closeLog(): Promise<void> {
    if (this.logFlush) await this.logFlush;
    this.freer.close();
    if (this.logFd !== null && this.logFd >= 0) {
      try { closeSync(this.logFd); } catch { /* already closed */ }
    }
    this.logFd = -1;
  }

  /**
   * Writes the tail and closes the recording with its exit status. A still-busy database gets a few
   * more tries (each may wait out the busy timeout) until `deadline` (Date.now() time), then the
   * tail is given up and counted. `last`: the checker's findings at the end of the recording, stored
   * in the transaction that marks the log indexed, so that an indexer stopped before it (which the
   * next one resumes) has stored none of them, and one stopped after it has no log left to resume.
   */
  async finish(code: number | null, signal: string | null, exitT: number, deadline: number, interrupted: boolean, last: StoredFinding[]): Promise<void> {
    const { config } = this;
    this.flush();
    // An indexer whose tap is gone waits for space as long as waitForSpace lets it.
    while (this.pending > 0 && (Date.now() < deadline || (config.resume && this.fullSince > 0))) {
      if (this.flushTimer) clearTimeout(this.flushTimer);
      this.flushTimer = null;
      await new Promise((r) => setTimeout(r, RETRY_MS));
      this.flush();
    }
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    if (this.checkpointTimer) clearTimeout(this.checkpointTimer);
    this.checkpointTimer = null;
    const { store, recordingId, guard } = this;
    if (this.gone) return;
    if (this.pending > 0) {
      // Still locked, or the disk still full: the capture log keeps what is not stored, and the next
      // opener stores it; once the disk has room again, the detached indexer started here.
      if (store && recordingId !== null) {
        try { guard.sql(() => store.releaseCapture(recordingId)); } catch { /* the lease goes with this process */ }
      }
      if (config.resume) this.stopped(this.fullSince > 0 ? blockedByFullDisk(config.dbPath) : { why: `indexing stopped: database ${config.dbPath} stayed locked by another process`, fix: 'let that process end' });
      if (this.fullSince > 0) startDetachedIndexer(config.dbPath);
      else if (!config.resume) this.hooks.send({ warn: `recording delayed: database ${config.dbPath} stayed locked; the rest is kept beside it and stored by the next acp-inspect that opens it` });
      await this.closeLog();
      return;
    }
    if (store && recordingId !== null) {
      // A tap's own capture log of some size is left for a detached indexer to remove, once this
      // process (which holds it open) is gone: see Store.dropCapture.
      const leaveLog = !config.resume && this.hooks.indexedTo() >= CLOSE_COPY_MAX_BYTES;
      // A log without its finish record whose tap said it exited (handOff, the indexer's command line,
      // or a name in the capture folder: see HandedOnExit): the disk was too full for the tap to write
      // the end of the session.
      // Not interrupted: ended as the tap said.
      const said = interrupted && config.resume ? this.handedOffExit(store, recordingId) ?? config.handedOn ?? handedOnExit(config.dbPath, config.capture.name) : null;
      if (said) {
        interrupted = false;
        code = said.exitCode;
        signal = said.exitSignal;
        this.incompleteReason ??= 'the capture log could not take the end of the session (its disk was full); the recording holds everything it captured';
      }
      const incomplete = interrupted || this.incompleteReason !== null || this.dropped > 0;
      const ended = {
        status: interrupted ? 'interrupted' : incomplete ? 'incomplete' : 'complete',
        incomplete: incomplete ? 1 : 0,
        incomplete_reason: interrupted
          ? 'the recording process ended without finishing it; the recording holds everything it captured'
          : this.incompleteReason ?? (this.dropped > 0 ? this.droppedText() : null),
        ended_at: said?.endedAt ?? (interrupted ? new Date(Date.parse(config.startedAt) + exitT).toISOString() : new Date().toISOString()),
        exit_code: code,
        exit_signal: signal,
        duration_ms: exitT,
      };
      for (;;) {
        try {
          this.updatePeer();
          if (process.env.ACP_INSPECT_TEST_KILL_BEFORE_INDEXED === '1') process.kill(process.pid, 'SIGKILL');
          let log: string | null = null;
          guard.sql(() => store.db.transaction(() => {
            this.appendFindings(store, recordingId, last);
            store.updateRecording(recordingId, ended);
            log = store.captureIndexed(recordingId);
          })());
          if (log) store.dropCapture(log, leaveLog);
        } catch (e) {
          if (this.deleted()) return;
          if (isFullError(e) && diskFull(config.dbPath)) {
            // The disk is full: an indexer whose tap is gone waits for space (see waitForSpace); a tap
            // leaves it to the detached indexer it starts, which waits for it.
            this.fullSince ||= Date.now();
            if (config.resume && Date.now() - this.fullSince < FULL_WAIT_MS) {
              await new Promise((r) => setTimeout(r, FULL_RETRY_MS));
              continue;
            }
            if (config.resume) this.stopped(blockedByFullDisk(config.dbPath));
            else startDetachedIndexer(config.dbPath);
          } else if (config.resume) this.stopped(writeRefused(e, config.dbPath));
          else this.warnOnce(`recording not finished: ${(e as Error).message}`);
        }
        break;
      }
      // The last connection's close copies SQLite's log into the database and removes the log's
      // file, on this thread, before the tap can exit. A tap's own recorder with a large log to copy
      // or remove (a burst caught up just before the end, or one a detached indexer copied: see
      // checkpoint()) leaves it to a detached indexer (`acp-inspect index`), or to whoever opens the
      // database next: the log is on disk, and the tap's exit must not wait on it. So with its own
      // capture log (see leaveLog). Any other indexer closes. A tap alive after a 1M-frame flood
      // and then ended: its exit 598-712 ms after stdin closed with both done here, 52 ms without.
      const leaveDb = !config.resume && (this.unCheckpointed >= CLOSE_COPY_MAX_BYTES
        || fileSize(`${config.dbPath}-wal`) >= CLOSE_COPY_MAX_BYTES || copyingElsewhere(config.dbPath));
      if (!leaveDb) {
        try { guard.sql(() => store.close()); } catch { /* the tap is exiting; SQLite's journal keeps the file consistent */ }
      }
      if (leaveDb || leaveLog) startDetachedIndexer(config.dbPath);
    }
    await this.closeLog();
  }

  /** The exit a tap wrote when it handed its log on (handOff), if it did. */
  private handedOffExit(store: Store, recordingId: number): { endedAt: string; exitCode: number | null; exitSignal: string | null } | null {
    try {
      const r = store.getRecording(recordingId);
      return r?.endedAt ? { endedAt: r.endedAt, exitCode: r.exitCode, exitSignal: r.exitSignal } : null;
    } catch {
      return null;
    }
  }

  /**
   * The tap is exiting before the capture log is all indexed: writes what waits (with how far it
   * got), the agent's exit, and lets go of the log, so that the next indexer (a detached one, or the
   * next opener) goes on from there at once. Skipped when the database is locked (the lease then
   * goes with this process). Never waits for a lock.
   */
  handOff(code: number | null, signal: string | null): void {
    const { store, recordingId, guard } = this;
    // On a full disk what waits is let go (the capture log holds it, and the next indexer makes it
    // again from the last state saved), and the exit is written if the database takes it: a row's
    // update often fits in SQLite's log as its failed writes left it.
    const full = this.fullSince > 0;
    if (!store || recordingId === null || (this.blocked && !full)) return;
    try {
      store.db.pragma('busy_timeout = 0');
      if (full) {
        this.clear();
        this.stalled = false;
      } else {
        this.flush(true);
        if (this.items.length > 0) return;
      }
      guard.sql(() => store.db.transaction(() => {
        store.updateRecording(recordingId, { ended_at: new Date().toISOString(), exit_code: code, exit_signal: signal });
        store.releaseCapture(recordingId);
      })());
    } catch { /* locked: the lease goes with this process */ }
  }
}

function isBusy(e: unknown): boolean {
  const code = (e as { code?: string }).code ?? '';
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED') || code === 'E_DB_LOCKED';
}

/** `10 min`, `3 s`: how long an indexer waits for space. */
function waitWords(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.max(1, Math.round(ms / 1000))} s`;
}
