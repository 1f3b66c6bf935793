/**
 * A tap that exits cleanly before its recorder could store anything (here: another process holds
 * the database's write lock for the whole session) hands its capture log on to a detached indexer,
 * which it names in the capture folder before it exits. Until that indexer is done, `list` shows the
 * recording as being indexed, with its progress, never as interrupted; a tap killed is interrupted.
 * Real binaries, real pipes, real SQLite.
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { asker, lockDb, makeTmp, run, start, until, writeChunksAgent } from '../reliability/helpers.js';
import { handedOnLogs, liveIndexers, readIndexers, recordIndexer } from '../../src/store/indexer-pids.js';
import { waitForIndexers } from '../helpers.js';
import { startRemoteAgent } from '../remote/helpers.js';

const tmp = makeTmp('acp-handed-on-');
afterAll(() => tmp.cleanup());
const node = process.execPath;
/** 20 MiB of message chunks: an indexer takes a while over them. */
const CHUNKS = 20_000;
const agent = writeChunksAgent(tmp.dir, 'chunks', CHUNKS);

interface Listed { id: number; status: string; frames: number; indexing?: { indexedBytes: number; totalBytes: number } }

const list = async (db: string): Promise<Listed[]> => {
  const r = await run(['list', '--json', '--db', db]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout.toString()) as Listed[];
};

