/**
 * The database's disk: how much room is left on it, and whether it is full. A full disk stops
 * indexing (SQLite cannot write a batch) but loses nothing the capture log holds: the indexer waits
 * for space and goes on from its last batch. Readers ask here to tell "indexing blocked: disk full"
 * from an indexer at work, since an indexer that cannot write cannot say so in the database either.
 */
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Free space below which the database's disk counts as full: a batch of the indexer is up to 8 MiB of
 * rows, and SQLite, failing to write it, leaves its log grown into whatever was left (a few pages).
 */
export const FULL_FREE_BYTES = 1024 * 1024;

/**
 * How often a write refused by a full disk is tried again, and how long an indexer whose tap is gone
 * waits for space before it lets go (the next acp-inspect to open the database goes on from there).
 */
export const FULL_RETRY_MS = 1000;
/** (Tests shorten the wait, to see an indexer give up: ACP_INSPECT_TEST_FULL_WAIT_MS.) */
export const FULL_WAIT_MS = Number(process.env.ACP_INSPECT_TEST_FULL_WAIT_MS) || 10 * 60_000;

/**
 * Bytes free for new data on the disk that holds `dbPath` (what its owner may still write: root may
 * use the blocks a file system keeps back, others not). Null when it cannot be asked.
 */
export function freeBytes(dbPath: string): number | null {
  try {
    const s = statfsSync(dirname(dbPath));
    return (process.getuid?.() === 0 ? s.bfree : s.bavail) * s.bsize;
  } catch {
    return null;
  }
}

/** The size of the disk that holds `dbPath` (bytes), null when it cannot be asked. */
export function diskBytes(dbPath: string): number | null {
  try {
    const s = statfsSync(dirname(dbPath));
    return s.blocks * s.bsize;
  } catch {
    return null;
  }
}

/** Whether the disk that holds `dbPath` is full (see FULL_FREE_BYTES). */
export function diskFull(dbPath: string): boolean {
  const free = freeBytes(dbPath);
  return free !== null && free < FULL_FREE_BYTES;
}

/** Whether an error is a write refused for want of space (SQLite's SQLITE_FULL, or ENOSPC from a file write). */
export function isFullError(e: unknown): boolean {
  const code = (e as { code?: string })?.code ?? '';
  return code.startsWith('SQLITE_FULL') || code === 'ENOSPC' || code === 'EDQUOT';
}

/**
 * Whether `e`, from opening or writing the database at `dbPath`, is its disk being full: a write refused
 * for want of space (or, as SQLite reports a shared-memory file it cannot make, an I/O error) while the
 * disk is full. Not a page limit (max_page_count) on a disk with room.
 */
export function refusedForSpace(e: unknown, dbPath: string): boolean {
  const code = (e as { code?: string })?.code ?? '';
  return (isFullError(e) || code.startsWith('SQLITE_IOERR')) && diskFull(dbPath);
}

/** Bytes in MiB, one decimal (as the store's messages say sizes). */
export function mib(n: number): string {
  return `${(n / 1048576).toFixed(1)} MiB`;
}

/** The way out of a full disk, as every message about one ends. */
const FULL_FIX = 'free space on it, or pass --db FILE on another disk';

/** A database that cannot be opened or written because its disk is full (not its path or permissions). */
export function diskFullMessage(dbPath: string): string {
  return `the disk of database ${dbPath} is full; ${FULL_FIX}`;
}

/** What a tap says, once, when the disk of its database is full: the recording waits, nothing is lost. */
export function fullDiskDelay(dbPath: string): string {
  return `recording delayed: the disk of database ${dbPath} is full; what the capture log holds is indexed once space returns (${FULL_FIX}); forwarding continues`;
}

/**
 * What a tap says, once, when its capture log cannot take more of the session for a full disk: what
 * comes while it stays full is missed (the log marks it as a gap), the rest is recorded once space returns.
 */
export function fullDiskLogRefused(dbPath: string): string {
  return `recording incomplete: the disk of database ${dbPath} is full; what the session sends while it stays full is missed (marked as a gap), the rest is recorded once space returns (${FULL_FIX}); forwarding continues`;
}

/**
 * What a tap says, once, when its disk was full as it started: not even the capture log's first record
 * fitted. What is forwarded meanwhile is lost to the recording; it starts once space returns.
 */
export function fullDiskAtStart(dbPath: string): string {
  return `recording delayed: the disk of database ${dbPath} is full; the recording starts once space returns (${FULL_FIX}), and says what it missed; forwarding continues`;
}

/**
 * Why an indexer whose tap is gone stopped before its capture log's end (the rest kept in the log, for
 * the next indexer), and the way out, as `acp-inspect index` says it (see IndexingStopped).
 */
export interface StopReason { why: string; fix: string }

/** An indexer whose tap is gone waited FULL_WAIT_MS for space on the database's disk, in vain. */
export function blockedByFullDisk(dbPath: string): StopReason {
  return { why: 'indexing blocked: disk full', fix: `free space on the disk of ${dbPath}` };
}

/**
 * A write the database at `dbPath` refused (`e`), said as a reason to stop: a full disk, a database
 * that may grow no more while its disk has room (SQLITE_FULL then is a size limit, SQLite's
 * max_page_count, or a quota met in the middle of a write), or any other error (an I/O error).
 */
export function writeRefused(e: unknown, dbPath: string): StopReason {
  if (refusedForSpace(e, dbPath)) return blockedByFullDisk(dbPath);
  const why = `indexing stopped: cannot write to ${dbPath} (${(e as Error)?.message ?? String(e)})`;
  if (isFullError(e)) return { why: `${why} though its disk has room`, fix: 'raise the database\'s size limit (SQLite\'s max_page_count) or its quota' };
  return { why, fix: 'see to the database\'s disk and file' };
}
