/**
 * A slice of a stored recording (transcript/slice.ts: one turn or a range, with the set-up it
 * depends on) read through the store's indexes: only the rows the slice could need are read, never
 * the whole recording, so a 1,000-item slice of a million-item recording reads about a thousand
 * rows. The pure slice code decides what is kept; this file only finds the rows it looks at:
 *
 * 1. the span: the item named and the prompt turns around it, with their answers (by method and
 *    reply_to), give the items the slice proper spans (`sliceSpan`);
 * 2. the rows the plan could need: the span (agent updates in it without their text, unless the text
 *    names a tool call or a terminal), the set-up, configuration, initialize, authenticate and
 *    terminal/create exchanges (by method), the answers to requests of the span and the requests
 *    of its answers (by reply_to), the state updates sent before the span, the `tool_call`s that
 *    announced tool calls the span names, a load's history, the agent's spawn;
 * 3. the kept items themselves, read a page at a time in seq order (`items`), never all at once.
 */
import type { Frame, Item } from '../wire/frame.js';
import { planSlice, SessionUpdatesBuilder, sliceSpan, SliceError, type SlicePlan, type SliceSpec, updateWithoutText } from '../transcript/slice.js';
import { isTextChunkRaw } from '../wire/chunk-frame.js';
import type { TranscriptNote } from '../transcript/format.js';
import type { Store } from './store.js';
import { toTranscriptNote } from './store.js';

const PROMPTS = `method = 'session/prompt' AND kind = 'request' AND dir = 'c2a'`;
const SET_UP = ['initialize', 'authenticate', 'session/new', 'session/load', 'session/resume', 'session/fork', 'session/set_mode', 'session/set_model', 'session/set_config_option', 'terminal/create'];
const SETUP_REQUESTS = `kind = 'request' AND dir = 'c2a' AND method IN ('session/new', 'session/load', 'session/resume', 'session/fork')`;
/** A JSON escape may spell any key or value: such a line is read whole. */
const ESCAPED = `instr(raw, '\\u') > 0`;
/**
 * Agent updates whose text the plan may read (they may name a tool call or a terminal): a key that
 * is `toolCallId` or `terminalId` ends in `lId"` unless an escape spells it (only `\u` spells a
 * letter). One search less over every update of the span: each costs about as much as reading the row.
 */
const MAY_REFER = `instr(raw, 'lId"') > 0 OR ${ESCAPED}`;
/** Agent updates that may be state updates (transcript/slice.ts's STATE_UPDATES). */
const MAY_BE_STATE = `instr(raw, 'current_mode_update') > 0 OR instr(raw, 'config_option_update') > 0 OR instr(raw, 'available_commands_update') > 0 OR instr(raw, 'session_info_update') > 0 OR ${ESCAPED}`;
/** Ids of tool calls looked up one by one; more, and the tool_call announcements are looked for in one pass. */
const IDS_ONE_BY_ONE = 16;

export interface StoredSlice {
  plan: SlicePlan;
  /** The kept items in seq order, read a page at a time (other statements may run between two). */
  items: Iterable<Item>;
}

/**
 * Cuts `spec` out of stored recording `id` (see the file comment); throws SliceError on a bad spec.
 * `rawJson`: the kept frames come as RawJsonFrame, for writers of transcript lines (export, the download
 * route): SQLite writes their raw text as a JSON string (see Store.pagedItems; sliceItems's copies have
 * no `raw`, only `rawJson`, which transcriptLines and redactItems read).
 */
