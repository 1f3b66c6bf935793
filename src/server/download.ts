/**
 * A transcript download streamed as it is read: the body pulls lines (transcriptLines over the
 * store's pagedItems, whose pages are finished queries, so other requests use the connection between
 * two pulls) in pieces of about a MiB, as fast as the client takes them. A 1 GiB recording downloads
 * in the memory of a piece.
 */
import { chunkLines } from '../transcript/write-file.js';
import type { LineOut } from '../transcript/format.js';

/** A `.jsonl` attachment response whose body is `lines`, read as the client reads. */
export function transcriptDownload(lines: Iterable<LineOut>, filename: string, headers: Record<string, string> = {}): Response {
  const pieces = chunkLines(lines)[Symbol.iterator]();
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      try {
        const next = pieces.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch (e) {
        controller.error(e); // the client sees a cut download, never a half-written file reported whole
      }
    },
    cancel() {
      pieces.return?.(undefined);
    },
  }, { highWaterMark: 1 });
  return new Response(body, {
    status: 200,
    headers: {
      'Content-Type': 'application/x-ndjson; charset=utf-8',
      'Content-Disposition': `attachment; filename="${filename}"`,
      ...headers,
    },
  });
}
