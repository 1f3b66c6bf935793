/**
 * A recording's capture log goes only once its database says so: forgotten when it is all indexed,
 * or deleted with its recording, in a transaction that is committed before the file is removed. A
 * transaction that fails (a kill at that instant) leaves the recording with its log; a removal that
 * did not happen after the commit is done by the next claim, which never makes a recording of it again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Store, processIdentity } from '../../src/store/store.js';
import { capturesDir } from '../../src/store/paths.js';
import { createCaptureLog } from '../../src/tap/capture-log.js';
import { tempDir } from '../helpers.js';

let cleanup = () => {};
afterEach(() => cleanup());

/** A database with one recording whose capture log (made by a "tap" that is gone: pid 0x7ffffff0) is beside it. */
function withLog(): { store: Store; id: number; log: string; name: string; made: { startedAt: string; hostPid: number } } {
  const t = tempDir();
  cleanup = t.cleanup;
  const db = join(t.dir, 'r.db');
  mkdirSync(t.dir, { recursive: true });
  const made = { startedAt: new Date().toISOString(), hostPid: 0x7ffffff0 };
  const { name } = createCaptureLog(db, { name: null, command: ['agent'], cwd: '/', ...made, hostStart: null, redact: true, maxFrameBytes: null, check: false });
  const store = Store.open(db);
  const id = store.createRecording({ ...made, status: 'running', capture: name, indexer: null });
  return { store, id, log: join(capturesDir(db), name), name, made };
}

const captureOf = (store: Store, id: number) => (store.db.prepare(`SELECT capture FROM recordings WHERE id = ?`).get(id) as { capture: string | null } | undefined)?.capture;

describe('capture log removal', () => {
  it('a log forgotten in a transaction that fails is still there, and its recording still names it', () => {
    const { store, id, log, name } = withLog();
    expect(() => store.db.transaction(() => {
      store.captureIndexed(id);
      throw new Error('killed before the commit');
    })()).toThrow('killed');
    expect(existsSync(log)).toBe(true);
    expect(captureOf(store, id)).toBe(name);
    store.close();
  });

  it('a deletion whose commit fails leaves the recording and its log as they were', () => {
    const { store, id, log, name } = withLog();
    // A row that still needs the recording, checked only at the commit: the commit fails, as a kill would stop it.
    store.db.exec(`CREATE TABLE holds (rid INTEGER REFERENCES recordings(id) DEFERRABLE INITIALLY DEFERRED)`);
    store.db.prepare(`INSERT INTO holds VALUES (?)`).run(id);
    expect(() => store.deleteRecording(id)).toThrow(/FOREIGN KEY/);
    expect(existsSync(log)).toBe(true);
    expect(captureOf(store, id)).toBe(name);
    // The next claim takes it as its recording's, as before.
    expect(store.claimCapture(name, processIdentity(), false, () => { throw new Error('not a new recording'); })).toMatchObject({ id });
    store.db.exec(`DELETE FROM holds`);
    store.deleteRecording(id);
    expect(existsSync(log)).toBe(false);
    store.close();
  });

  it('a log left after its recording\'s deletion or indexing was committed is removed by the next claim, never made a recording again', () => {
    const { store, id, log, name, made } = withLog();
    // Indexed, committed, and the process killed before it removed the log.
    store.db.transaction(() => store.captureIndexed(id))();
    expect(existsSync(log)).toBe(true);
    expect(store.claimCapture(name, processIdentity(), false, () => ({ ...made, status: 'running' }))).toBeNull();
    expect(existsSync(log)).toBe(false);
    expect(store.listRecordings()).toHaveLength(1);
    store.close();
  });
});
