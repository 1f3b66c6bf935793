/**
 * The notes API and the fixture download on a real `acp-inspect serve` (the binary, a real port, a
 * real SQLite file): create, list, update, delete; the live stream's notes event for changes made
 * through the API and by another process (the CLI); the fixture of a turn as a download; errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { parseTranscript } from '../../src/transcript/format.js';
import { BIN, ROOT, cli, tempDir } from '../helpers.js';

const t = tempDir('acp-notes-api-');
const db = join(t.dir, 'r.sqlite');
let server: ChildProcess;
let base: URL;
let token = '';
let id = '';

beforeAll(async () => {
  id = (await cli(['import', join(ROOT, 'recordings', 'real', 'claude-code-acp-tools.jsonl'), '--db', db])).stdout.toString().trim();
  server = spawn(process.execPath, [BIN, 'serve', '--db', db, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    server.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
  });
  base = new URL(url);
  token = base.searchParams.get('token')!;
});
afterAll(async () => {
  if (server?.exitCode === null) await new Promise((r) => { server.once('exit', r); server.kill('SIGTERM'); });
  t.cleanup();
});

const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(new URL(path, base), {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, json: json as any, text, headers: res.headers };
};

/** Reads the live stream of a recording until `pred` holds for an event (or gives up). */
async function liveEvents(pred: (ev: any) => boolean, during: () => Promise<unknown>): Promise<any> {
  const ctl = new AbortController();
  const res = await fetch(new URL(`/api/events?recording=${id}`, base), { headers: { authorization: `Bearer ${token}` }, signal: ctl.signal });
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = '';
  let started = false;
  const deadline = Date.now() + 10_000;
  try {
    while (Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('');
        if (!data) continue;
        const ev = JSON.parse(data);
        if (ev.type === 'hello' && !started) {
          started = true;
          await during();
        } else if (pred(ev)) return ev;
      }
    }
    throw new Error('no such live event');
  } finally {
    ctl.abort();
  }
}

