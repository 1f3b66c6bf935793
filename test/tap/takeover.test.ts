/**
 * Indexers that take over a capture log someone else began: what they store is what one indexer
 * going through the log in one go stores. An indexer killed halfway is resumed from its saved state,
 * its checker too (a response whose request came before the takeover, updates for a session opened
 * before it); one killed as it marks the log indexed leaves the end-of-recording findings to the
 * next, which stores them once; and a recording deleted while an indexer works on it stops that
 * indexer, which neither makes it again nor leaves its log. Real binaries, real pipes, real SQLite.
 */
import { copyFileSync, cpSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { BIN, asker, lockDb, makeTmp, run, start, until, writeChunksAgent, rpc } from '../reliability/helpers.js';

const tmp = makeTmp();
afterAll(() => tmp.cleanup());
const node = process.execPath;
const env = { ACP_INSPECT_NO_DETACHED_INDEXER: '1' };

/** Chunks in the flood: 40 MiB, several of the indexer's saved states. */
const CHUNKS = 40_000;

/**
 * An ACP agent: answers initialize, and session/new with a session "s1" (and a field the schema does
 * not know: a finding made only at the end of the recording); a prompt gets CHUNKS 1 KiB message
 * chunks for s1, then its answer.
 */
const agent = writeChunksAgent(tmp.dir, 'chunks', CHUNKS, 'notInTheSchema: true');

/**
 * A recording left unindexed in `db` after the flood: its tap killed (`kill`: an opener marks it
 * interrupted) or exited with its agent before its recorder caught up (`exit`: handed on). The
 * prompt is longer than --max-frame-bytes: stored cut, while the checker saw it whole.
 */
async function orphan(db: string, how: 'kill' | 'exit'): Promise<void> {
  // The default exit wait, not the test suite's longer one: the tap exits before it has indexed the flood.
  const r = start(['--db', db, '--max-frame-bytes', '4096', '--', node, agent], { env: { ...env, ACP_INSPECT_FINISH_WAIT_MS: undefined }, readStdout: false });
  const ask = asker(r);
  await ask(1, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
  await ask(2, 'session/new', { cwd: '/', mcpServers: [] });
  const prompt = () => ask(3, 'session/prompt', { sessionId: 's1', prompt: [{ type: 'text', text: 'x'.repeat(8000) }] });
  if (how === 'exit') {
    // As an editor ends a session: stdin closed as soon as the answer is in.
    await prompt();
    r.child.stdin!.end();
    expect((await r.done).code).toBe(0);
  } else {
    // The tap's own recorder indexes none of the prompt and what follows: another process holds the
    // database's write lock until the tap is killed.
    await until('the recording', () => { try { return recording(db).capture !== null; } catch { return false; } });
    const lock = lockDb(db);
    await lock.locked;
    await prompt();
    r.child.kill('SIGKILL');
    await r.done;
    await lock.release();
  }
  expect((await run(['list', '--db', db], { env })).code).toBe(0);
  expect(recording(db).capture).not.toBeNull();
}

/** A copy of a database and its capture logs, to index another way. */
function copyDb(from: string, to: string): void {
  for (const x of ['', '-wal']) if (existsSync(from + x)) copyFileSync(from + x, to + x);
  cpSync(`${from}-captures`, `${to}-captures`, { recursive: true });
}

function query<T>(db: string, sql: string): T {
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return d.prepare(sql).get() as T;
  } finally {
    d.close();
  }
}

function recording(db: string): { capture: string | null; indexed: number | null; items: number; status: string; answered: number } {
  return query(db, `SELECT capture, capture_indexed AS indexed, item_count AS items, status,
    (SELECT count(*) FROM items WHERE kind = 'result' AND rpc_id = '3') AS answered FROM recordings ORDER BY id DESC LIMIT 1`);
}

/** Everything the indexers stored that a takeover could get wrong: the findings, the items and the counters. */
function stored(db: string): { findings: unknown[]; items: unknown } {
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return {
      findings: d.prepare(`SELECT seq, severity, rule, message FROM findings ORDER BY seq, rule, message`).all(),
      items: d.prepare(`SELECT count(*) AS n, count(DISTINCT seq) AS seqs, max(seq) AS last, sum(length(raw)) AS bytes,
        (SELECT item_count || ' ' || error_count || ' ' || warning_count || ' ' || info_count || ' ' || status FROM recordings) AS counted FROM items`).get(),
    };
  } finally {
    d.close();
  }
}

/** Starts `acp-inspect index` on `db`, killed once `when` holds of the recording. */
const checkJson = async (db: string) => {
  const r = await run(['check', '1', '--json', '--db', db], { env });
  expect(r.code, r.stderr).not.toBe(2);
  return r.stdout.toString();
};

