/**
 * A live tap whose recorder finds a flood's backlog hands it to a second thread (the recorder's
 * helper: the making on a worker, the writing on the recorder's thread) and takes it back once it
 * caught up: what it stores is what one indexer going through the same capture log in one go stores,
 * the checker's findings across the hand-over too. A tap that exits while its helper works hands the
 * log on, and the next indexer finishes it the same. Real binaries, real pipes, real SQLite.
 */
import { closeSync, copyFileSync, mkdirSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { AGENT_STDIO, asker, lockDb, makeTmp, run, start, until, writeAgent } from '../reliability/helpers.js';

const tmp = makeTmp();
afterAll(() => tmp.cleanup());
const node = process.execPath;
const env = { ACP_INSPECT_NO_DETACHED_INDEXER: '1', ACP_INSPECT_DEBUG: '1' };

/** 150 MiB of chunks: a backlog the recorder starts its helper for, and hands most of. */
const CHUNKS = 150_000;

/**
 * An ACP agent: session/new answers "s1" with a field the schema does not know (a finding at the end
 * of the recording); a prompt gets CHUNKS 1 KiB message chunks, every 9,973rd for a session that does
 * not exist (a finding each, all through the flood), then its answer (which the checker pairs with a
 * request made long before).
 */
const agent = writeAgent(tmp.dir, 'helped', `${AGENT_STDIO}
const line = (o) => JSON.stringify({ jsonrpc: '2.0', ...o }) + '\\n';
onMessages((m) => {
  if (m.method === 'initialize') out(line({ id: m.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } }));
  else if (m.method === 'session/new') out(line({ id: m.id, result: { sessionId: 's1', notInTheSchema: true } }));
  else if (m.method === 'session/prompt') {
    let s = '';
    for (let i = 0; i < ${CHUNKS}; i++) {
      const text = String(i).padEnd(940, '.');
      s += line({ method: 'session/update', params: { sessionId: i % 9973 === 5000 ? 'nope' : 's1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } });
      if (s.length > 1 << 20) { out(s); s = ''; }
    }
    out(s);
    out(line({ id: m.id, result: { stopReason: 'end_turn' } }));
  }
});
`);

/** A count from the database, read-only; 0 while it cannot be read (not made yet). */
function count(db: string, sql: string): number {
  try {
    const d = new Database(db, { readonly: true, fileMustExist: true });
    try {
      return (d.prepare(sql).get() as { n: number }).n;
    } finally {
      d.close();
    }
  } catch {
    return 0;
  }
}

const answered = (db: string) => count(db, `SELECT count(*) AS n FROM items WHERE kind = 'result' AND rpc_id = '3'`);

/** Everything an indexer could get wrong: the findings, the rows byte for byte, the counters. */
function stored(db: string): { findings: unknown[]; rows: unknown[]; counted: unknown } {
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return {
      findings: d.prepare(`SELECT seq, severity, rule, message FROM findings ORDER BY seq, rule, message`).all(),
      rows: d.prepare(`SELECT seq, t, dir, kind, method, rpc_id, reply_to, latency, session_id, size, hex(raw), parse_error, truncated FROM items ORDER BY seq`).raw().all(),
      counted: d.prepare(`SELECT item_count, frame_count, error_count, warning_count, info_count, status, capture FROM recordings`).get(),
    };
  } finally {
    d.close();
  }
}

/** The tap's capture log (renamed `.capture.done` once it was all indexed, or still `.capture`). */
function captureLog(db: string): string {
  const dir = `${db}-captures`;
  const [log] = readdirSync(dir).filter((f) => f.includes('.capture'));
  return join(dir, log!);
}

/**
 * The same capture log indexed in one go, by `acp-inspect index` into a database of its own. The
 * tap's indexer gave back the blocks of what it indexed (read as zeros now: see log-freer.ts), so
 * the log's start is taken from `early`, a copy made before anything was indexed; what came later
 * is the log's as it is now.
 */
async function reference(db: string, name: string, early: string): Promise<string> {
  const ref = join(tmp.dir, `${name}-ref.db`);
  const log = captureLog(db);
  mkdirSync(`${ref}-captures`);
  const whole = join(`${ref}-captures`, log.split('/').pop()!.replace(/\.done$/, ''));
  copyFileSync(log, whole);
  const fd = openSync(whole, 'r+');
  try {
    const head = readFileSync(early);
    for (let done = 0; done < head.length;) done += writeSync(fd, head, done, head.length - done, done);
  } finally {
    closeSync(fd);
  }
  const r = await run(['index', '--db', ref], { env });
  expect(r.code, r.stderr).toBe(0);
  return ref;
}

