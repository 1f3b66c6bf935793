/**
 * Runs the protocol checker over a stored recording and stores its findings (import, re-check).
 * Until the checker lands this stores nothing.
 */
import type { Store } from './store/store.js';

export function checkStoredRecording(_store: Store, _id: number): void {
  // Filled in by the protocol checker.
}