describe.concurrent('an indexer taking over a capture log', () => {
  const made = (async () => {
    const db = join(tmp.dir, 'orphan.db');
    await orphan(db, 'kill');
    // Indexed in one go: what every other way must store.
    const ref = join(tmp.dir, 'ref.db');
    copyDb(db, ref);
    const r = await run(['index', '--db', ref], { env });
    expect(r.code, r.stderr).toBe(0);
    return { db, ref };
  })();

  it('killed halfway and resumed, stores the findings of one indexer that went through in one go', async () => {
    const { db: orig, ref } = await made;
    const want = stored(ref);
    // What makes this a test of the checker's state: the prompt's answer, the session's updates.
    expect(want.findings).toContainEqual(expect.objectContaining({ rule: 'unknown-field' }));
    expect(want.findings.filter((f) => (f as { severity: string }).severity === 'error')).toEqual([]);
    const db = join(tmp.dir, 'halt.db');
    copyDb(orig, db);
    // Killed once it saved its state somewhere in the flood (the first, 8 MiB in): before the prompt's
    // answer was stored. By the indexer itself: a test polling for it killed it too late 1 run in a few
    // under load, the indexer done with the 40 MiB by then.
    const killed = await run(['index', '--db', db], { env: { ...env, ACP_INSPECT_TEST_KILL_AFTER_STATE: '1' } });
    expect(killed.signal).toBe('SIGKILL');
    expect(recording(db).indexed).toBeGreaterThan(0);
    const halfway = recording(db);
    expect(halfway.capture).not.toBeNull();
    expect(halfway.answered).toBe(0);
    const again = await run(['index', '--db', db], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(recording(db).capture).toBeNull();
    expect(stored(db)).toEqual(want);
    expect(await checkJson(db)).toBe(await checkJson(ref));
  });

  it('on one thread, when the worker that makes the batches fails, stores what the two threads store', async () => {
    const { db: orig, ref } = await made;
    const db = join(tmp.dir, 'one-thread.db');
    copyDb(orig, db);
    const r = await run(['index', '--db', db], { env: { ...env, ACP_INSPECT_TEST_INDEX_WORKER_FAILS: '1' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.toString()).toBe('');
    expect(recording(db).capture).toBeNull();
    expect(stored(db)).toEqual(stored(ref));
    expect(await checkJson(db)).toBe(await checkJson(ref));
    // The rows themselves, byte for byte.
    const rows = (file: string) => {
      const d = new Database(file, { readonly: true, fileMustExist: true });
      try {
        return d.prepare(`SELECT seq, t, dir, kind, method, rpc_id, reply_to, latency, session_id, size, hex(raw), hex(raw_bytes), parse_error, truncated FROM items ORDER BY seq`).raw().all();
      } finally {
        d.close();
      }
    };
    expect(rows(db)).toEqual(rows(ref));
  });

  it('killed as it marks the log indexed, leaves the end-of-recording findings to the next, which stores them once', async () => {
    const { db: orig, ref } = await made;
    const db = join(tmp.dir, 'last.db');
    copyDb(orig, db);
    const killed = await run(['index', '--db', db], { env: { ...env, ACP_INSPECT_TEST_KILL_BEFORE_INDEXED: '1' } });
    expect(killed.signal).toBe('SIGKILL');
    expect(recording(db).capture).not.toBeNull();
    expect((await run(['index', '--db', db], { env })).code).toBe(0);
    expect(recording(db).capture).toBeNull();
    expect(stored(db)).toEqual(stored(ref));
  });

  it('a tap that hands its log on before its checker is loaded leaves the checking to the next indexer, which checks every item', async () => {
    // Everything at once and stdin closed: the prompt comes before the session it names exists (a
    // finding for it and for each of its updates), and the tap exits, handing the log on, about when
    // its checker would load.
    const db = join(tmp.dir, 'early.db');
    const r = start(['--db', db, '--', node, agent], { env: { ...env, ACP_INSPECT_FINISH_WAIT_MS: undefined }, readStdout: false, input: [
      rpc({ id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }) + '\n',
      rpc({ id: 2, method: 'session/new', params: { cwd: '/', mcpServers: [] } }) + '\n',
      rpc({ id: 3, method: 'session/prompt', params: { sessionId: 's1', prompt: [{ type: 'text', text: 'hi' }] } }) + '\n',
    ] });
    r.child.stdout!.resume();
    expect((await r.done).code).toBe(0);
    expect((await run(['index', '--db', db], { env })).code).toBe(0);
    const checked = (await checkJson(db)).trim().split('\n').map((l) => JSON.parse(l) as { seq: number; rule: string });
    expect(checked.length).toBeGreaterThan(CHUNKS);
    const got = query<{ n: number }>(db, `SELECT count(*) AS n FROM findings`).n;
    expect(got).toBe(checked.length);
  });

  it('deleting the recording while an indexer works on it stops the indexer quietly: nothing made again, no log left', async () => {
    // A tap that exited before its recording was all indexed: rm deletes it (its tap is gone) while
    // the indexer finishes it.
    const db = join(tmp.dir, 'rm.db');
    await orphan(db, 'exit');
    const total = CHUNKS + 6;
    const before = recording(db).items;
    // A pause after each batch keeps it under way while the test looks: without it, an indexer through
    // the 40 MiB in a few hundred ms could be done before a test slowed by a loaded machine deleted it.
    const ix = start(['index', '--db', db], { env: { ...env, ACP_INSPECT_TEST_BATCH_PAUSE_MS: '300' } });
    await until('the indexer under way', () => { try { return recording(db).items > before; } catch { return false; } }, 60_000, 5);
    expect(recording(db)).toMatchObject({ status: 'running', capture: expect.any(String) });
    expect(recording(db).items).toBeLessThan(total);
    const rm = await run(['rm', '1', '--db', db], { env });
    expect(rm.code, rm.stderr).toBe(0);
    const res = await ix.done;
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toBe('');
    const list = await run(['list', '--json', '--db', db], { env });
    expect(JSON.parse(list.stdout.toString())).toEqual([]);
    expect(query(db, `SELECT (SELECT count(*) FROM items) + (SELECT count(*) FROM findings) AS n`)).toEqual({ n: 0 });
    expect(readdirSync(`${db}-captures`)).toEqual([]);
  });
});
