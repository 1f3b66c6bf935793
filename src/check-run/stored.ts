/**
 * Runs the protocol checker over a stored recording and stores its findings (import, re-check). The
 * findings go through a spool (finding-spool.ts) into the database, so a recording with a finding on
 * every frame is not held.
 */
import type { Store } from '../store/store.js';
import type { TranscriptHeader, TranscriptNote } from '../transcript/format.js';
import { CheckFold } from '../check/fold.js';
import type { Item } from '../wire/frame.js';
import { FindingSpool } from './finding-spool.js';

/**
 * Imports a recording as it is read (a transcript file of any size: `acp-inspect import FILE`, and the
 * server's uploads), in one transaction, checked in the same reading, with its findings.
 */
export function importChecked(store: Store, src: { header: TranscriptHeader; items: Iterable<Item>; notes: () => readonly TranscriptNote[] }, name?: string): { id: number; items: number } {
  const checked = checkingAsRead(src.items);
  const { id, items } = store.importStream({ ...src, items: checked }, name);
  storeFindings(store, id, checked, true);
  return { id, items };
}

/** Checks recording `id` and stores its findings; how many there are. */
export function checkStoredRecording(store: Store, id: number): number {
  return storeFindings(store, id, checkingAsRead(store.iterateItems(id)));
}

/**
 * Items handed on unchanged while the checker folds them: `findings()`, their spool, once they were
 * all read. An import checks what it stores this way, in the same reading (not a second one). A
 * reading that fails or stops early closes the spool.
 */
export function checkingAsRead(items: Iterable<Item>): Iterable<Item> & { findings(): FindingSpool } {
  const spool = new FindingSpool();
  const fold = new CheckFold([], (f) => spool.add(f));
  return {
    *[Symbol.iterator]() {
      let done = false;
      try {
        for (const item of items) {
          fold.step(item);
          yield item;
        }
        done = true;
      } finally {
        if (!done) spool.close();
      }
    },
    findings() {
      fold.finish();
      return spool;
    },
  };
}

/** Reads `checked` to its end (when it was not yet) and stores its findings as recording `id`'s; how many there are. */
export function storeFindings(store: Store, id: number, checked: Iterable<Item> & { findings(): FindingSpool }, read = false): number {
  if (!read) for (const _ of checked) { /* folded as read */ }
  const spool = checked.findings();
  try {
    store.replaceFindings(id, spool.read());
    return spool.count;
  } finally {
    spool.close();
  }
}
