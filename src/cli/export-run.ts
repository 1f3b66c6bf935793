/**
 * `acp-inspect export` of a transcript (whole, or a turn or range of it as a fixture) behind the
 * commander layer. Streams: the items go from the store (a page at a time) or the file (a read at a
 * time) through redaction to the output as they are read, so a recording of any size is exported in
 * the memory of a page; a slice reads only its rows (store/slice-source.ts) or plans on a first read
 * of the file (transcript/slice-file.ts).
 */
import type { Item } from '../wire/frame.js';
import { looksLikeFile, withRecordingStream } from '../source.js';
import { transcriptLines, type TranscriptHeader, type TranscriptNote } from '../transcript/format.js';
import { sliceItems, type SlicePlan, type SliceSpec } from '../transcript/slice.js';
import { sliceTranscriptFile } from '../transcript/slice-file.js';
import { readStoredSlice } from '../store/slice-source.js';
import { redactItems } from '../redact.js';
import { writeLinesToFile, writeLinesToStdout } from '../transcript/write-file.js';
import { endQuietlyWhenStdoutCloses } from './stdout.js';
import { plural } from '../text/format.js';

export interface ExportTranscriptOptions {
  db?: string;
  output?: string;
  redact: boolean;
  spec?: SliceSpec;
}

export async function exportTranscript(ref: string, opts: ExportTranscriptOptions): Promise<void> {
  const spec = opts.spec;
  if (spec && looksLikeFile(ref)) {
    const cut = sliceTranscriptFile(ref, spec);
    return writeSlice(cut.plan, cut.items(), opts);
  }
  await withRecordingStream(ref, opts.db, async (src) => {
    if (!spec) return write(src.header, src.items, src.notes, opts);
    const cut = readStoredSlice(src.store!, src.id!, spec, { rawJson: true });
    return writeSlice(cut.plan, cut.items, opts);
  }, { json: false, rawJson: true }); // only the lines are written; redaction parses the lines that may hold a secret
}

/** Writes a transcript to the output as its items are read, redacted unless asked not to. */
async function write(header: TranscriptHeader, items: Iterable<Item>, notes: () => readonly TranscriptNote[], opts: ExportTranscriptOptions): Promise<void> {
  let count = 0;
  let noteCount = 0;
  const counted = (function* () {
    for (const it of items) {
      count++;
      yield it;
    }
  })();
  const lines = transcriptLines(header, opts.redact ? redactItems(counted) : counted, () => {
    const n = notes();
    noteCount = n.length;
    return n;
  });
  if (opts.output) {
    writeLinesToFile(opts.output, lines);
    process.stderr.write(`wrote ${plural(count, 'item')}${noteCount ? ` and ${plural(noteCount, 'note')}` : ''} to ${opts.output}\n`);
  } else {
    endQuietlyWhenStdoutCloses();
    await writeLinesToStdout(lines);
  }
}

/** A slice's items and notes, its warnings said on stderr first. */
function writeSlice(plan: SlicePlan, kept: Iterable<Item>, opts: ExportTranscriptOptions): Promise<void> {
  for (const w of plan.warnings) process.stderr.write(`acp-inspect: warning: ${w}\n`);
  return write(plan.header, sliceItems(plan, kept), () => plan.notes, opts);
}
