/**
 * `check ID` over two threads reads the stored rows' raw text as its bytes (ROW_COLUMNS_RAW_BYTES)
 * and hands them to the worker as they are: what the worker unpacks must be the rows read as strings,
 * for every text SQLite may hold (ASCII, multi-byte, a lone surrogate as better-sqlite3 stores it,
 * bytes that are not UTF-8, empty), on a real SQLite file.
 */
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { ROW_COLUMNS, ROW_COLUMNS_RAW_BYTES, packRows, unpackRows } from '../../src/check-run/batch.js';
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
      const texts = ['{"plain":"ascii"}', '{"t":"café ✓ — 日本語 🚀"}', 'a lone \ud800 surrogate é', 'a lone low \udc00', '', 'x'.repeat(5000) + 'é'];
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
        const out: unknown[] = [];
        unpackRows(packRows(rows).batch, (r) => out.push(r));
        return out;
      };
      const want = unpack(strings);
      expect(want).toHaveLength(seq);
      expect(unpack(bytes)).toEqual(want);
      // And the texts are what SQLite gave as strings.
      expect((want as { raw: string }[]).map((r) => r.raw)).toEqual(strings.map((r) => r[10]));
    } finally {
      db.close();
    }
  });
});
