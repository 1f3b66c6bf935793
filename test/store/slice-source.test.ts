/**
 * A slice read from the store (store/slice-source.ts: only the rows it could need, through the
 * indexes) is the slice cut from the whole recording in memory (transcript/slice.ts): on every turn
 * and two ranges of every sample recording, the same lines, plain and redacted, and the same warnings,
 * with the kept frames read parsed and as their lines (`rawJson`, what export and the download write).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Store } from '../../src/store/store.js';
import { readStoredSlice } from '../../src/store/slice-source.js';
import { lineText, parseTranscript, transcriptLines, type Recording } from '../../src/transcript/format.js';
import { sliceItems, sliceRecording, type SliceSpec } from '../../src/transcript/slice.js';
import { redactItems } from '../../src/redact.js';
import type { Frame, Item } from '../../src/wire/frame.js';
import { ROOT, tempDir } from '../helpers.js';

function recordings(d = join(ROOT, 'recordings')): string[] {
  return readdirSync(d).flatMap((e) => {
    const p = join(d, e);
    return statSync(p).isDirectory() ? recordings(p) : p.endsWith('.jsonl') ? [p] : [];
  }).sort();
}

/** Each turn, the middle third, and everything but the first item. */
function specsOf(rec: Recording): SliceSpec[] {
  const n = rec.items.length;
  const turns = rec.items.filter((i) => i.dir === 'c2a' && (i as Frame).kind === 'request' && (i as Frame).method === 'session/prompt').map((i) => ({ turn: i.seq }));
  return [...turns, { from: Math.floor(n / 3) + 1, to: Math.floor((2 * n) / 3) + 1 }, { from: 2, to: n }];
}

/** The item lines as text (the header's differ: a stored recording's says when it was imported). */
const lines = (items: Iterable<Item>, redact: boolean): string[] => [...transcriptLines({ acpInspect: 'recording', version: 1 }, redact ? redactItems(items) : items)].slice(1).map(lineText);

const t = tempDir();
afterAll(() => t.cleanup());

describe('a slice read from the store', () => {
  it('is the slice of the whole recording, on every turn and two ranges of every sample recording', () => {
    const store = Store.open(join(t.dir, 'slices.sqlite'));
    let cut = 0;
    try {
      for (const file of recordings()) {
        const rec = parseTranscript(readFileSync(file, 'utf8'));
        if (rec.items.length < 2) continue;
        const id = store.importRecording(rec);
        for (const spec of specsOf(rec)) {
          const what = `${file} ${JSON.stringify(spec)}`;
          const mem = sliceRecording(rec, spec);
          for (const rawJson of [false, true]) {
            const stored = readStoredSlice(store, id, spec, { rawJson });
            expect(stored.plan.seqs, what).toEqual(mem.seqs);
            expect(stored.plan.warnings, what).toEqual(mem.warnings);
            const items = [...stored.items];
            for (const redact of [false, true]) expect(lines(sliceItems(stored.plan, items), redact), what).toEqual(lines(mem.recording.items, redact));
          }
          cut++;
        }
      }
    } finally {
      store.close();
    }
    expect(cut).toBeGreaterThan(100);
  });
});
