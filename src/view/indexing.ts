/**
 * How far a recording's capture log is indexed, as a listing says it (the command line's `list` and
 * the UI's recordings): `indexing 45%` while an indexer works on it, `indexing blocked: disk full
 * (2.7 MiB waiting)` while the database's disk has no room for it.
 */

/** How far a recording's capture log is indexed (see RecordingSummary.indexing). */
export interface Indexing {
  indexedBytes: number;
  totalBytes: number;
  /** Why nothing is indexed now: the database's disk is full (indexing goes on by itself once space returns). */
  blocked?: 'disk full';
  /** Its tap still runs (and indexes it itself once it can). */
  live?: true;
}

/** `indexing blocked: disk full (2.7 MiB waiting)`, or `indexing 45%`. */
export function indexingText(i: Indexing): string {
  if (i.blocked) return `indexing blocked: ${i.blocked} (${((i.totalBytes - i.indexedBytes) / 1048576).toFixed(1)} MiB waiting)`;
  return `indexing ${Math.floor((100 * i.indexedBytes) / Math.max(1, i.totalBytes))}%`;
}
