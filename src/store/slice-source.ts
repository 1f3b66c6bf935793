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
import { planSlice, sliceSpan, SliceError, type SlicePlan, type SliceSpec } from '../transcript/slice.js';
import type { TranscriptNote } from '../transcript/format.js';
import type { Store } from './store.js';
import { toTranscriptNote } from './store.js';

const PROMPTS = `method = 'session/prompt' AND kind = 'request' AND dir = 'c2a'`;
const SET_UP = ['initialize', 'authenticate', 'session/new', 'session/load', 'session/resume', 'session/fork', 'session/set_mode', 'session/set_model', 'session/set_config_option', 'terminal/create'];
const SETUP_REQUESTS = `kind = 'request' AND dir = 'c2a' AND method IN ('session/new', 'session/load', 'session/resume', 'session/fork')`;
/** A JSON escape may spell any key or value: such a line is read whole. */
const ESCAPED = `instr(raw, '\\u') > 0`;
/** Agent updates whose text the plan may read (they may name a tool call or a terminal). */
const MAY_REFER = `instr(raw, 'toolCallId') > 0 OR instr(raw, 'terminalId') > 0 OR ${ESCAPED}`;
/** Agent updates that may be state updates (transcript/slice.ts's STATE_UPDATES). */
const MAY_BE_STATE = `instr(raw, 'current_mode_update') > 0 OR instr(raw, 'config_option_update') > 0 OR instr(raw, 'available_commands_update') > 0 OR instr(raw, 'session_info_update') > 0 OR ${ESCAPED}`;
/** Ids of tool calls looked up one by one; more, and the tool_call announcements are looked for in one pass. */
const IDS_ONE_BY_ONE = 16;

export interface StoredSlice {
  plan: SlicePlan;
  /** The kept items in seq order, read a page at a time (other statements may run between two). */
  items: Iterable<Item>;
}

/** Cuts `spec` out of stored recording `id` (see the file comment); throws SliceError on a bad spec. */
export function readStoredSlice(store: Store, id: number, spec: SliceSpec): StoredSlice {
  const maxSeq = store.maxSeq(id);
  if (maxSeq === 0) throw new SliceError('the recording has no items to cut a fixture from');
  const allTurns = () => store.selectItems(id, PROMPTS, [], { blankRawWhen: '1' }).map((i) => ({ seq: i.seq }));
  const header = store.headerOf(id);
  const notes: TranscriptNote[] = store.readNotes(id).map(toTranscriptNote);

  // 1. The span, from the item named and the turns open at it.
  const at = Math.min('turn' in spec ? spec.turn : spec.from, maxSeq);
  const around = store.selectItems(id, `seq = ? OR seq IN (SELECT reply_to FROM items WHERE recording_id = ? AND seq = ?) OR seq IN (${openPrompts}) OR reply_to IN (${openPrompts})`,
    [at, id, at, id, at, at, id, at, at]);
  const span = sliceSpan({ recording: { header, items: around }, maxSeq, allTurns }, spec);

  // 2. What the plan could need.
  const rows = new Map<number, Item>();
  const add = (items: Item[]) => { for (const it of items) if (!rows.has(it.seq) || (rows.get(it.seq) as Frame).raw === '') rows.set(it.seq, it); };
  add(around);
  const inSpan = store.selectItems(id, 'seq >= ? AND seq <= ?', [span.from, span.to], {
    blankRawWhen: `dir = 'a2c' AND method = 'session/update' AND NOT (${MAY_REFER})`,
  });
  add(inSpan);
  add(store.selectItems(id, `method IN (${SET_UP.map(() => '?').join(', ')})`, SET_UP));
  add(store.selectItems(id, `(reply_to >= ? AND reply_to <= ?) OR seq IN (SELECT reply_to FROM items WHERE recording_id = ? AND seq >= ? AND seq <= ? AND reply_to IS NOT NULL)`,
    [span.from, span.to, id, span.from, span.to]));
  add(store.selectItems(id, `seq = (SELECT MIN(seq) FROM items WHERE recording_id = ? AND dir = 'event' AND kind = 'spawn')`, [id]));
  // Tool calls the span names: their announcements before it.
  const ids = new Set<string>();
  for (const it of inSpan) if (it.dir === 'a2c' && (it as Frame).raw !== '') toolCallIdsOf(it as Frame, ids);
  if (ids.size > IDS_ONE_BY_ONE) {
    add(store.selectItems(id, `dir = 'a2c' AND method = 'session/update' AND seq < ? AND instr(raw, 'tool_call') > 0`, [span.from]));
  } else {
    for (const tc of ids) add(store.selectItems(id, `dir = 'a2c' AND method = 'session/update' AND seq < ? AND instr(raw, ?) > 0`, [span.from, JSON.stringify(tc)]));
  }
  const items = () => [...rows.values()].sort((a, b) => a.seq - b.seq);
  let plan = planSlice({ recording: { header, items: items(), notes }, maxSeq, allTurns }, spec);
  // Before the slice's first item (known now): state updates, and what the agent sent while
  // answering a set-up (a load's history). Then the plan again, with them.
  if (plan.first > 1) {
    const before = rows.size;
    add(store.selectItems(id, `dir = 'a2c' AND method = 'session/update' AND seq < ? AND (${MAY_BE_STATE})`, [plan.first]));
    const answerOf = new Map<number, number>();
    for (const it of rows.values()) if (it.dir === 'a2c' && (it as Frame).replyTo !== undefined) answerOf.set((it as Frame).replyTo!, it.seq);
    for (const setup of store.selectItems(id, `${SETUP_REQUESTS} AND seq < ?`, [plan.first], { blankRawWhen: '1' })) {
      add(store.selectItems(id, `dir = 'a2c' AND seq > ? AND seq < ?`, [setup.seq, Math.min(answerOf.get(setup.seq) ?? plan.first, plan.first)]));
    }
    if (rows.size !== before) plan = planSlice({ recording: { header, items: items(), notes }, maxSeq, allTurns }, spec);
  }
  return { plan, items: keptItems(store, id, plan.seqs) };
}

/** Prompts open at seq `?` (asked at or before it, not answered before it); parameters: id, seq, seq. */
const openPrompts = `SELECT p.seq FROM items p WHERE p.recording_id = ? AND p.${PROMPTS.replace(/ AND /g, ' AND p.')} AND p.seq <= ?
  AND NOT EXISTS (SELECT 1 FROM items r WHERE r.recording_id = p.recording_id AND r.reply_to = p.seq AND r.seq < ?)`;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);

/** The tool call ids a frame names (a tool call update's, a permission request's). */
function toolCallIdsOf(f: Frame, out: Set<string>): void {
  const params = obj(obj(f.json)?.params);
  for (const v of [obj(params?.update)?.toolCallId, obj(params?.toolCall)?.toolCallId]) if (typeof v === 'string') out.add(v);
}

/** The items with the seqs given (in order), read a run of consecutive seqs at a time, a page at a time. */
function* keptItems(store: Store, id: number, seqs: readonly number[]): Generator<Item> {
  for (let i = 0; i < seqs.length;) {
    let j = i;
    while (j + 1 < seqs.length && seqs[j + 1] === seqs[j]! + 1) j++;
    yield* store.pagedItems(id, seqs[i]! - 1, seqs[j]!);
    i = j + 1;
  }
}
