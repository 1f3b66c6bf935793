/**
 * The IO edge of the checker, used by `acp-inspect check`: streams a recording (a transcript file of
 * any size, or a stored recording) and folds it through the checker; the config file and the report
 * are in report.ts (re-exported here). The checker itself (checker.ts) stays pure.
 */
import type { Item } from '../wire/frame.js';
import type { Finding } from '../check/checker.js';
import { readTranscriptItems } from '../transcript/read-file.js';
import { looksLikeFile, openStoredRef } from '../source.js';
import { Store } from '../store/store.js';
import { CheckFold, type CheckRun } from '../check/fold.js';
import { ParallelCheck, startParallelCheck } from './parallel.js';
import { ROW_COLUMNS_RAW_BYTES } from './batch.js';
import { FindingSpool, type SpooledCheck } from './finding-spool.js';
import { usePrebuiltValidators } from './validators.js';

export { CONFIG_FILE, type ProjectConfig, findProjectConfig, readProjectConfig, validateRuleIds, formatReport, formatRules } from './report.js';

/**
 * Reads a transcript file in big reads, so files larger than a JavaScript string can be checked.
 * Every line goes through the one transcript line reader; responses are correlated.
 */
export function streamTranscriptFile(file: string): Generator<Item> {
  return readTranscriptItems(file);
}

/** The store and the id of a stored recording named by `<id|latest>` (recordings of dead taps marked interrupted first). */
const openStored = openStoredRef;

export type { CheckRun, SpooledCheck };

/** Checks every item of a recording, its findings held, sorted by seq (for what holds the recording anyway). */
export function checkStream(items: Iterable<Item>, ignore: string[]): CheckRun {
  const findings: Finding[] = [];
  const fold = new CheckFold(ignore, (f) => findings.push(f));
  for (const item of items) fold.step(item);
  const counts = fold.finish();
  return { findings: findings.sort((a, b) => a.seq - b.seq), ...counts };
}

/** Checks every item of a recording, its findings spooled (not held). */
export function checkSpooled(items: Iterable<Item>, ignore: string[]): SpooledCheck {
  const spool = new FindingSpool();
  try {
    const fold = new CheckFold(ignore, (f) => spool.add(f));
    for (const item of items) fold.step(item);
    return { ...fold.finish(), spool };
  } catch (e) {
    spool.close();
    throw e;
  }
}

/** Stored recordings of at least this many items are checked over two threads. */
export const PARALLEL_MIN_ITEMS = 20_000;

/**
 * Checks `<id|latest|FILE.jsonl>`: a large transcript file, or a large stored recording, over two
 * threads (parallel.ts; pass the check already started, if any), anything else on this one. The
 * findings are spooled: the caller reads them and closes the spool.
 */
export async function checkRecordingRef(ref: string, dbPath: string | undefined, ignore: string[], started?: ParallelCheck): Promise<SpooledCheck> {
  const parallel = started ?? startParallelCheck(ref);
  if (parallel) return parallel.run(ignore);
  await usePrebuiltValidators();
  const threads = process.env.ACP_INSPECT_CHECK_THREADS;
  if (looksLikeFile(ref)) return checkSpooled(streamTranscriptFile(ref), ignore);
  const { store, id } = openStored(ref, dbPath);
  try {
    if (threads === '1' || (threads !== '2' && (store.getRecording(id)?.items ?? 0) < PARALLEL_MIN_ITEMS)) {
      return { ...checkSpooled(store.iterateItems(id), ignore), recordingId: id };
    }
    // This thread steps through the rows (as arrays, only the columns an item needs); the worker makes the items and checks them.
    const page = store.db.prepare(`SELECT ${ROW_COLUMNS_RAW_BYTES} FROM items WHERE recording_id = ? AND seq > ? ORDER BY seq LIMIT 1000`).raw(true);
    const run = await new ParallelCheck().runRows(ignore, (function* () {
      for (let after = 0; ;) {
        const rows = page.all(id, after) as unknown[][];
        if (!rows.length) return;
        yield* rows;
        after = rows[rows.length - 1]![0] as number;
      }
    })());
    return { ...run, recordingId: id };
  } finally {
    store.close();
  }
}
