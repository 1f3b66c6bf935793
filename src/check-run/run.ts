/**
 * The IO edge of the checker, used by `acp-inspect check`: streams a recording (a transcript file of
 * any size, or a stored recording), folds it through the checker, finds the per-project config file
 * and formats the report. The checker itself (checker.ts) stays pure.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { type Item, isFrame } from '../wire/frame.js';
import { Correlator } from '../wire/correlate.js';
import { itemFromLine } from '../transcript/format.js';
import { readTranscriptFile } from '../transcript/read-file.js';
import { looksLikeFile } from '../source.js';
import { Store } from '../store/store.js';
import { CliError } from '../cli/errors.js';
import type { Finding } from '../check/checker.js';
import { CheckFold, type CheckRun } from '../check/fold.js';
import { ParallelCheck, startParallelCheck } from './parallel.js';
import { ROW_COLUMNS } from './batch.js';
import { RULES } from '../check/index.js';

/** Name of the per-project config file, looked up from the working directory upward. */
export const CONFIG_FILE = '.acp-inspect.json';

export interface ProjectConfig {
  ignore: string[];
  file?: string;
}

/** Finds `.acp-inspect.json` from `cwd` upward; `{"ignore": ["rule-id", ...]}`. */
export function findProjectConfig(cwd = process.cwd()): ProjectConfig {
  let dir = resolve(cwd);
  for (;;) {
    const file = join(dir, CONFIG_FILE);
    if (existsSync(file) && statSync(file).isFile()) return readProjectConfig(file);
    const up = dirname(dir);
    if (up === dir) return { ignore: [] };
    dir = up;
  }
}

export function readProjectConfig(file: string): ProjectConfig {
  let v: unknown;
  try {
    v = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new CliError(`${file}: not valid JSON (${(e as Error).message}); expected {"ignore": ["rule-id", ...]}`, 2);
  }
  const ignore = v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>).ignore : undefined;
  if (ignore === undefined) return { ignore: [], file };
  if (!Array.isArray(ignore) || !ignore.every((x) => typeof x === 'string')) {
    throw new CliError(`${file}: "ignore" must be an array of rule ids, e.g. {"ignore": ["missing-client-info"]}`, 2);
  }
  return { ignore, file };
}

/** Refuses rule ids that do not exist (a typo would silently silence nothing). */
export function validateRuleIds(ids: string[], where: string): void {
  const known = new Set(RULES.map((r) => r.id));
  for (const id of ids) {
    if (!known.has(id)) throw new CliError(`unknown rule id "${id}" in ${where}; list the rules with \`acp-inspect check --rules\``, 2);
  }
}

/**
 * Reads a transcript file in big reads, so files larger than a JavaScript string can be checked.
 * Every line goes through the one transcript line reader; responses are correlated.
 */
export function* streamTranscriptFile(file: string): Generator<Item> {
  const correlator = new Correlator();
  for (const lines of readTranscriptFile(file)) {
    for (let i = 0; i < lines.length; i++) {
      const item = itemFromLine(lines[i]!);
      if (isFrame(item)) correlator.observe(item);
      yield item;
    }
  }
}

/** Items of `<id|latest|FILE.jsonl>`, streamed. */
export function* streamRecordingRef(ref: string, dbPath?: string): Generator<Item> {
  if (looksLikeFile(ref)) {
    yield* streamTranscriptFile(ref);
    return;
  }
  const { store, id } = openStored(ref, dbPath);
  try {
    yield* store.iterateItems(id);
  } finally {
    store.close();
  }
}

/** The store and the id of a stored recording named by `<id|latest>` (recordings of dead taps marked interrupted first). */
function openStored(ref: string, dbPath?: string): { store: Store; id: number } {
  const store = Store.open(dbPath, { mustExist: true });
  try {
    try {
      store.markInterrupted();
    } catch { /* read-only or locked */ }
    return { store, id: store.resolveRef(ref) };
  } catch (e) {
    store.close();
    throw e;
  }
}

