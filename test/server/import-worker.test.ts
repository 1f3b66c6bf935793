/**
 * POST /api/import through `acp-inspect serve` as users run it (the real binary): the import of an
 * upload (reading, checking and storing it: seconds for hundreds of MiB) runs beside the server's
 * thread, which answers other requests meanwhile. Order of events, not milliseconds: a request sent
 * once the upload is all spooled is answered before the import is.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, tempDir } from '../helpers.js';

const t = tempDir('acp-import-worker-');
afterAll(() => t.cleanup());

/** A transcript of `n` frames of about 400 bytes. */
function transcript(n: number): Buffer {
  const lines = ['{"acpInspect":"recording","version":1,"name":"big"}'];
  for (let i = 1; i <= n; i++) {
    const raw = JSON.stringify({ jsonrpc: '2.0', method: 'x/n', params: { i, pad: 'z'.repeat(320) } });
    lines.push(JSON.stringify({ t: i, dir: 'a2c', raw }));
  }
  return Buffer.from(lines.join('\n') + '\n');
}

describe('POST /api/import on the served UI', () => {
  it('answers other requests while an upload is imported', async () => {
    const db = join(t.dir, 'db.sqlite');
    const body = transcript(120_000); // about 50 MB
    const child = spawn(process.execPath, [BIN, 'serve', '--db', db, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      const url = await new Promise<string>((res, rej) => {
        let out = '';
        child.stdout!.on('data', (d: Buffer) => { out += d; if (out.includes('\n')) res(out.split('\n')[0]!); });
        child.once('exit', (code) => rej(new Error(`serve exited ${code}`)));
      });
      const token = new URL(url).searchParams.get('token')!;
      const headers = { Authorization: `Bearer ${token}` };
      const events: string[] = [];
      const imported = fetch(new URL('/api/import?name=big', url), { method: 'POST', body, headers }).then(async (r) => {
        events.push('import answered');
        return { status: r.status, json: (await r.json()) as { id: number; items: number } };
      });
      // Spooled whole: the upload's file beside the database has all its bytes; the import starts now.
      const spooled = () => readdirSync(t.dir).some((f) => !f.startsWith('db.sqlite') && statSync(join(t.dir, f)).size === body.length);
      while (!spooled() && events.length === 0) await new Promise((r) => setTimeout(r, 5));
      expect(events).toEqual([]);
      const list = await fetch(new URL('/api/recordings', url), { headers });
      expect(list.status).toBe(200);
      events.push('list answered');
      const done = await imported;
      expect(done.status).toBe(201);
      expect(done.json.items).toBe(120_000);
      expect(events).toEqual(['list answered', 'import answered']);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
