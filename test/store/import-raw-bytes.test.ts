/**
 * `acp-inspect import` binds a text chunk frame read from non-ASCII bytes as those UTF-8 bytes (its
 * line's escapes undone), not as the string made of them: the rows it stores must be byte for byte
 * the rows of the string path (the same transcript read into items and stored by Store.importRecording,
 * whose strings better-sqlite3 encodes), for every kind of text the bench floods with and for the
 * texts where bytes and string part ways (lone surrogates, bytes that are not UTF-8).
 */
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, tempDir } from '../helpers.js';
import { writeFloodTranscript } from '../../bench/big-recording.js';
import { TEXT_KINDS } from '../../bench/frames.js';
import { readTranscriptFile } from '../../src/source.js';
import { readTranscriptItems } from '../../src/transcript/read-file.js';
import { Store } from '../../src/store/store.js';

const t = tempDir('acp-import-bytes-');
afterAll(() => t.cleanup());

const HEADER = '{"acpInspect":"recording","version":1,"name":"bytes"}\n';
const head = (kind = 'agent_message_chunk') => `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"${kind}","content":{"type":"text","text":"`;
const TAIL = '"}}}}';
/** A transcript line of the frame whose text body (as the frame writes it) is `body`. */
const chunkLine = (seq: number, body: string, kind?: string) => JSON.stringify({ t: seq / 10, dir: 'a2c', raw: head(kind) + body + TAIL });

/** Every stored column of every item, the raw text as its bytes (hex) and its type. */
function rows(db: string): unknown[] {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare(`SELECT seq, t, dir, kind, method, rpc_id, reply_to, latency, session_id, size, hex(raw) AS raw, typeof(raw) AS type,
      raw_bytes, parse_error, truncated FROM items ORDER BY recording_id, seq`).all();
  } finally {
    d.close();
  }
}

/** Imports `file` with the binary, and stores the same items in-process through the string path; both tables' rows. */
async function importBothWays(file: string, name: string): Promise<{ bytes: unknown[]; strings: unknown[] }> {
  const db = join(t.dir, `${name}.db`);
  const r = await cli(['import', '--db', db, file]);
  expect(r.code, r.stderr).toBe(0);
  const ref = join(t.dir, `${name}-ref.db`);
  const store = Store.open(ref);
  try {
    store.importRecording(readTranscriptFile(file));
  } finally {
    store.close();
  }
  return { bytes: rows(db), strings: rows(ref) };
}

/** How many items of `file` the reader hands on with their raw text as bytes. */
function asBytes(file: string): number {
  const last: { chunk: number; raw?: Buffer | null } = { chunk: -1, raw: null };
  let n = 0;
  for (const _ of readTranscriptItems(file, undefined, last)) if (last.raw) n++;
  return n;
}

describe('import of non-ASCII text binds its bytes', () => {
  for (const kind of TEXT_KINDS) {
    it(`stores the rows the string path stores, byte for byte: ${kind} text`, async () => {
      const file = join(t.dir, `${kind}.jsonl`);
      writeFloodTranscript(file, 3000, { size: 700, perTurn: 1000, text: kind });
      const { bytes, strings } = await importBothWays(file, kind);
      expect(bytes).toHaveLength(strings.length);
      expect(bytes).toEqual(strings);
      // The bytes path is the one taken wherever the text is not ASCII (escapes-only text is ASCII).
      expect(asBytes(file) > 2900).toBe(kind === 'multibyte' || kind === 'mixed');
    });
  }

  it('stores the same rows for lone surrogates, bytes that are not UTF-8 and every escape', async () => {
    const lines: (string | Buffer)[] = [HEADER];
    let seq = 0;
    const add = (body: string, kind?: string) => lines.push(chunkLine(++seq, body, kind) + '\n');
    add('plain é ✓ — 日本 🚀');
    add('frame-level lone surrogate é \\ud800 and \\udc00 and a pair \\ud83d\\ude00');
    add('a real lone surrogate é \ud800 in the raw text');
    add('a lone low é \udc00 then text');
    add('a high then a letter é \ud800A');
    add('line-level controls é \n\t\r\b\f and / and \u0001 and \u0000');
    add('a bare quote é " in the frame');
    add('escaped backslash é \\\\ and \\" quote', 'agent_thought_chunk');
    add('user text é \\n\\t', 'user_message_chunk');
    add('');
    // A surrogate pair written as escapes in the line itself (JSON.stringify writes the character).
    lines.push(chunkLine(++seq, 'line-level pair 😀 é').replace('😀', '\\ud83d\\ude00') + '\n');
    lines.push(chunkLine(++seq, 'escaped é at line level').replace('é', '\\u00e9') + '\n');
    // Bytes that are not UTF-8 in the text: a stray 0xff, a surrogate encoded as three bytes, a cut sequence.
    const bad = (bytes: number[]) => {
      const [a, b] = chunkLine(++seq, 'bad é X here').split('X');
      lines.push(Buffer.concat([Buffer.from(a!), Buffer.from(bytes), Buffer.from(b! + '\n')]));
    };
    bad([0xff]);
    bad([0xed, 0xa0, 0x80]);
    bad([0xe2, 0x9c]);
    const file = join(t.dir, 'edges.jsonl');
    writeFileSync(file, Buffer.concat(lines.map((l) => (typeof l === 'string' ? Buffer.from(l) : l))));
    const { bytes, strings } = await importBothWays(file, 'edges');
    expect(bytes).toHaveLength(seq);
    expect(bytes).toEqual(strings);
    // Some went as bytes (so the comparison covers that path), not all (lone surrogates and bad bytes went as strings).
    const n = asBytes(file);
    expect(n).toBeGreaterThan(5);
    expect(n).toBeLessThan(seq);
  });
});
