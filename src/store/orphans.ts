/**
 * Who finishes capture logs that no live process indexes (see Store.capturesOrphaned): the CLI and
 * the tap start a detached indexer (src/tap/detached-indexer.ts); the store only finds such logs.
 * A module of its own, without the store's imports, so that registering costs a command nothing.
 */
let finisher: ((dbPath: string) => void) | null = null;

/** Sets (or clears) the finisher; called once per process. */
export function onOrphanedCaptures(fn: ((dbPath: string) => void) | null): void {
  finisher = fn;
}

export function orphanedCapturesFinisher(): ((dbPath: string) => void) | null {
  return finisher;
}
