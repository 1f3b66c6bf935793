/**
 * The items table's `chunk` column (schema 7): a text chunk frame in the SDK's form has its text's
 * UTF-8 length and update kind stored beside it, so that the waterfall and insights read no chunk
 * text (issue 45). Every way rows are written fills it, and only with the truth: the tap's recorder
 * (frames recognised from the capture log, packed on its worker), an import of a transcript (lines
 * recognised without decoding their text), appendItems. Read back for sizes (pagedItems' `bytes`),
 * the items are the ones read as text, their raw text read from the store only when read; rows
 * without the column (written before it, or a database still at schema 6) read as before.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { BIN, PEERS, cli, run, tempDir } from '../helpers.js';
import { Store } from '../../src/store/store.js';
import { MIGRATIONS } from '../../src/store/schema.js';
import { CHUNK_UPDATES } from '../../src/wire/chunk-line.js';
import { isTextChunkRaw } from '../../src/wire/chunk-frame.js';
import { frameFromText, utf8Length } from '../../src/wire/make-frame.js';
import { lazyTextBytes } from '../../src/wire/lazy-chunk.js';
import type { Frame } from '../../src/wire/frame.js';

let cleanup = () => {};
afterEach(() => cleanup());

const ECHO = join(PEERS, 'echo-agent.mjs');
type ChunkJson = { params: { update: { sessionUpdate: string; content: { text: string } } } };

const chunk = (text: string, kind: string = CHUNK_UPDATES[0], sid = 'sess-1') =>
  `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"${sid}","update":{"sessionUpdate":"${kind}","content":{"type":"text","text":${JSON.stringify(text)}}}}}`;
/** Chunk frames of every text kind, the same texts with escapes a writer may choose, and frames that are no chunk in the SDK's form. */
const LINES = [
  chunk('plain ASCII prose'),
  chunk('ünï — ✓ 😀 漢字 café', CHUNK_UPDATES[1]),
  chunk('quote " backslash \\ newline \n tab \t é slash /', CHUNK_UPDATES[2]),
  chunk('x').replace('"text":"x"', '"text":"\\u00e9\\ud83d\\ude00 \\u2713 \\/ escaped é \\ud800 lone"'),
  chunk('', CHUNK_UPDATES[0]),
  chunk('session past ASCII', CHUNK_UPDATES[0], 's-é'),
  // Recognised, but with a messageId, which the column does not hold: none.
  chunk('with a message id').replace('"content":', '"messageId":"m1","content":'),
  // Not the SDK's form: another key, whitespace, annotations.
  chunk('spaced').replace('{"type":"text"', '{"type": "text"'),
  '{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":"héllo"}]}}',
  '{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}',
  'not json ü',
];

/** Every frame row's `chunk` is null or the truth; returns how many rows of chunk frames in the SDK's form (without a messageId) have it, and how many such rows there are. */
function checkColumn(db: string, recordingId: number): { filled: number; chunks: number } {
  const d = new Database(db, { readonly: true });
  try {
    const rows = d.prepare(`SELECT raw, chunk FROM items WHERE recording_id = ? AND dir IN ('c2a', 'a2c') ORDER BY seq`).all(recordingId) as { raw: string; chunk: number | null }[];
    let filled = 0;
    let chunks = 0;
    for (const r of rows) {
      const sdkForm = isTextChunkRaw(r.raw) && !('messageId' in (JSON.parse(r.raw) as ChunkJson).params.update);
      if (sdkForm) chunks++;
      if (r.chunk === null) continue;
      expect(sdkForm, r.raw).toBe(true);
      const u = (JSON.parse(r.raw) as ChunkJson).params.update;
      expect(r.chunk, r.raw).toBe(utf8Length(u.content.text) * 4 + CHUNK_UPDATES.indexOf(u.sessionUpdate as (typeof CHUNK_UPDATES)[number]));
      filled++;
    }
    return { filled, chunks };
  } finally {
    d.close();
  }
}

/** The items read for sizes (the waterfall's way) are the items read as text. */
function sameItems(db: string, id: number): Frame[] {
  const store = Store.open(db, { readonly: true });
  try {
    const text = [...store.pagedItems(id)];
    const sized = [...store.pagedItems(id, 0, Number.MAX_SAFE_INTEGER, 4, { bytes: true })];
    expect(JSON.stringify(sized)).toBe(JSON.stringify(text));
    return sized.filter((i): i is Frame => i.dir === 'a2c' || i.dir === 'c2a');
  } finally {
    store.close();
  }
}

