/**
 * When the recorder writes a batch (one SQLite transaction), and when the indexer's state goes with
 * it: shared by the store writer and the indexer's worker (index-worker.ts), which makes the batches
 * the writer writes.
 */

/** Flush at least this often, and sooner when a batch grows past these bounds. */
export const FLUSH_MS = 50;
export const FLUSH_ITEMS = 500;
export const FLUSH_BYTES = 4 * 1024 * 1024;
/**
 * Items in a batch of the detached indexer (index-worker.ts), which writes a log's backlog: no live
 * view waits on each batch there, and every transaction rewrites the last pages of the table and
 * of its five indexes. On a 1M-frame backlog of 1 KiB frames, batches of 4000 instead of 500 left a
 * write-ahead log of 1283 MiB instead of 1812 (less for the close to copy) and brought the last row
 * 0.5-0.7 s sooner; SQLite alone gains as much (the bench's floor writes batches of this size).
 */
export const INDEX_FLUSH_ITEMS = 4000;
/**
 * Items in a batch of a live tap's helper (recorder/helper.ts), which counts in the tap's footprint:
 * with batches of 4000 the tap peaked at 134-151 MiB while it indexed a 1 GiB flood's backlog, with
 * 1000 at 115-125 MiB, the last row no later (500: 110 MiB, the last row 0.6-1.1 s later).
 */
export const HELPER_FLUSH_ITEMS = 1000;
/**
 * The indexer's state (lines in progress, requests waiting for their answer, the checker's fold) is
 * saved with a batch once the log has moved this far since it was last saved, and when the tap hands
 * the log on. An indexer that takes over makes again the items between the saved state and the last
 * one stored, for its checker (about 20 µs a 1 KiB frame): at most this much of the log. Saving the
 * state costs in proportion to the checker's (every session, tool call and message id), so not with
 * every batch.
 */
export const STATE_EVERY_BYTES = 8 * 1024 * 1024;

/**
 * Batches an indexer's worker makes ahead of its writer (see index-worker.ts) before it waits, and
 * the bytes they may hold (more than one batch only under it: a batch holds a frame whole, up to
 * --max-frame-bytes; 12 frames of 40 MiB peaked the indexer at 357-373 MiB without the bound).
 */
export const MAX_IN_FLIGHT = 4;
export const MAX_IN_FLIGHT_BYTES = 16 * 1024 * 1024;

/** The KiB a batch's packed rows hold (what MAX_IN_FLIGHT_BYTES counts). */
export function batchKiB(rows: { arena: ArrayBuffer } | null): number {
  return rows ? Math.ceil(rows.arena.byteLength / 1024) : 0;
}

/** Whether a worker with `batches` in flight holding `kib` KiB waits for its writer. */
export function inFlightFull(batches: number, kib: number): boolean {
  return batches >= MAX_IN_FLIGHT || (batches > 0 && kib * 1024 >= MAX_IN_FLIGHT_BYTES);
}