export type { CheckRun };

/** Checks every item of a recording; findings sorted by seq. */
export function checkStream(items: Iterable<Item>, ignore: string[]): CheckRun {
  const fold = new CheckFold(ignore);
  for (const item of items) fold.step(item);
  return fold.finish();
}

/** Stored recordings of at least this many items are checked over two threads. */
export const PARALLEL_MIN_ITEMS = 20_000;

/**
 * Checks `<id|latest|FILE.jsonl>`: a large transcript file, or a large stored recording, over two
 * threads (parallel.ts; pass the check already started, if any), anything else on this one.
 */
export async function checkRecordingRef(ref: string, dbPath: string | undefined, ignore: string[], started?: ParallelCheck): Promise<CheckRun> {
  const parallel = started ?? startParallelCheck(ref);
  if (parallel) return parallel.run(ignore);
  const threads = process.env.ACP_INSPECT_CHECK_THREADS;
  if (looksLikeFile(ref) || threads === '1') return checkStream(streamRecordingRef(ref, dbPath), ignore);
  const { store, id } = openStored(ref, dbPath);
  try {
    if (threads !== '2' && (store.getRecording(id)?.items ?? 0) < PARALLEL_MIN_ITEMS) return checkStream(store.iterateItems(id), ignore);
    // This thread steps through the rows (as arrays, only the columns an item needs); the worker makes the items and checks them.
    const page = store.db.prepare(`SELECT ${ROW_COLUMNS} FROM items WHERE recording_id = ? AND seq > ? ORDER BY seq LIMIT 1000`).raw(true);
    return await new ParallelCheck().runRows(ignore, (function* () {
      for (let after = 0; ;) {
        const rows = page.all(id, after) as unknown[][];
        if (!rows.length) return;
        yield* rows;
        after = rows[rows.length - 1]![0] as number;
      }
    })());
  } finally {
    store.close();
  }
}

const PER_RULE = 20;

/** The readable report: grouped by severity, then rule; each finding with its frame and spec section. */
export function formatReport(run: CheckRun, label: string): string {
  const count = (s: string) => run.findings.filter((f) => f.severity === s).length;
  const e = count('error');
  const w = count('warning');
  const i = count('info');
  const plural = (n: number, w1: string) => `${n} ${w1}${n === 1 ? '' : 's'}`;
  const out: string[] = [`${label}: ${plural(run.frames, 'frame')} checked — ${plural(e, 'error')}, ${plural(w, 'warning')}, ${i} info`];
  const titles = new Map(RULES.map((r) => [r.id, r.title]));
  for (const [sev, head] of [['error', 'Errors'], ['warning', 'Warnings'], ['info', 'Info']] as const) {
    const list = run.findings.filter((f) => f.severity === sev);
    if (!list.length) continue;
    out.push('', `${head}:`);
    const byRule = new Map<string, Finding[]>();
    for (const f of list) {
      const l = byRule.get(f.rule) ?? [];
      l.push(f);
      byRule.set(f.rule, l);
    }
    for (const [rule, fs] of byRule) {
      out.push(`  ${rule} — ${titles.get(rule) ?? rule} (${plural(fs.length, 'finding')})`);
      for (const f of fs.slice(0, PER_RULE)) out.push(`    #${f.seq}  [spec ${f.spec}]  ${f.message}`);
      if (fs.length > PER_RULE) out.push(`    … and ${fs.length - PER_RULE} more (use --json for all)`);
    }
  }
  if (!run.findings.length) out.push('', 'No findings.');
  return out.join('\n') + '\n';
}

/** `acp-inspect check --rules`: the rule table. */
export function formatRules(): string {
  const w = Math.max(...RULES.map((r) => r.id.length));
  return RULES.map((r) => `${r.id.padEnd(w)}  ${r.severity.padEnd(7)}  ${r.spec.padEnd(10)}  ${r.title}`).join('\n') + '\n';
}
