/**
 * `GET /api/recordings/:id/fixture?turn=SEQ` or `?seq=A-B` (`&redact=0` keeps secrets): one turn or a
 * range of a recording as a test fixture (see transcript/slice.ts), as a .jsonl download. Problems
 * the slice cannot work around (a request never answered) come in the `X-Acp-Inspect-Warnings` header.
 */
import type { Context, Hono } from 'hono';
import type { Store } from '../store/store.js';
import { transcriptLines } from '../transcript/format.js';
import { parseSeqRange, sliceItems, SliceError, type SliceSpec } from '../transcript/slice.js';
import { readStoredSlice } from '../store/slice-source.js';
import { redactItems } from '../redact.js';
import { transcriptDownload } from './download.js';

function specOf(c: Context): SliceSpec {
  const turn = c.req.query('turn');
  const seq = c.req.query('seq');
  if ((turn === undefined) === (seq === undefined)) throw new SliceError('ask for ?turn=SEQ (a prompt turn) or ?seq=A-B (a range of items), one of them');
  if (turn !== undefined) {
    if (!/^\d{1,15}$/.test(turn)) throw new SliceError(`turn must be the # number of an item of the turn, got "${turn}"`);
    return { turn: Number(turn) };
  }
  return parseSeqRange(seq!);
}

export function registerSliceRoute(app: Hono, store: Store, recId: (c: Context) => number): void {
  app.get('/api/recordings/:id/fixture', (c) => {
    const id = recId(c);
    const spec = specOf(c);
    // Only the slice's rows are read (store/slice-source.ts), and its items stream to the client.
    const { plan, items } = readStoredSlice(store, id, spec, { rawJson: true }); // redactItems parses what may hold a secret
    const kept = sliceItems(plan, items);
    const what = 'turn' in plan.cut ? `turn-${plan.cut.turn}` : `seq-${plan.cut.from}-${plan.cut.to}`;
    const headers: Record<string, string> = {};
    if (plan.warnings.length) headers['X-Acp-Inspect-Warnings'] = encodeURIComponent(plan.warnings.join('\n'));
    const lines = transcriptLines(plan.header, c.req.query('redact') === '0' ? kept : redactItems(kept), plan.notes);
    return transcriptDownload(lines, `acp-recording-${id}-${what}.jsonl`, headers);
  });
}
