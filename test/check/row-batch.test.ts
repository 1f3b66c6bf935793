/**
 * `check ID` over two threads reads the stored rows' raw text as its bytes (ROW_COLUMNS_RAW_BYTES)
 * and hands them to the worker as they are: what the worker unpacks must be the rows read as strings,
 * for every text SQLite may hold (ASCII, multi-byte, a lone surrogate as better-sqlite3 stores it,
 * bytes that are not UTF-8, empty), on a real SQLite file. Valid UTF-8 bytes stay bytes until read
 * (a text chunk frame's raw and text are decoded only if read: wire/lazy-chunk.ts); the items made of
 * them are the items of the rows read as strings.
 */
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { ROW_COLUMNS, ROW_COLUMNS_RAW_BYTES, packRows, unpackRows } from '../../src/check-run/batch.js';
import { rowToItem, type ItemRow } from '../../src/store/store.js';
import type { Frame } from '../../src/wire/frame.js';
import { decodeLatin1Utf8 } from '../../src/wire/line-splitter.js';
import { tempDir } from '../helpers.js';

const t = tempDir('acp-row-batch-');
afterAll(() => t.cleanup());

describe('stored rows to the checking worker', () => {
  it('unpacks rows read as bytes into the rows read as strings, whatever the text', () => {
    const db = new Database(join(t.dir, 'rows.db'));
    try {
      db.exec(`CREATE TABLE items (recording_id INTEGER, seq INTEGER, t REAL, dir TEXT, kind TEXT, method TEXT, rpc_id TEXT, reply_to INTEGER,
        latency REAL, session_id TEXT, size INTEGER, raw TEXT, raw_bytes BLOB, parse_error TEXT, truncated INTEGER)`);
      const ins = db.prepare(`INSERT INTO items VALUES (1, ?, ?, 'a2c', 'notification', 'session/update', NULL, NULL, NULL, 's', ?, ?, ?, NULL, NULL)`);
      const insBytes = db.prepare(`INSERT INTO items VALUES (1, ?, ?, 'a2c', 'invalid', NULL, NULL, NULL, NULL, NULL, ?, CAST(? AS TEXT), NULL, 'not JSON', NULL)`);
      const chunk = (text: string) => JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } });
      const texts = ['{"plain":"ascii"}', '{"t":"café ✓ — 日本語 🚀"}', 'a lone \ud800 surrogate é', 'a lone low \udc00', '', 'x'.repeat(5000) + 'é',
        chunk('ascii'), chunk('café ✓ — 日本語 🚀'), chunk('"naïve"\n\\ \ud83d\ude00 \ud800 \u0001'), chunk('tab\there "quoted" \\'),
        chunk('x').replace('"x"', '"\\u00e9\\u00E9 \\ud83d\\ude00 \\/ é"')];
      let seq = 0;
      for (const s of texts) ins.run(++seq, seq / 10, Buffer.byteLength(s), s, null);
      // Not UTF-8: a stray byte, a surrogate's three bytes, a cut sequence (stored as text, as the tap's packed rows may).
      for (const b of [[0x61, 0xff, 0x62], [0xed, 0xa0, 0x80], [0xe2, 0x9c]]) insBytes.run(++seq, seq / 10, b.length, Buffer.from(b));
      // A frame kept as bytes too travels whole.
      ins.run(++seq, seq / 10, 3, 'raw é', Buffer.from([1, 2, 3]));
      const read = (cols: string) => db.prepare(`SELECT ${cols} FROM items WHERE recording_id = 1 ORDER BY seq`).raw(true).all() as unknown[][];
      const strings = read(ROW_COLUMNS);
      const bytes = read(ROW_COLUMNS_RAW_BYTES);
      expect(bytes.some((r) => Buffer.isBuffer(r[10]))).toBe(true);
      const unpack = (rows: unknown[][]) => {
        const out: { row: { raw: string }; bytes: boolean }[] = [];
        unpackRows(packRows(rows).batch, (row: { raw: string }, bytes) => out.push({ row, bytes }));
        return out;
      };
      const want = unpack(strings);
      expect(want).toHaveLength(seq);
      expect(want.some((r) => r.bytes)).toBe(false);
      // The texts are what SQLite gave as strings.
      expect(want.map((r) => r.row.raw)).toEqual(strings.map((r) => r[10]));
      const got = unpack(bytes);
      expect(got.filter((r) => r.bytes).length).toBeGreaterThanOrEqual(5);
      // Rows whose raw stayed bytes are the same rows but for it; the items are the same.
      expect(got.map((r) => (r.bytes ? { ...r.row, raw: decodeLatin1Utf8(r.row.raw) } : r.row))).toEqual(want.map((r) => r.row));
      const item = (r: { row: { raw: string }; bytes: boolean }) => JSON.stringify(rowToItem(r.row as unknown as ItemRow, undefined, r.bytes ? decodeLatin1Utf8 : undefined));
      expect(got.map(item)).toEqual(want.map(item));
      expect(item(got[7]!)).toContain('日本語');
      // And a frame's JSON is what JSON.parse makes of its text (both ways of reading a chunk frame read its text only when asked).
      let chunks = 0;
      for (const r of got) {
        const it = rowToItem(r.row as unknown as ItemRow, undefined, r.bytes ? decodeLatin1Utf8 : undefined) as Frame;
        if (it.json === undefined) continue;
        expect(JSON.stringify(it.json)).toBe(JSON.stringify(JSON.parse(it.raw)));
        if (it.method === 'session/update') chunks++;
      }
      expect(chunks).toBe(7);
    } finally {
      db.close();
    }
  });
});
