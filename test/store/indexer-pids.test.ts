/**
 * The files that name detached indexers in a capture folder (src/store/indexer-pids.ts): only a live
 * process with the start time recorded counts, so a stale file (its indexer killed) or a pid the
 * system gave to another process blocks nothing, and waiting on them returns at once.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { handedOnLogs, liveIndexers, readIndexers, recordIndexer } from '../../src/store/indexer-pids.js';
import { processStartId } from '../../src/store/process-id.js';
import { stopProcess, tempDir, waitForIndexers } from '../helpers.js';

let cleanup = () => {};
afterEach(() => cleanup());

function folder(): { dir: string; db: string; captures: string } {
  const t = tempDir();
  cleanup = t.cleanup;
  const db = join(t.dir, 'r.db');
  mkdirSync(`${db}-captures`);
  return { dir: t.dir, db, captures: `${db}-captures` };
}

/** A process that has exited (and been reaped): its pid is free. */
async function deadPid(): Promise<number> {
  const p = spawn('true');
  await new Promise((r) => p.once('exit', r));
  return p.pid!;
}

describe('the files naming detached indexers', () => {
  it('count a live process with its start time, and are waited on until it exits', async () => {
    const { dir, db } = folder();
    const p = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      recordIndexer(db, p.pid!, 'a.capture');
      expect(liveIndexers(db)).toEqual([p.pid]);
      expect(handedOnLogs(db)).toEqual(new Set(['a.capture']));
      // Waiting gives up (and ends the process) once its time is up, saying which it was.
      expect(() => waitForIndexers(dir, 200)).toThrow(new RegExp(`pid ${p.pid} for ${db}`));
      await new Promise((r) => p.once('exit', r));
      expect(liveIndexers(db)).toEqual([]);
    } finally {
      await stopProcess(p, 'SIGKILL');
    }
  });

  it('of a process that is gone, or of a pid now another process\'s, block nothing', async () => {
    const { dir, db, captures } = folder();
    const gone = await deadPid();
    writeFileSync(join(captures, `${gone}.indexer`), `${gone} ${processStartId(process.pid)}\n\n`);
    // Our pid, but another start time: a process that had this pid before us.
    writeFileSync(join(captures, `${process.pid}.indexer`), `${process.pid} 00000000-0000-0000-0000-000000000000:1\n\n`);
    expect(readIndexers(db).map((e) => e.alive)).toEqual([false, false]);
    expect(liveIndexers(db)).toEqual([]);
    const started = Date.now();
    waitForIndexers(dir);
    expect(Date.now() - started).toBeLessThan(5_000); // returns at once; the bound only catches a hang
  });

  it('of dead indexers are swept by the next start, but one naming a log still there is kept (its tap exited cleanly)', async () => {
    const { db, captures } = folder();
    const [a, b] = [await deadPid(), await deadPid()];
    writeFileSync(join(captures, 'kept.capture'), '');
    writeFileSync(join(captures, `${a}.indexer`), `${a} x\n\n`);
    writeFileSync(join(captures, `${b}.indexer`), `${b} x\nkept.capture\n`);
    const p = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      recordIndexer(db, p.pid!);
      expect(readdirSync(captures).sort()).toEqual([`${b}.indexer`, `${p.pid}.indexer`, 'kept.capture'].sort());
      expect(handedOnLogs(db)).toEqual(new Set(['kept.capture']));
    } finally {
      await stopProcess(p, 'SIGKILL');
    }
  });
});
