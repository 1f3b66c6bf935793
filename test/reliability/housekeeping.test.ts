/** prune, doctor, and owner-only permissions of the database and its folder. */
import { afterAll, describe, expect, it } from 'vitest';
import { chmodSync, closeSync, existsSync, openSync, statSync, writeSync, writeFileSync, mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { makeTmp, run, start, withStore, rpc } from './helpers.js';
import { selectPrune, parseAge } from '../../src/store/prune.js';
import type { RecordingSummary } from '../../src/store/store.js';

const tmp = makeTmp();
afterAll(() => tmp.cleanup());
const node = process.execPath;
const DAY = 86_400_000;

function transcript(name: string, startedAt: string): string {
  const p = join(tmp.dir, `${name}.jsonl`);
  writeFileSync(p, [
    JSON.stringify({ acpInspect: 'recording', version: 1, name, startedAt }),
    JSON.stringify({ t: 0, dir: 'c2a', raw: rpc({ id: 0, method: 'initialize', params: { protocolVersion: 1 } }) }),
  ].join('\n') + '\n');
  return p;
}

describe('prune', () => {
  it('parses ages and selects by age or count, never a running recording', () => {
    expect(parseAge('7d')).toBe(7 * DAY);
    expect(parseAge('90s')).toBe(90_000);
    expect(() => parseAge('7')).toThrow(/7d/);
    expect(() => parseAge('-1d')).toThrow();
    const now = Date.parse('2026-01-10T00:00:00Z');
    const rec = (id: number, daysAgo: number, status = 'complete') =>
      ({ id, startedAt: new Date(now - daysAgo * DAY).toISOString(), status }) as RecordingSummary;
    const recs = [rec(1, 30), rec(2, 8), rec(3, 1), rec(4, 40, 'running'), rec(5, 0)];
    expect(selectPrune(recs, { olderThanMs: 7 * DAY, now }).map((r) => r.id)).toEqual([2, 1]);
    expect(selectPrune(recs, { keep: 2, now }).map((r) => r.id)).toEqual([2, 1]);
    expect(selectPrune(recs, { keep: 3, olderThanMs: 2 * DAY, now }).map((r) => r.id)).toEqual([2, 1]);
    expect(selectPrune(recs, { keep: 0, now }).map((r) => r.id)).toEqual([5, 3, 2, 1]);
  });

  it('--dry-run deletes nothing; --older-than and --keep delete; a live recording survives --keep 0', async () => {
    const db = join(tmp.dir, 'prune.db');
    const now = Date.now();
    for (const [name, ago] of [['old', 30 * DAY], ['week', 8 * DAY], ['hour', 3_600_000], ['new', 0]] as const) {
      expect((await run(['import', transcript(name, new Date(now - ago).toISOString()), '--db', db])).code).toBe(0);
    }
    const names = () => withStore(db, (s) => s.listRecordings().map((r) => r.name));
    const dry = await run(['prune', '--older-than', '7d', '--dry-run', '--db', db]);
    expect(dry.code).toBe(0);
    expect(dry.stdout.toString()).toMatch(/would delete 2 recordings/);
    expect(names()).toEqual(['new', 'hour', 'week', 'old']);
    const aged = await run(['prune', '--older-than', '7d', '--db', db]);
    expect(aged.code).toBe(0);
    expect(names()).toEqual(['new', 'hour']);

    // A tap still recording is never pruned.
    const live = start(['--db', db, '--name', 'live', '--', node, '-e', 'process.stdin.pipe(process.stdout)']);
    live.child.stdin!.write(rpc({ id: 1, method: 'x' }) + '\n');
    await live.waitStdout((b) => b.length > 0);
    for (let i = 0; i < 200 && !names().includes('live'); i++) await new Promise((r) => setTimeout(r, 100)); // the row exists
    const all = await run(['prune', '--keep', '0', '--db', db]);
    expect(all.code).toBe(0);
    expect(names()).toEqual(['live']);
    // Nor removed by rm while its tap runs: one line, exit 2, the recording goes on.
    const rm = await run(['rm', 'latest', '--db', db]);
    expect(rm.code).toBe(2);
    expect(rm.stderr).toMatch(/^acp-inspect: recording \d+ is still being recorded/);
    live.child.stdin!.write(rpc({ id: 2, method: 'y' }) + '\n');
    await live.waitStdout((b) => b.includes('"y"'));
    live.child.stdin!.end();
    expect((await live.done).code).toBe(0);
    const rec = withStore(db, (s) => s.listRecordings()[0]!);
    expect(rec.status).toBe('complete');
    expect(rec.frames).toBe(4);
    expect(withStore(db, (s) => s.db.pragma('integrity_check', { simple: true }))).toBe('ok');
  });
});

describe('doctor', () => {
  it('reports a healthy database and exits 0', async () => {
    const db = join(tmp.dir, 'healthy.db');
    await run(['import', transcript('h', new Date().toISOString()), '--db', db]);
    const res = await run(['doctor', '--db', db]);
    expect(res.code, res.stdout.toString()).toBe(0);
    expect(res.stdout.toString()).toMatch(/integrity_check: ok/);
    expect(res.stdout.toString()).toMatch(/Node \d+/);
  });

  it('fails on a garbage file, a damaged page and loose permissions, saying what to fix', async () => {
    const garbage = join(tmp.dir, 'garbage.db');
    writeFileSync(garbage, randomBytes(16384), { mode: 0o600 });
    const g = await run(['doctor', '--db', garbage]);
    expect(g.code).toBe(1);
    expect(g.stdout.toString()).toMatch(/FAIL .*corrupt[\s\S]*fix: /);

    const damaged = join(tmp.dir, 'damaged.db');
    for (let i = 0; i < 5; i++) await run(['import', transcript(`d${i}`, new Date().toISOString()), '--db', damaged]);
    await run(['list', '--db', damaged]); // checkpoint happens on close
    const pageSize = withStore(damaged, (s) => s.db.pragma('page_size', { simple: true }) as number);
    const pages = statSync(damaged).size / pageSize;
    expect(pages).toBeGreaterThan(3);
    // Damage a page that holds rows (the items table's root), not one that may be an empty index.
    const root = withStore(damaged, (s) => (s.db.prepare(`SELECT rootpage FROM sqlite_master WHERE name = 'items'`).get() as { rootpage: number }).rootpage);
    const fd = openSync(damaged, 'r+');
    writeSync(fd, randomBytes(pageSize - 200), 0, pageSize - 200, pageSize * (root - 1) + 100);
    closeSync(fd);
    const d = await run(['doctor', '--db', damaged]);
    expect(d.code).toBe(1);
    expect(d.stdout.toString()).toMatch(/FAIL /);

    const loose = join(tmp.dir, 'loose.db');
    await run(['import', transcript('l', new Date().toISOString()), '--db', loose]);
    chmodSync(loose, 0o644);
    const l = await run(['doctor', '--db', loose]);
    expect(l.code).toBe(1);
    expect(l.stdout.toString()).toMatch(/FAIL .*open to others[\s\S]*fix: chmod 600/);
  });

  it('says the default database does not exist yet without failing', async () => {
    const res = await run(['doctor'], { env: { XDG_DATA_HOME: join(tmp.dir, 'fresh-xdg') } });
    expect(res.code).toBe(0);
    expect(res.stdout.toString()).toMatch(/fresh-xdg.*acp-inspect.*recordings\.sqlite/);
  });
});

describe('permissions', () => {
  it('the tap creates the default database folder 0700 and the file 0600', async () => {
    const xdg = join(tmp.dir, 'xdg');
    mkdirSync(xdg);
    const res = await run(['--', node, '-e', 'process.stdin.pipe(process.stdout)'], { input: rpc({ id: 1, method: 'x' }) + '\n', env: { XDG_DATA_HOME: xdg } });
    expect(res.code).toBe(0);
    const folder = join(xdg, 'acp-inspect');
    const file = join(folder, 'recordings.sqlite');
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    for (const side of ['-wal', '-shm']) {
      if (existsSync(file + side)) expect(statSync(file + side).mode & 0o077).toBe(0);
    }
  });

  it('import into a new --db path creates its folders owner-only too', async () => {
    const db = join(tmp.dir, 'nested', 'deeper', 'r.db');
    expect((await run(['import', transcript('p', new Date().toISOString()), '--db', db])).code).toBe(0);
    expect(statSync(join(tmp.dir, 'nested', 'deeper')).mode & 0o777).toBe(0o700);
    expect(statSync(db).mode & 0o777).toBe(0o600);
  });
});