/** Runs a session through the tap while the database is locked; `end`: how the tap goes. */
async function lockedSession(db: string, end: 'exit' | 'kill', env: NodeJS.ProcessEnv = {}) {
  const lock = lockDb(db);
  await lock.locked;
  // The default exit wait, not the suite's longer one: the tap hands on at once.
  const r = start(['--db', db, '--', node, agent], { env: { ACP_INSPECT_FINISH_WAIT_MS: undefined, ...env }, readStdout: false });
  const ask = asker(r);
  await ask(1, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
  await ask(2, 'session/new', { cwd: '/', mcpServers: [] });
  await ask(3, 'session/prompt', { sessionId: 's1', prompt: [{ type: 'text', text: 'go' }] });
  if (end === 'exit') r.child.stdin!.end();
  else r.child.kill('SIGKILL');
  const res = await r.done;
  await lock.release();
  return res;
}

/**
 * A log its tap handed on with no indexer started: named handed on, listed running (not interrupted),
 * and `index` ends it complete with the tap's exit, its log removed. Returns the recording as listed then.
 */
async function handedOnThenIndexed(db: string, env: NodeJS.ProcessEnv): Promise<Listed> {
  const log = readdirSync(`${db}-captures`).find((f) => f.endsWith('.capture'))!;
  expect(handedOnLogs(db)).toEqual(new Set([log]));
  const listed = JSON.parse((await run(['list', '--json', '--db', db], { env })).stdout.toString()) as Listed[];
  expect(listed[0]).toMatchObject({ status: 'running' });
  // Being indexed, with how much waits (nothing indexes it until `index` below).
  expect(listed[0]!.indexing?.totalBytes, JSON.stringify(listed[0])).toBeGreaterThan(0);
  const ix = await run(['index', '--db', db], { env });
  expect(ix.code, ix.stderr).toBe(0);
  const [done] = await list(db);
  expect(done).toMatchObject({ status: 'complete', exitCode: 0 });
  expect(readdirSync(`${db}-captures`)).toEqual([]);
  return done!;
}

describe('a recording its tap handed on as it exited', () => {
  it('is listed as being indexed, with progress, until its indexer finishes it complete; never interrupted', async () => {
    const db = join(tmp.dir, 'exit.db');
    const res = await lockedSession(db, 'exit');
    expect(res.code, res.stderr).toBe(0);
    // The tap named the indexer it started, and the log it handed on, before it exited.
    const named = readIndexers(db);
    expect(named.some((e) => e.log.endsWith('.capture')), JSON.stringify(named)).toBe(true);
    const seen: string[] = [];
    let indexing: Listed['indexing'];
    for (;;) {
      const [rec] = await list(db);
      if (rec) {
        seen.push(rec.status);
        if (rec.status === 'running') {
          expect(rec.indexing, JSON.stringify(rec)).toBeDefined();
          indexing ??= rec.indexing;
        }
        if (rec.status !== 'running') break;
      }
    }
    expect(seen, seen.join(', ')).not.toContain('interrupted');
    // Listed while its indexer works, it shows how far (on a quiet machine the indexer may be done
    // before the first look: the state in between is pinned, with no indexer running, below).
    if (seen[0] === 'running') expect(indexing!.totalBytes).toBeGreaterThan(CHUNKS * 1000);
    expect(seen.at(-1)).toBe('complete');
    waitForIndexers(tmp.dir);
    const [done] = await list(db);
    expect(done).toMatchObject({ status: 'complete', frames: CHUNKS + 6 });
    // The indexer is gone, and so is the file that named it, with the log.
    expect(liveIndexers(db)).toEqual([]);
    expect(readdirSync(`${db}-captures`)).toEqual([]);
  });

  it('when only an empty file\'s name could take the exit (a full disk): listed running, then ended with that exit, not interrupted', async () => {
    const db = join(tmp.dir, 'named.db');
    // A session whose end reached neither its log, nor the database, nor the indexer's file: as a tap
    // that exits on a full disk leaves it. The empty file is made as that tap makes it, for an indexer
    // that could not start (its pid gone), and the indexer's own file, unwritten there, goes.
    const res = await lockedSession(db, 'kill');
    expect(res.signal).toBe('SIGKILL');
    const log = readdirSync(`${db}-captures`).find((f) => f.endsWith('.capture'))!;
    const gone = spawn('true');
    await new Promise((r) => gone.once('exit', r));
    recordIndexer(db, gone.pid!, log, { endedAt: '2026-01-02T03:04:05.678Z', exitCode: 3, exitSignal: null });
    rmSync(join(`${db}-captures`, `${gone.pid}.indexer`));
    expect(readdirSync(`${db}-captures`).filter((f) => f.endsWith('.handed-on'))).toHaveLength(1);
    expect(handedOnLogs(db)).toEqual(new Set([log]));

    const env = { ACP_INSPECT_NO_DETACHED_INDEXER: '1' };
    const listed = JSON.parse((await run(['list', '--json', '--db', db], { env })).stdout.toString()) as Listed[];
    expect(listed[0]).toMatchObject({ status: 'running' });
    expect(listed[0]!.indexing).toBeDefined();
    const ix = await run(['index', '--db', db], { env });
    expect(ix.code, ix.stderr).toBe(0);
    const [done] = await list(db);
    expect(done).toMatchObject({ status: 'incomplete', exitCode: 3, exitSignal: null, endedAt: '2026-01-02T03:04:05.678Z' });
    expect(done!.frames).toBeGreaterThan(0);
    expect(readdirSync(`${db}-captures`)).toEqual([]);
  });

  it('when no indexer could be started for it: listed running, not interrupted, and the next indexer ends it with the tap\'s exit', async () => {
    const db = join(tmp.dir, 'unstarted.db');
    const env = { ACP_INSPECT_NO_DETACHED_INDEXER: '1' };
    const res = await lockedSession(db, 'exit', env);
    expect(res.code, res.stderr).toBe(0);
    expect(readIndexers(db)).toEqual([]);
    const done = await handedOnThenIndexed(db, env);
    expect(done).toMatchObject({ frames: CHUNKS + 6 });
  });

  it('so does a remote agent\'s tap (the stdio↔HTTP bridge): listed running, not interrupted, and the next indexer ends it with the tap\'s exit', async () => {
    const db = join(tmp.dir, 'remote.db');
    const env = { ACP_INSPECT_NO_DETACHED_INDEXER: '1' };
    const agentDir = join(tmp.dir, 'remote-agent');
    mkdirSync(agentDir, { recursive: true });
    const remote = await startRemoteAgent(agentDir);
    try {
      const lock = lockDb(db);
      await lock.locked;
      const r = start(['--db', db, '--', remote.url], { env: { ACP_INSPECT_FINISH_WAIT_MS: undefined, ...env } });
      const ask = asker(r);
      await ask(1, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
      await ask(2, 'session/new', { cwd: '/', mcpServers: [] });
      const sessionId = /"sessionId":"([^"]+)"/.exec(r.stdoutSoFar().toString())![1]!;
      await ask(3, 'session/prompt', { sessionId, prompt: [{ type: 'text', text: 'flood 200' }] });
      r.child.stdin!.end();
      const res = await r.done;
      await lock.release();
      expect(res.code, res.stderr).toBe(0);
      const done = await handedOnThenIndexed(db, env);
      expect(done.frames).toBeGreaterThanOrEqual(206);
    } finally {
      await remote.stop();
    }
  });

  it('a tap killed instead is interrupted at once', async () => {
    const db = join(tmp.dir, 'kill.db');
    const res = await lockedSession(db, 'kill');
    expect(res.signal).toBe('SIGKILL');
    const [rec] = await list(db);
    expect(rec).toMatchObject({ status: 'interrupted' });
    await until('the indexer done', () => liveIndexers(db).length === 0, 60_000);
    const [done] = await list(db);
    expect(done).toMatchObject({ status: 'interrupted' });
    expect(done!.frames).toBeGreaterThan(0);
  });
});
