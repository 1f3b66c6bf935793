/**
 * Runs the protocol checker over a stored recording and stores its findings (import, re-check).
 */
import type { Store } from '../store/store.js';
import { createChecker, type Finding } from '../check/checker.js';
import type { Item } from '../wire/frame.js';

export function checkStoredRecording(store: Store, id: number): Finding[] {
  return storeFindings(store, id, checkingAsRead(store.iterateItems(id)));
}

/**
 * Items handed on unchanged while the checker folds them: `findings()` once they were all read.
 * An import checks what it stores this way, in the same reading (not a second one).
 */
export function checkingAsRead(items: Iterable<Item>): Iterable<Item> & { findings(): Finding[] } {
  const c = createChecker();
  const found: Finding[] = [];
  return {
    *[Symbol.iterator]() {
      for (const item of items) {
        const f = c.step(item);
        for (let i = 0; i < f.length; i++) found.push(f[i]!);
        yield item;
      }
    },
    findings() {
      for (const f of c.end()) found.push(f);
      return found.sort((a, b) => a.seq - b.seq);
    },
  };
}

/** Reads `checked` to its end (when it was not yet) and stores its findings as recording `id`'s. */
export function storeFindings(store: Store, id: number, checked: Iterable<Item> & { findings(): Finding[] }, read = false): Finding[] {
  if (!read) for (const _ of checked) { /* folded as read */ }
  const findings = checked.findings();
  store.replaceFindings(id, findings);
  return findings;
}
