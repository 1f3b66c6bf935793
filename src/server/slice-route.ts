/**
 * `GET /api/recordings/:id/fixture?turn=SEQ` or `?seq=A-B` (`&redact=0` keeps secrets): one turn or a
 * range of a recording as a test fixture (see transcript/slice.ts), as a .jsonl download. Problems
 * the slice cannot work around (a request never answered) come in the `X-Acp-Inspect-Warnings` header.
 */
import type { Context, Hono } from 'hono';
import type { Store } from '../store/store.js';
import { serializeTranscript } from '../transcript/format.js';
import { parseSeqRange, sliceRecording, SliceError, type SliceSpec } from '../transcript/slice.js';
import { redactRecording } from '../redact.js';

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
    const slice = sliceRecording(store.loadRecording(id), spec);
    const rec = c.req.query('redact') === '0' ? slice.recording : redactRecording(slice.recording);
    const what = 'turn' in slice.cut ? `turn-${slice.cut.turn}` : `seq-${slice.cut.from}-${slice.cut.to}`;
    const headers: Record<string, string> = {
      'Content-Type': 'application/x-ndjson; charset=utf-8',
      'Content-Disposition': `attachment; filename="acp-recording-${id}-${what}.jsonl"`,
    };
    if (slice.warnings.length) headers['X-Acp-Inspect-Warnings'] = encodeURIComponent(slice.warnings.join('\n'));
    return c.body(serializeTranscript(rec), 200, headers);
  });
}
