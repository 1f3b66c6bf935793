/**
 * Finishing capture logs that no live process indexes: a tap killed (SIGKILL, a crash, its editor
 * taking it down), a tap that exited before its recorder caught up, an indexer that was itself
 * stopped halfway. Whoever runs this (the detached indexer the tap or any command starts: `acp-inspect
 * index`) takes each such log under the database's write lock (Store.claimCapture: two processes
 * never index one log both), resumes where the database says indexing got (the items of each batch
 * and the indexer's state there are written in one transaction, so nothing is lost or stored twice),
 * indexes it to its end, finishes the recording (`interrupted`, with the time of its last frame, when
 * the log has no finish record: its tap died) and removes the log.
 */
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Store, logWriterAlive, processIdentity, writerAlive } from '../store/store.js';
import { capturesDir, listCaptureLogs, listDoneCaptureLogs } from '../store/paths.js';
import { readCaptureHeader, type CaptureHeader } from './capture-log.js';
import type { FromRecorder, HandedOnExit, RecorderConfig } from './messages.js';
import { FULL_RETRY_MS, FULL_WAIT_MS, diskFull, isFullError } from '../store/disk.js';

/** How long a log that holds no header yet is left alone (its tap may be starting). */
const HEADERLESS_GRACE_MS = 10_000;
/** How long to wait for a log whose indexer is exiting (a tap that handed on but still holds it). */
const WAIT_FOR_OWNER_MS = 3000;

/**
 * Indexes every capture log beside `dbPath` that no live process indexes; returns how many it finished.
 * `handedOn`: a log its tap handed on as it exited cleanly, with that exit (see HandedOnExit).
 */
export async function finishCaptures(dbPath: string, say: (msg: string) => void = () => undefined, handedOn: { log: string; exit: HandedOnExit } | null = null): Promise<number> {
  const me = processIdentity();
  const until = Date.now() + WAIT_FOR_OWNER_MS;
  let n = 0;
  for (;;) {
    let owned = 0;
    for (const name of listCaptureLogs(dbPath)) {
      const path = join(capturesDir(dbPath), name);
      const header = readCaptureHeader(path);
      if (!header) {
        // Not while its tap runs: on a full disk it waits for room to write the header (see createCaptureLog).
        if (!logWriterAlive(name)) removeIfAbandoned(path);
        continue;
      }
      const claim = await claimWhenRoom(dbPath, name, me, header);
      if (!claim) {
        owned++;
        continue;
      }
      await indexCapture(dbPath, path, name, header, claim, say, handedOn?.log === name ? handedOn.exit : null);
      n++;
    }
    // Logs still held by a live process: a tap or an indexer at work (not ours), or one exiting
    // that will let go in a moment. Look again briefly, then leave them to their owners.
    if (owned === 0 || Date.now() > until) return n;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Removes the indexed logs that taps left to remove (Store.captureIndexed), once their tap is gone:
 * the last process to close a removed file pays for freeing it. A tap still exiting gets a moment.
 */
export async function removeDoneCaptures(dbPath: string): Promise<void> {
  const until = Date.now() + WAIT_FOR_OWNER_MS;
  for (;;) {
    let held = 0;
    for (const name of listDoneCaptureLogs(dbPath)) {
      const path = join(capturesDir(dbPath), name);
      const header = readCaptureHeader(path);
      if (header && tapAlive(header)) held++;
      else rmSync(path, { force: true });
    }
    if (held === 0 || Date.now() > until) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Claims a log (Store.claimCapture). A disk too full for even that write is waited for (FULL_WAIT_MS
 * at most, looking every FULL_RETRY_MS), so that a detached indexer started on a full disk goes on by
 * itself once space returns; then the error is thrown, and the next opener tries again.
 */
async function claimWhenRoom(dbPath: string, name: string, me: string, header: CaptureHeader): Promise<Claim | null> {
  const since = Date.now();
  for (;;) {
    try {
      const store = Store.open(dbPath, { busyTimeout: 10_000 });
      try {
        return store.claimCapture(name, me, tapAlive(header), () => newRecording(header));
      } finally {
        store.close();
      }
    } catch (e) {
      const full = isFullError(e) || (e as { message?: string }).message?.includes('disk is full');
      if (!full || !diskFull(dbPath) || Date.now() - since > FULL_WAIT_MS) throw e;
      await new Promise((r) => setTimeout(r, FULL_RETRY_MS));
    }
  }
}

/** Whether the tap that wrote a log (its header says which process) still runs. */
function tapAlive(header: CaptureHeader): boolean {
  return writerAlive({ id: 0, host_pid: header.hostPid, header: JSON.stringify({ hostStart: header.hostStart }) });
}

/** A log without even its header, left by a tap that died as it started: nothing to index, so it goes. */
function removeIfAbandoned(path: string): void {
  try {
    if (Date.now() - statSync(path).mtimeMs > HEADERLESS_GRACE_MS) rmSync(path, { force: true });
  } catch { /* gone meanwhile */ }
}

/**
 * Indexes one claimed log to its end, resuming from the claim: the tap's own recorder's parts, on two
 * threads (split-recorder.ts). Should that fail (a worker thread that cannot start, or fails), the
 * tap's own recorder goes on on this thread from where the database says the first got.
 */
async function indexCapture(dbPath: string, path: string, name: string, header: CaptureHeader, claim: Claim, say: (msg: string) => void, exit: HandedOnExit | null): Promise<void> {
  const send = (m: FromRecorder) => {
    if ('warn' in m) say(`acp-inspect: recording ${claim.id}: ${m.warn}`);
  };
  const config = (c: Claim): RecorderConfig => ({
    dbPath, name: header.name, command: header.command, cwd: header.cwd, hostPid: header.hostPid, startedAt: header.startedAt,
    redact: header.redact, maxFrameBytes: header.maxFrameBytes, check: header.check, ui: null,
    capture: { path, name },
    handedOn: exit,
    resume: { recordingId: c.id, indexed: c.indexed, state: c.state, storedSeq: c.storedSeq },
  });
  let fatal: unknown = null;
  const onFatal = (e: unknown) => { fatal = e; };
  const { startSplitRecorder } = await import('./split-recorder.js');
  await startSplitRecorder(config(claim), send, { busyTimeoutMs: 10_000, onFatal }).done;
  if (fatal && existsSync(path)) {
    const again = reclaim(dbPath, name, header);
    if (again) {
      fatal = null;
      const { startRecorder } = await import('./recorder/index.js');
      await startRecorder(config(again), send, { busyTimeoutMs: 10_000, onFatal }).done;
    }
  }
  if (fatal) say(`acp-inspect: recording ${claim.id}: indexing failed (${(fatal as Error).message ?? String(fatal)}); it resumes at the next open`);
}

type Claim = { id: number; indexed: number; state: string | null; storedSeq: number };

/** Claims a log again (this process holds it): where its indexing got now. */
function reclaim(dbPath: string, name: string, header: CaptureHeader): Claim | null {
  try {
    const store = Store.open(dbPath, { busyTimeout: 10_000 });
    try {
      return store.claimCapture(name, processIdentity(), false, () => newRecording(header));
    } finally {
      store.close();
    }
  } catch {
    return null;
  }
}

/** The recording a log's header makes, when no recording names the log yet. */
function newRecording(header: CaptureHeader) {
  return {
    name: header.name, startedAt: header.startedAt, status: 'running' as const, command: header.command, cwd: header.cwd,
    hostPid: header.hostPid, hostStart: header.hostStart,
  };
}
