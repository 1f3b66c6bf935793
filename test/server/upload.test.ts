/**
 * POST /api/import through the real HTTP server: the upload goes to a file beside the database as it
 * arrives (never held whole), then in as `acp-inspect import FILE` takes a file; past the size limit
 * it is refused with 413 and one line, whether the size was declared or only counted as it came; a bad
 * upload is refused naming the upload (not the temporary file); no temporary file is left behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { ROOT, tempDir } from '../helpers.js';

const LIMIT = 64 * 1024;
const t = tempDir('acp-upload-');
let srv: RunningServer;
const transcript = readFileSync(join(ROOT, 'recordings', 'golden', 'cancel-and-turns.jsonl'));

beforeAll(async () => {
  srv = await startServer({ dbPath: join(t.dir, 'db.sqlite'), port: 0, maxUploadBytes: LIMIT });
});
afterAll(async () => {
  await srv.close();
  t.cleanup();
});

const post = (body: BodyInit, init: RequestInit = {}) =>
  fetch(`http://127.0.0.1:${srv.port}/api/import?name=up`, { method: 'POST', body, headers: { Authorization: `Bearer ${srv.token}` }, ...init });

/** A body sent in pieces with no declared length (chunked), `bytes` long. */
function chunked(bytes: number): ReadableStream<Uint8Array> {
  let sent = 0;
  const piece = Buffer.from(transcript.toString().split('\n')[1]!.repeat(8) + '\n');
  return new ReadableStream({
    pull(c) {
      if (sent >= bytes) return c.close();
      c.enqueue(piece);
      sent += piece.length;
    },
  });
}

const get = async <T>(path: string): Promise<T> => (await fetch(`http://127.0.0.1:${srv.port}${path}`, { headers: { Authorization: `Bearer ${srv.token}` } })).json() as Promise<T>;
const leftovers = () => readdirSync(t.dir).filter((f) => !/^db\.sqlite(-wal|-shm)?$/.test(f));

describe('POST /api/import', () => {
  it('imports an upload with its findings, leaving no file behind', async () => {
    const r = await post(transcript);
    expect(r.status).toBe(201);
    const { id, items } = (await r.json()) as { id: number; items: number };
    expect(items).toBe(transcript.toString().split('\n').filter((l) => l.trim() && !l.startsWith('{"acpInspect"')).length);
    expect((await get<{ name: string }>(`/api/recordings/${id}`)).name).toBe('up');
    const expected = JSON.parse(readFileSync(join(ROOT, 'recordings', 'golden', 'cancel-and-turns.expected.json'), 'utf8')) as { seq: number; rule: string }[];
    const found = await get<{ seq: number; rule: string }[]>(`/api/recordings/${id}/findings`);
    expect(found.map((f) => `${f.seq} ${f.rule}`)).toEqual(expected.map((f) => `${f.seq} ${f.rule}`));
    expect(leftovers()).toEqual([]);
  });

  it('refuses an upload over the limit with 413 and one line, declared or counted as it comes', async () => {
    const declared = await post(Buffer.alloc(LIMIT + 1, 'x'));
    expect(declared.status).toBe(413);
    const counted = await post(chunked(4 * LIMIT), { duplex: 'half' } as RequestInit);
    expect(counted.status).toBe(413);
    for (const r of [declared, counted]) {
      const { error } = (await r.json()) as { error: string };
      expect(error).toBe(`upload too large (limit ${LIMIT} bytes); import it with \`acp-inspect import FILE\``);
    }
    expect(leftovers()).toEqual([]);
  });

  it('refuses a bad upload naming the upload and its line, not the file it was kept in', async () => {
    const r = await post(Buffer.concat([transcript, Buffer.from('{"t":1,"dir":5}\n')]));
    expect(r.status).toBe(400);
    const { error } = (await r.json()) as { error: string };
    expect(error).toMatch(/^the upload: line \d+: "dir" must be/);
    expect(error).not.toMatch(/acp-inspect-upload|\.tmp/);
    expect(leftovers()).toEqual([]);
  });
});