describe('the chunk column', () => {
  it('is filled with the truth by the tap, by an import of its transcript and by appendItems, and reads back as the items read as text', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const db = join(t.dir, 'r.sqlite');
    const input = Buffer.from(LINES.map((l) => `${l}\n`).join(''));
    const r = await run(process.execPath, [BIN, '--db', db, '--', process.execPath, ECHO], { input });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.equals(input)).toBe(true);
    // Both directions (the echo agent sends every line back): six chunk frames in the SDK's form each way.
    expect(checkColumn(db, 1)).toEqual({ filled: 12, chunks: 12 });
    sameItems(db, 1);

    // Its transcript imported (chunk lines recognised without decoding their text).
    const f = join(t.dir, 'r.jsonl');
    const ex = await cli(['export', '1', '--db', db, '--no-redact', '-o', f]);
    expect(ex.code, ex.stderr).toBe(0);
    const im = await cli(['import', f, '--db', db]);
    expect(im.code, im.stderr).toBe(0);
    // (All but the two whose session id is past ASCII, which the line recogniser leaves to the generic path.)
    expect(checkColumn(db, 2)).toEqual({ filled: 10, chunks: 12 });
    sameItems(db, 2);

    // appendItems of frames the recogniser made, and of the same rows written before the column (null).
    const store = Store.open(db);
    const id = store.createRecording({ name: 'appended' });
    store.appendItems(id, LINES.map((raw, k) => frameFromText(k + 1, k, 'a2c', raw)));
    const appended = checkColumn(db, id);
    expect(appended.chunks).toBe(6);
    const old = store.createRecording({ name: 'old rows' });
    store.appendItems(old, LINES.map((raw, k) => frameFromText(k + 1, k, 'a2c', raw)));
    store.db.prepare(`UPDATE items SET chunk = NULL WHERE recording_id = ?`).run(old);
    store.close();
    expect(checkColumn(db, old).filled).toBe(0);
    sameItems(db, id);
    sameItems(db, old);
  });

  it('gives a chunk frame its text length and kind without reading its raw text, which is read from the store when read', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const f = join(t.dir, 'c.jsonl');
    writeFileSync(f, ['{"acpInspect":"recording","version":1}', ...LINES.map((raw, k) => JSON.stringify({ t: k, dir: 'a2c', raw }))].join('\n') + '\n');
    const db = join(t.dir, 'c.sqlite');
    const im = await cli(['import', f, '--db', db]);
    expect(im.code, im.stderr).toBe(0);
    const store = Store.open(db);
    const items = [...store.pagedItems(1, 0, Number.MAX_SAFE_INTEGER, 1000, { bytes: true })] as Frame[];
    // The rows are changed under the items: only what is read after this comes from the store.
    store.db.prepare(`UPDATE items SET raw = 'changed since' WHERE recording_id = 1 AND chunk IS NOT NULL`).run();
    const lazy = items.filter((it) => it.raw === 'changed since');
    // (Not the one whose session id is past ASCII: see above.)
    expect(lazy.map((it) => it.seq)).toEqual([1, 2, 3, 4, 5]);
    const fresh = [...store.pagedItems(1, 0, Number.MAX_SAFE_INTEGER, 1000, { bytes: true })] as Frame[];
    for (const [k, it] of fresh.slice(0, 5).entries()) {
      const want = JSON.parse(LINES[k]!) as ChunkJson;
      // Size, kind, session and the text's length: all from the columns.
      expect(it.size).toBe(Buffer.byteLength(LINES[k]!));
      expect((it.json as ChunkJson).params.update.sessionUpdate).toBe(want.params.update.sessionUpdate);
      expect(it.sessionId).toBe('sess-1');
      expect(lazyTextBytes((it.json as ChunkJson).params.update.content)).toBe(utf8Length(want.params.update.content.text));
    }
    store.close();
  });

  it('reads a database still at schema 6 (read-only: not upgraded) as before', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const db = join(t.dir, 'six.sqlite');
    const d = new Database(db);
    for (let i = 0; i < 6; i++) d.exec(MIGRATIONS[i]!);
    d.pragma('user_version = 6');
    d.prepare(`INSERT INTO recordings (id, name, started_at, status) VALUES (1, 'six', '2026-01-01T00:00:00Z', 'imported')`).run();
    const ins = d.prepare(`INSERT INTO items (recording_id, seq, t, dir, kind, method, session_id, size, raw) VALUES (1, ?, ?, 'a2c', 'notification', 'session/update', 'sess-1', ?, ?)`);
    LINES.slice(0, 4).forEach((raw, k) => ins.run(k + 1, k, Buffer.byteLength(raw), raw));
    d.close();
    const store = Store.open(db, { readonly: true });
    expect(store.schemaVersion).toBe(6);
    const sized = [...store.pagedItems(1, 0, Number.MAX_SAFE_INTEGER, 1000, { bytes: true })];
    expect(JSON.stringify(sized)).toBe(JSON.stringify([...store.pagedItems(1)]));
    expect(sized).toHaveLength(4);
    store.close();
  });
});
