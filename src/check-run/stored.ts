/**
 * Runs the protocol checker over a recording as it goes into the store, or over a stored one again,
 * and stores its findings as they are made, a batch at a time: readers order them by seq, so those of
 * the recording's end (at earlier frames) need no sorting, and none are held (a recording may have a
 * finding on every frame).
 */
import type { Store } from '../store/store.js';
import type { TranscriptHeader, TranscriptNote } from '../transcript/format.js';
import type { Finding } from '../check/checker.js';
import { CheckFold } from '../check/fold.js';
import type { Item } from '../wire/frame.js';

const BATCH = 1000;

/** Findings written to recording `id`'s (set once known) as they come. */
class FindingWriter {
  id = 0;
  count = 0;
  private batch: Finding[] = [];

  constructor(private readonly store: Store) {}

  readonly add = (f: Finding): void => {
    this.batch.push(f);
    this.count++;
    if (this.batch.length >= BATCH) this.flush();
  };

  flush(): void {
    this.store.appendFindings(this.id, this.batch);
    this.batch = [];
  }
}

/**
 * Imports a recording as it is read (a transcript file of any size: `acp-inspect import FILE`, and the
 * server's uploads) in one transaction, checked in the same reading, its findings stored as they come.
 * `lastChunk`: as RecordingStream's (the schema's verdict on a text chunk frame is then worked out once per kind);
 * `lastRaw`: as RecordingStream's (see Store.importStream).
 */
export function importChecked(store: Store, src: { header: TranscriptHeader; items: Iterable<Item>; notes: () => readonly TranscriptNote[]; lastChunk?: () => number; lastRaw?: () => Buffer | null }, name?: string): { id: number; items: number } {
  const out = new FindingWriter(store);
  const fold = new CheckFold([], out.add);
  const chunkOf = src.lastChunk;
  const checked = (function* () {
    for (const item of src.items) {
      fold.step(item, chunkOf?.());
      yield item;
    }
  })();
  const { id, items } = store.importStream({ ...src, items: checked }, name, (id) => { out.id = id; });
  fold.finish();
  out.flush();
  return { id, items };
}

/** Checks stored recording `id` again and replaces its findings (in one transaction); how many there are. */
export function checkStoredRecording(store: Store, id: number): number {
  const out = new FindingWriter(store);
  out.id = id;
  store.db.transaction(() => {
    store.replaceFindings(id, []);
    const fold = new CheckFold([], out.add);
    // A page at a time: the findings are written between two pages' queries.
    for (const item of store.pagedItems(id)) fold.step(item);
    fold.finish();
    out.flush();
  })();
  return out.count;
}