/**
 * A tap with `agent`, the session opened and the prompt's flood forwarded to the client, all of it
 * waiting to be indexed. Whether a recorder falls 64 MiB behind a flood on its own depends on the
 * machine (on a loaded one, no helper started in two soak runs): another process
 * holds the database's write lock while the flood goes through, so the whole flood is the backlog
 * the recorder finds once the lock is let go.
 */
async function flood(db: string, more: NodeJS.ProcessEnv = {}) {
  const r = start(['--db', db, '--', node, agent], { env: { ...env, ...more }, readStdout: false });
  const ask = asker(r);
  await ask(1, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
  await ask(2, 'session/new', { cwd: '/', mcpServers: [] });
  await until('the recording made', () => recordingMade(db), 240_000);
  const lock = lockDb(db);
  await lock.locked;
  await ask(3, 'session/prompt', { sessionId: 's1', prompt: [{ type: 'text', text: 'go' }] });
  // The flood is in the log (it is written there before it is forwarded), and none of it indexed (locked).
  const early = join(tmp.dir, `${db.split('/').pop()}-early.capture`);
  copyFileSync(captureLog(db), early);
  await lock.release();
  return { r, early };
}

const recordingMade = (db: string) => count(db, `SELECT count(*) AS n FROM recordings`) > 0;

// One at a time, each with five minutes: three 150 MiB floods at once, beside the suite's other
// file, timed out together at 60 s on a loaded 2-core machine; one at a time there (load average
// 22), each took 92-146 s, as each indexes its 150 MiB twice.
describe('a live tap with a flood\'s backlog', { timeout: 600_000 }, () => {
  it('indexes it on a second thread, takes it back, and stores what one indexer going through the log stores', async () => {
    const db = join(tmp.dir, 'live.db');
    const { r, early } = await flood(db);
    await r.waitStderr('handed to a second thread', 240_000);
    await r.waitStderr('back on this thread', 240_000);
    // Stored by the tap, while it lives.
    await until('the answer stored', () => answered(db) === 1, 240_000, 50);
    r.child.stdin!.end();
    const done = await r.done;
    expect(done.code, done.stderr).toBe(0);
    const got = stored(db);
    expect(got.counted).toMatchObject({ status: 'complete', item_count: CHUNKS + 6 + 4, capture: null });
    // What makes this a test of the state handed over: findings through the flood and at its end.
    expect(got.findings.filter((f) => (f as { seq: number; severity: string }).severity === 'error').length).toBeGreaterThanOrEqual(15);
    expect(got.findings).toContainEqual(expect.objectContaining({ rule: 'unknown-field' }));
    const ref = stored(await reference(db, 'live', early));
    expect(got.findings).toEqual(ref.findings);
    expect(got.counted).toEqual(ref.counted);
    expect(got.rows.length).toBe(ref.rows.length);
    expect(got.rows).toEqual(ref.rows);
  });

  it('whose helper cannot start, indexes it on its own thread and stores the same', async () => {
    const db = join(tmp.dir, 'alone.db');
    const { r, early } = await flood(db, { ACP_INSPECT_TEST_INDEX_WORKER_FAILS: '1' });
    await until('the answer stored', () => answered(db) === 1, 240_000, 50);
    r.child.stdin!.end();
    const done = await r.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).not.toContain('handed to a second thread');
    expect(done.stderr).toContain('the second thread failed (the index worker failed');
    const got = stored(db);
    expect(got.counted).toMatchObject({ status: 'complete', item_count: CHUNKS + 6 + 4, capture: null });
    const ref = stored(await reference(db, 'alone', early));
    expect(got.findings).toEqual(ref.findings);
    expect(got.rows).toEqual(ref.rows);
  });

  it('exiting while its helper works, hands the log on; the next indexer stores what one indexer stores', async () => {
    const db = join(tmp.dir, 'exit.db');
    // The default exit wait, not the test suite's longer one: the tap exits before it has indexed the flood.
    const { r, early } = await flood(db, { ACP_INSPECT_FINISH_WAIT_MS: undefined });
    await r.waitStderr('handed to a second thread', 240_000);
    r.child.stdin!.end();
    const done = await r.done;
    expect(done.code, done.stderr).toBe(0);
    // It exited while its helper worked.
    expect(done.stderr).not.toContain('back on this thread');
    expect(answered(db)).toBe(0);
    const ref = stored(await reference(db, 'exit', early));
    const ix = await run(['index', '--db', db], { env });
    expect(ix.code, ix.stderr).toBe(0);
    const got = stored(db);
    expect(got.counted).toMatchObject({ status: 'complete', capture: null });
    expect(got.findings).toEqual(ref.findings);
    expect(got.counted).toEqual(ref.counted);
    expect(got.rows).toEqual(ref.rows);
  });
});