describe('the notes API', () => {
  it('creates, lists, updates and deletes notes; export carries them', async () => {
    expect((await api('GET', `/api/recordings/${id}/notes`)).json).toEqual([]);
    const a = await api('POST', `/api/recordings/${id}/notes`, { seq: 8, text: 'slow read' });
    expect(a.status).toBe(201);
    expect(a.json).toMatchObject({ recordingId: Number(id), seq: 8, text: 'slow read', updatedAt: null });
    const mark = await api('POST', `/api/recordings/${id}/notes`, { seq: 3 });
    expect(mark.json).toMatchObject({ seq: 3, text: '' });
    expect((await api('GET', `/api/recordings/${id}/notes`)).json.map((n: any) => [n.seq, n.text])).toEqual([[3, ''], [8, 'slow read']]);

    const up = await api('PATCH', `/api/recordings/${id}/notes/${a.json.id}`, { text: 'slow read: 2 s' });
    expect(up.status).toBe(200);
    expect(up.json.text).toBe('slow read: 2 s');
    expect(up.json.updatedAt).toMatch(/^\d{4}-/);
    expect((await api('PUT', `/api/recordings/${id}/notes/${mark.json.id}`, { text: 'look here' })).json.text).toBe('look here');

    const exported = await api('GET', `/api/recordings/${id}/export`);
    expect(parseTranscript(exported.text).notes?.map((n) => [n.seq, n.text])).toEqual([[3, 'look here'], [8, 'slow read: 2 s']]);

    expect((await api('DELETE', `/api/recordings/${id}/notes/${mark.json.id}`)).json).toEqual({ deleted: mark.json.id });
    expect((await api('GET', `/api/recordings/${id}/notes`)).json.map((n: any) => n.id)).toEqual([a.json.id]);
  });

  it('answers bad requests with a status and a message naming the fix', async () => {
    const cases: [string, string, unknown, number, RegExp][] = [
      ['POST', `/api/recordings/${id}/notes`, { seq: 9999, text: 'x' }, 400, /has no item #9999; its items are #1 to #\d+/],
      ['POST', `/api/recordings/${id}/notes`, { text: 'x' }, 400, /"seq" must be the whole number/],
      ['POST', `/api/recordings/${id}/notes`, { seq: 2, text: 7 }, 400, /"text" must be a string/],
      ['POST', `/api/recordings/${id}/notes`, 'not json', 400, /must be a JSON object/],
      ['POST', `/api/recordings/${id}/notes`, { seq: 2, text: 'x'.repeat(100_001) }, 400, /at most 100000 characters/],
      ['POST', '/api/recordings/999/notes', { seq: 1, text: 'x' }, 404, /no recording with id 999/],
      ['PATCH', `/api/recordings/${id}/notes/4242`, { text: 'x' }, 404, /has no note 4242/],
      ['PATCH', `/api/recordings/${id}/notes/1`, {}, 400, /send \{"text"/],
      ['DELETE', `/api/recordings/${id}/notes/4242`, undefined, 404, /has no note 4242/],
      ['DELETE', `/api/recordings/${id}/notes/abc`, undefined, 404, /no note with id abc/],
    ];
    for (const [method, path, body, status, want] of cases) {
      const r = await api(method, path, body);
      expect(r.status, `${method} ${path}`).toBe(status);
      expect(r.json.error, `${method} ${path}`).toMatch(want);
    }
    // Without the token nothing is written.
    const anon = await fetch(new URL(`/api/recordings/${id}/notes`, base), { method: 'POST', body: '{"seq":1,"text":"x"}' });
    expect(anon.status).toBe(401);
  });

  it('tells open pages when notes change, through the API or from another process', async () => {
    const viaApi = await liveEvents((ev) => ev.type === 'notes', () => api('POST', `/api/recordings/${id}/notes`, { seq: 12, text: 'from the UI' }));
    expect(viaApi.recordingId).toBe(Number(id));
    expect(viaApi.notes.map((n: any) => n.text)).toContain('from the UI');
    const viaCli = await liveEvents((ev) => ev.type === 'notes' && ev.notes.some((n: any) => n.text === 'from the CLI'),
      () => cli(['note', id, '13', 'from the CLI', '--db', db]));
    expect(viaCli.notes.length).toBeGreaterThanOrEqual(3);
  });
});

describe('the fixture download', () => {
  it('returns a turn as a .jsonl attachment that parses, with its notes', async () => {
    const r = await api('GET', `/api/recordings/${id}/fixture?turn=9`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-disposition')).toBe(`attachment; filename="acp-recording-${id}-turn-7.jsonl"`);
    expect(r.headers.get('content-type')).toContain('application/x-ndjson');
    const rec = parseTranscript(r.text);
    expect(rec.header.slice).toMatchObject({ turn: 7 });
    expect(rec.items.length).toBeGreaterThan(10);
    expect(rec.notes?.map((n) => n.text)).toEqual(expect.arrayContaining(['slow read: 2 s', 'from the UI']));
    expect(r.text).toContain('<redacted>'); // the terminal env, as export redacts it
    expect((await api('GET', `/api/recordings/${id}/fixture?turn=9&redact=0`)).status).toBe(200);
    const range = await api('GET', `/api/recordings/${id}/fixture?seq=2-5`);
    expect(range.headers.get('content-disposition')).toContain(`acp-recording-${id}-seq-2-5.jsonl`);
  });

  it('says what is wrong with a bad slice', async () => {
    for (const [q, want] of [
      ['', /ask for \?turn=SEQ .* or \?seq=A-B/],
      ['?turn=2', /item #2 is not part of a prompt turn; its turns start at #7/],
      ['?turn=x', /turn must be the # number/],
      ['?seq=9-1', /ends before it starts/],
      ['?turn=7&seq=1-2', /one of them/],
    ] as const) {
      const r = await api('GET', `/api/recordings/${id}/fixture${q}`);
      expect(r.status, q).toBe(400);
      expect(r.json.error, q).toMatch(want);
    }
    expect((await api('GET', '/api/recordings/999/fixture?turn=7')).status).toBe(404);
  });
});
