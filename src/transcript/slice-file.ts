/**
 * A slice of a transcript file of any size (transcript/slice.ts), in two reads of the file: the first
 * plans the slice from every item with the text of the agent's `session/update`s dropped (unless the
 * text may name a tool call, a terminal or a state the slice depends on), the second hands on the
 * kept items as it reads them. What is held is the plan and a small record per item, never the file.
 */
import type { Frame, Item } from '../wire/frame.js';
import { checkNotes, sortNotes, TranscriptLineReader } from './format.js';
import { readTranscriptItems } from './read-file.js';
import { planSlice, SessionUpdatesBuilder, type SlicePlan, type SliceSpec, updateWithoutText } from './slice.js';

/** Update text the slice's plan may read: it may name a tool call or a terminal, be a state update, or spell either in escapes. */
const MAY_MATTER = /toolCallId|terminalId|current_mode_update|config_option_update|available_commands_update|session_info_update|\\u/;

/**
 * An agent update whose text cannot matter to the plan, without its text (SessionUpdatesBuilder
 * takes it): a text chunk frame (read without its text: see sliceTranscriptFile), whatever its text
 * spells, or an update whose raw text names nothing the plan reads.
 */
function planned(it: Item): Item {
  if (it.dir !== 'a2c') return it;
  const f = it as Frame;
  if (f.raw === '' || f.method !== 'session/update' || f.kind !== 'notification' || MAY_MATTER.test(f.raw)) return it;
  return updateWithoutText(f);
}

/** Plans `spec` on transcript `file` (reading it once); `items()` reads it again for the kept items. Throws SliceError, TranscriptError. */
export function sliceTranscriptFile(file: string, spec: SliceSpec): { plan: SlicePlan; items: () => Iterable<Item> } {
  const reader = new TranscriptLineReader();
  const all: Item[] = [];
  const updates = new SessionUpdatesBuilder(1);
  // The agent's text chunk frames read without their text (the plan holds what the client sent whole).
  for (const it of readTranscriptItems(file, reader, undefined, (_seq, dir) => dir === 'a2c')) {
    const p = planned(it);
    if (!updates.take(p)) all.push(p);
  }
  checkNotes(reader.notes, reader.seq);
  const plan = planSlice({ recording: { header: reader.header, items: all, notes: sortNotes(reader.notes) }, maxSeq: reader.seq, updates: updates.done() }, spec);
  // The second reading makes the text of the kept ones only.
  return { plan, items: () => readTranscriptItems(file, undefined, undefined, (seq) => plan.newSeq(seq) === undefined) };
}