export function readStoredSlice(store: Store, id: number, spec: SliceSpec, opts: { rawJson?: boolean } = {}): StoredSlice {
  const maxSeq = store.maxSeq(id);
  if (maxSeq === 0) throw new SliceError('the recording has no items to cut a fixture from');
  const allTurns = () => store.selectItems(id, PROMPTS, [], { blankRawWhen: '1', index: 'items_rec_method' }).map((i) => ({ seq: i.seq }));
  const header = store.headerOf(id);
  const notes: TranscriptNote[] = store.readNotes(id).map(toTranscriptNote);
  // Each query is one an index answers (by seq, method, reply_to or kind).
  const bySeqs = (seqs: Iterable<number>): Item[] => {
    const list = [...new Set(seqs)];
    const out: Item[] = [];
    for (let i = 0; i < list.length; i += 500) {
      const part = list.slice(i, i + 500);
      out.push(...store.selectItems(id, `seq IN (${part.map(() => '?').join(', ')})`, part));
    }
    return out;
  };
  const answersTo = (seqs: number[]): Item[] => {
    const out: Item[] = [];
    for (let i = 0; i < seqs.length; i += 500) {
      const part = seqs.slice(i, i + 500);
      out.push(...store.selectItems(id, `reply_to IN (${part.map(() => '?').join(', ')})`, part));
    }
    return out;
  };

  // 1. The span, from the item named and the turns open at it (asked at or before it, not answered before it).
  const at = Math.min('turn' in spec ? spec.turn : spec.from, maxSeq);
  const named = store.selectItems(id, 'seq = ?', [at]);
  const asked = named.flatMap((it) => ((it as Frame).replyTo !== undefined ? [(it as Frame).replyTo!] : []));
  const prompts = store.selectItems(id, `${PROMPTS} AND seq <= ?`, [at], { blankRawWhen: '1', index: 'items_rec_method' }).map((p) => p.seq);
  const promptAnswers = answersTo(prompts);
  const answeredBefore = new Set(promptAnswers.filter((r) => r.seq < at).map((r) => (r as Frame).replyTo!));
  const open = prompts.filter((q) => !answeredBefore.has(q));
  const around = [...named, ...bySeqs([...asked, ...open]), ...promptAnswers.filter((r) => !answeredBefore.has((r as Frame).replyTo!))];
  const span = sliceSpan({ recording: { header, items: sortBySeq(around), notes }, maxSeq, allTurns }, spec);

  // 2. What the plan could need: the span (agent updates without their text unless it may name a
  // tool call or a terminal), read a page at a time; the rest, far fewer rows, by index.
  const spanRows: Item[] = [];
  const updates = new SessionUpdatesBuilder(span.from, span.to - span.from + 1);
  const ids = new Set<string>();
  const outside: number[] = []; // requests of the span's answers that came before it
  for (const read of store.pagedItems(id, span.from - 1, span.to, 2000, { blankRawWhen: `dir = 'a2c' AND method = 'session/update' AND NOT (${MAY_REFER})` })) {
    // A text chunk frame read whole for an escape in its text: its text cannot matter either.
    const it = read.dir === 'a2c' && (read as Frame).raw !== '' && (read as Frame).method === 'session/update' && isTextChunkRaw((read as Frame).raw) ? updateWithoutText(read as Frame) : read;
    if (updates.take(it)) continue;
    spanRows.push(it);
    if (it.dir !== 'a2c' && it.dir !== 'c2a') continue;
    const f = it as Frame;
    if (f.replyTo !== undefined && f.replyTo < span.from) outside.push(f.replyTo);
    if (f.dir === 'a2c' && f.raw !== '') toolCallIdsOf(f, ids);
  }
  const extra = new Map<number, Item>();
  const add = (items: Item[]) => { for (const it of items) if (it.seq < span.from || it.seq > span.to) extra.set(it.seq, it); };
  add(around);
  add(store.selectItems(id, `method IN (${SET_UP.map(() => '?').join(', ')})`, SET_UP));
  add(store.selectItems(id, 'reply_to >= ? AND reply_to <= ?', [span.from, span.to]));
  add(bySeqs(outside));
  const spawn = store.selectItems(id, `kind = 'spawn' AND dir = 'event'`);
  add(spawn.slice(0, 1));
  // Tool calls the span names: their announcements before it.
  if (ids.size > IDS_ONE_BY_ONE) {
    add(store.selectItems(id, `method = 'session/update' AND dir = 'a2c' AND seq < ? AND instr(raw, 'tool_call') > 0`, [span.from]));
  } else {
    for (const tc of ids) add(store.selectItems(id, `method = 'session/update' AND dir = 'a2c' AND seq < ? AND instr(raw, ?) > 0`, [span.from, JSON.stringify(tc)]));
  }
  const items = () => mergeBySeq(sortBySeq([...extra.values()]), spanRows);
  let plan = planSlice({ recording: { header, items: items(), notes }, maxSeq, allTurns, updates: updates.done() }, spec);
  // Before the slice's first item (known now): state updates, and what the agent sent while
  // answering a set-up (a load's history). Then the plan again, with them.
  if (plan.first > 1) {
    const before = extra.size;
    add(store.selectItems(id, `method = 'session/update' AND dir = 'a2c' AND seq < ? AND (${MAY_BE_STATE})`, [plan.first]));
    const answerOf = new Map<number, number>();
    for (const it of extra.values()) if (it.dir === 'a2c' && (it as Frame).replyTo !== undefined) answerOf.set((it as Frame).replyTo!, it.seq);
    for (const setup of store.selectItems(id, `${SETUP_REQUESTS} AND seq < ?`, [plan.first], { blankRawWhen: '1' })) {
      add([...store.pagedItems(id, setup.seq, Math.min(answerOf.get(setup.seq) ?? plan.first, plan.first) - 1)].filter((it) => it.dir === 'a2c'));
    }
    if (extra.size !== before) plan = planSlice({ recording: { header, items: items(), notes }, maxSeq, allTurns, updates: updates.done() }, spec);
  }
  return { plan, items: keptItems(store, id, plan.seqs, opts.rawJson === true) };
}

const sortBySeq = (items: Item[]): Item[] => items.sort((a, b) => a.seq - b.seq);

/** Two lists in seq order as one (the second is the span, the first what lies around it). */
function mergeBySeq(a: readonly Item[], b: readonly Item[]): Item[] {
  const out: Item[] = new Array(a.length + b.length);
  let i = 0, j = 0, k = 0;
  while (i < a.length || j < b.length) out[k++] = j >= b.length || (i < a.length && a[i]!.seq < b[j]!.seq) ? a[i++]! : b[j++]!;
  return out;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);

/** The tool call ids a frame names (a tool call update's, a permission request's). */
function toolCallIdsOf(f: Frame, out: Set<string>): void {
  const params = obj(obj(f.json)?.params);
  for (const v of [obj(params?.update)?.toolCallId, obj(params?.toolCall)?.toolCallId]) if (typeof v === 'string') out.add(v);
}

/**
 * The items with the seqs given (in order), read a run of consecutive seqs at a time, a page at a
 * time; `rawJson`: frames as RawJsonFrame (see Store.pagedItems).
 */
function* keptItems(store: Store, id: number, seqs: readonly number[], rawJson: boolean): Generator<Item> {
  for (let i = 0; i < seqs.length;) {
    let j = i;
    while (j + 1 < seqs.length && seqs[j + 1] === seqs[j]! + 1) j++;
    yield* store.pagedItems(id, seqs[i]! - 1, seqs[j]!, 1000, { rawJson });
    i = j + 1;
  }
}
