import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { Store } from '../../src/store/store.js';
import { ITEM_COLUMNS, ITEM_RAW, RowPacker, itemColumns, keepArena, transferList, unpackRow, type PackedRows } from '../../src/store/item-rows.js';
import { parseTranscript } from '../../src/transcript/format.js';
import type { Item } from '../../src/wire/frame.js';
import { ROOT, seededRandom, tempDir } from '../helpers.js';

let cleanup = () => {};
afterEach(() => cleanup());

const RECORDINGS = ['golden', 'real'].flatMap((d) =>
  readdirSync(join(ROOT, 'recordings', d)).filter((f) => f.endsWith('.jsonl')).map((f) => join(ROOT, 'recordings', d, f)));

/** The items of every sample recording, and items of every odd shape a recorder makes. */
function allItems(): Item[] {
  const items: Item[] = [];
  for (const f of RECORDINGS) items.push(...parseTranscript(readFileSync(f, 'utf8')).items);
  let t = 0;
  const odd: Item[] = [
    { seq: 0, t, dir: 'a2c', raw: '{\ufffd}', rawBase64: Buffer.from([0x7b, 0xff, 0x7d]).toString('base64'), size: 3, kind: 'invalid', parseError: 'not JSON' },
    { seq: 0, t, dir: 'c2a', raw: '{"jsonrpc":"2.0","id":"é-1","method":"x/ü","params":{"t":"日本語 😀"}}', size: 80, kind: 'request', method: 'x/ü', id: 'é-1' },
    { seq: 0, t, dir: 'a2c', raw: '{"jsonrpc":"2.0","id":"é-1","result":{}}', size: 40, kind: 'result', id: 'é-1', replyTo: 2, latency: 0 },
    { seq: 0, t, dir: 'a2c', raw: '{"jsonrpc":"2.0","id":7,"re', size: 70_000_000, kind: 'invalid', truncated: true, parseError: 'cut' },
    { seq: 0, t, dir: 'stderr', raw: 'warn: ünïcode 😀 line' },
    { seq: 0, t, dir: 'stderr', raw: '' },
    { seq: 0, t, dir: 'event', type: 'gap', data: { stream: 'a2c', bytes: 12 } },
    { seq: 0, t, dir: 'event', type: 'exit', data: { code: null, signal: 'SIGTERM' } },
    { seq: 0, t, dir: 'a2c', raw: 'x'.repeat(3 * 1024 * 1024), size: 3 * 1024 * 1024, kind: 'invalid', parseError: 'big' },
  ] as Item[];
  items.push(...odd);
  return items.map((it, i) => ({ ...it, seq: i + 1, t: (t = Math.max(t, it.t) + 0.25) }));
}

describe('packed rows', () => {
  it('packs batch after batch into the arenas written batches hand back, not into new ones', () => {
    const spare: ArrayBuffer[] = [];
    const packer = new RowPacker(spare);
    const raw = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"${'x'.repeat(900)}"}}}}`;
    const arenas = new Set<ArrayBuffer>();
    const inFlight: PackedRows[] = [];
    let seq = 0;
    for (let b = 0; b < 40; b++) {
      for (let i = 0; i < 1000; i++) packer.add({ seq: ++seq, t: seq, dir: 'a2c', kind: 'notification', method: 'session/update', sessionId: 's', size: raw.length, raw } as Item);
      const p = packer.take()!;
      arenas.add(p.arena);
      inFlight.push(p);
      // The writer hands an arena back once its batch is written, two batches behind.
      if (inFlight.length > 2) keepArena(spare, inFlight.shift()!.arena);
    }
    // The first batch grows through small arenas; after it, the few handed back go round.
    expect(arenas.size).toBeLessThanOrEqual(6);
  });

  it('keeps the largest arenas handed back', () => {
    const spare: ArrayBuffer[] = [];
    for (const kib of [64, 128, 256, 512]) keepArena(spare, new ArrayBuffer(kib * 1024));
    keepArena(spare, new ArrayBuffer(32 * 1024));
    keepArena(spare, new ArrayBuffer(4096 * 1024));
    expect(spare.map((a) => a.byteLength / 1024).sort((a, b) => a - b)).toEqual([128, 256, 512, 4096]);
  });

  it('cross to another port with their buffers moved, and unpack to the columns itemColumns writes, for every item of every sample recording and every odd shape', () => {
    const items = allItems();
    const rand = seededRandom(7);
    const packer = new RowPacker();
    const { port1, port2 } = new MessageChannel();
    const want = new Array<unknown>(ITEM_COLUMNS);
    const got = new Array<unknown>(ITEM_COLUMNS);
    const bytes = (v: unknown) => (Buffer.isBuffer(v) ? [...v] : v);
    let at = 0;
    try {
      while (at < items.length) {
        const batch = items.slice(at, at + 1 + Math.floor(rand() * 700));
        for (const it of batch) packer.add(it);
        const sent = packer.take()!;
        port1.postMessage(sent, transferList(sent));
        expect(sent.arena.byteLength).toBe(0); // moved, not copied
        const p = receiveMessageOnPort(port2)!.message as PackedRows;
        expect(p.count).toBe(batch.length);
        expect(p.lastT).toBe(batch[batch.length - 1]!.t);
        expect(p.frames).toBe(batch.filter((it) => it.dir === 'c2a' || it.dir === 'a2c').length);
        const arena = Buffer.from(p.arena);
        batch.forEach((it, i) => {
          itemColumns(42, it, want, 0);
          unpackRow(p, arena, i, 42, got, 0);
          // The raw text comes as its UTF-8 bytes.
          want[ITEM_RAW] = Buffer.from(want[ITEM_RAW] as string);
          expect(got.map(bytes)).toEqual(want.map(bytes));
        });
        at += batch.length;
      }
    } finally {
      port1.close();
      port2.close();
    }
    expect(packer.take()).toBeNull();
  });

  it('store the same rows and counters through Store.insertPacked as through insertItems', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const items = allItems();
    const rows: unknown[][] = [];
    for (const how of ['items', 'packed'] as const) {
      const store = Store.open(join(t.dir, `${how}.db`));
      const id = store.createRecording({ name: how, startedAt: new Date(0).toISOString(), status: 'running', command: [], cwd: '/' });
      const packer = new RowPacker();
      store.db.transaction(() => {
        for (let i = 0; i < items.length; i += 333) {
          const batch = items.slice(i, i + 333);
          if (how === 'items') store.insertItems(id, batch);
          else {
            for (const it of batch) packer.add(it);
            store.insertPacked(id, packer.take()!);
          }
        }
      })();
      rows.push([
        store.db.prepare('SELECT seq, t, dir, kind, method, rpc_id, reply_to, latency, session_id, size, raw, raw_bytes, parse_error, truncated, typeof(raw) FROM items ORDER BY seq').raw().all(),
        store.db.prepare('SELECT item_count, frame_count, duration_ms FROM recordings').raw().all(),
      ]);
      store.close();
    }
    expect(rows[1]).toEqual(rows[0]);
    expect((rows[0]![1] as unknown[][])[0]![0]).toBe(items.length);
  });
});
