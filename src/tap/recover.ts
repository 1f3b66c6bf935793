/**
 * Finishing capture logs that no live process indexes: a tap killed (SIGKILL, a crash, its editor
 * taking it down), a tap that exited before its recorder caught up, an indexer that was itself
 * stopped halfway. Whoever runs this (the detached indexer the tap or any command starts: `acp-inspect
 * index`) takes each such log under the database's write lock (Store.claimCapture: two processes
 * never index one log both), resumes where the database says indexing got (the items of each batch
 * and the indexer's state there are written in one transaction, so nothing is lost or stored twice),
 * indexes it to its end, finishes the recording (`interrupted`, with the time of its last frame, when
 * the log has no finish record: its tap died) and removes the log. A log it stops on (the database
 * refused a write, stayed locked, or its disk stayed full) is kept as far as it is indexed, for the
 * next indexer, and said in what finishCaptures returns: never a silent partial answer.
 */
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Store, identityAlive, logWriterAlive, processIdentity, toStoreError, writerAlive } from '../store/store.js';
import { capturesDir, listCaptureLogs, listDoneCaptureLogs } from '../store/paths.js';
import { readCaptureHeader, type CaptureHeader } from './capture-log.js';
import type { FromRecorder, HandedOnExit, RecorderConfig } from './messages.js';
import { FULL_RETRY_MS, FULL_WAIT_MS, blockedByFullDisk, diskFull, isFullError, refusedForSpace, type StopReason } from '../store/disk.js';

/** How long a log that holds no header yet is left alone (its tap may be starting). */
const HEADERLESS_GRACE_MS = 10_000;
/** How long to wait for a log whose tap is exiting (one that handed its log on but still holds it). */
const WAIT_FOR_OWNER_MS = 3000;
/** How often a log another indexer holds is looked at once WAIT_FOR_OWNER_MS is over. */
const OWNER_POLL_MS = 500;
/** How long another indexer may hold a log without indexing more of it before this one leaves it (as export does). */
const OWNER_STALL_MS = 15_000;

/** A capture log an indexer set out to finish and left, the rest kept in it for the next one. */
export interface LogLeft {
  /** The log's file name in the capture folder. */
  log: string;
  /** Its recording (null: not claimed, so not known). */
  recordingId: number | null;
  /** Bytes of the log indexed, and its size. */
  indexed: number;
  total: number;
  /** Why it stopped, and the way out (see StopReason). */
  why: string;
  fix: string;
}

/** What finishCaptures did: the logs it finished, those it left, and those live taps write (not its to finish). */
export interface Finished {
  indexed: number;
  left: LogLeft[];
  live: number;
}

/**
 * Indexes every capture log beside `dbPath` whose tap is gone, and says which it left unfinished
 * (why, and how far they got). A log another live indexer holds is waited for while that one indexes
 * more of it (OWNER_STALL_MS), and taken over should it end before the log does. Logs that live taps
 * write are theirs: left to them after WAIT_FOR_OWNER_MS (a tap exiting lets go by then).
 * `handedOn`: a log its tap handed on as it exited cleanly, with that exit (see HandedOnExit).
 * `waitForOthers` false (a detached indexer): logs other live indexers hold are left to them after
 * WAIT_FOR_OWNER_MS too, and not counted as left.
 */
export async function finishCaptures(dbPath: string, say: (msg: string) => void = () => undefined, handedOn: { log: string; exit: HandedOnExit } | null = null,
  waitForOthers = true): Promise<Finished> {
  const me = processIdentity();
  const until = Date.now() + WAIT_FOR_OWNER_MS;
  const done: Finished = { indexed: 0, left: [], live: 0 };
  const tried = new Set<string>();
  /** Logs other indexers hold: how far each was indexed when last seen to move, and when. */
  const held = new Map<string, { indexed: number; since: number }>();
  for (;;) {
    let owned = 0;
    let live = 0;
    for (const name of listCaptureLogs(dbPath)) {
      if (tried.has(name)) continue;
      const path = join(capturesDir(dbPath), name);
      const header = readCaptureHeader(path);
      if (!header) {
        // Not while its tap runs: on a full disk it waits for room to write the header (see createCaptureLog).
        if (!logWriterAlive(name)) removeIfAbandoned(path);
        continue;
      }
      // Held by another indexer when last looked at, and still: not claimed again (a write) while it gets on.
      const holder = held.has(name) ? progressOf(dbPath, name) : null;
      if (holder?.indexer && holder.indexer !== me && identityAlive(holder.indexer)) {
        if (heldInVain(dbPath, name, path, holder, held, done)) tried.add(name);
        else owned++;
        continue;
      }
      let claim: Claim | null;
      try {
        claim = await claimWhenRoom(dbPath, name, me, header);
      } catch (e) {
        tried.add(name);
        const now = progressOf(dbPath, name);
        // (A store error's own way out names another database: not one for this database's logs.)
        const reason = refusedForSpace(e, dbPath) ? blockedByFullDisk(dbPath) : { why: `cannot take it: ${toStoreError(e, dbPath).message.split('; ')[0]}`, fix: '' };
        done.left.push({ log: name, recordingId: now?.id ?? null, ...sizes(now?.indexed ?? 0, path), ...reason });
        continue;
      }
      if (!claim) {
        if (tapAlive(header)) live++;
        else if (heldInVain(dbPath, name, path, progressOf(dbPath, name), held, done)) tried.add(name);
        else owned++;
        continue;
      }
      tried.add(name);
      const stopped = await indexCapture(dbPath, path, name, header, claim, say, handedOn?.log === name ? handedOn.exit : null);
      // Its log is removed once all indexed (or its recording deleted meanwhile: rm removes the log
      // just after its commit, which the indexer may see first): one left is not done.
      if (!existsSync(path)) done.indexed++;
      else if (stopped !== null || !recordingDeleted(dbPath, claim.id)) done.left.push({ log: name, recordingId: claim.id, ...sizes(progressOf(dbPath, name)?.indexed ?? claim.indexed, path), ...(stopped ?? { why: 'indexing stopped before the end of the log', fix: '' }) });
    }
    // Logs held by a live process: another indexer at work (waited for while it gets on: this one
    // finishes what it leaves), or a tap (its recorder indexes its log), which may be exiting and
    // let go in a moment: looked at again briefly, then left to it.
    done.live = live;
    // A detached indexer (waitForOthers false: nobody reads its exit) leaves to the other indexers what
    // they hold, as it leaves taps theirs: waiting there would only keep one more process alive.
    const over = Date.now() > until;
    if ((owned === 0 || (!waitForOthers && over)) && (live === 0 || over)) return done;
    await new Promise((r) => setTimeout(r, Date.now() > until ? OWNER_POLL_MS : 100));
  }
}

/**
 * Whether another indexer held log `name` for OWNER_STALL_MS without indexing more of it (waiting for
 * space, or stopped and still alive): then it is left, and said so in `done`.
 */
function heldInVain(dbPath: string, name: string, path: string, now: Progress | null, held: Map<string, { indexed: number; since: number }>, done: Finished): boolean {
  const seen = held.get(name);
  const indexed = now?.indexed ?? seen?.indexed ?? 0;
  if (!seen || indexed !== seen.indexed) {
    held.set(name, { indexed, since: Date.now() });
    return false;
  }
  if (Date.now() - seen.since < OWNER_STALL_MS) return false;
  const pid = now?.indexer?.split(' ')[0];
  done.left.push({
    log: name, recordingId: now?.id ?? null, ...sizes(indexed, path),
    ...(diskFull(dbPath) ? blockedByFullDisk(dbPath) : { why: `another indexer${pid ? ` (pid ${pid})` : ''} holds it and indexed nothing more for ${OWNER_STALL_MS / 1000} s`, fix: 'let it end' }),
  });
  return true;
}

type Progress = { id: number; indexed: number; indexer: string | null };

/** The recording of log `name`, how far it is indexed and by whom (Store.captureProgress); null when the database cannot say. */
function progressOf(dbPath: string, name: string): Progress | null {
  try {
    const store = Store.open(dbPath, { readonly: true, busyTimeout: 2000 });
    try { return store.captureProgress(name); } finally { store.close(); }
  } catch {
    return null;
  }
}

/** Whether recording `id` is known to be gone from the database (deleted); false when it is there or the database cannot say. */
function recordingDeleted(dbPath: string, id: number): boolean {
  try {
    const store = Store.open(dbPath, { readonly: true, busyTimeout: 2000 });
    try { return !store.hasRecording(id); } finally { store.close(); }
  } catch {
    return false;
  }
}

/** `indexed` bytes of the log at `path`, and its size. */
function sizes(indexed: number, path: string): { indexed: number; total: number } {
  let total = indexed;
  try { total = Math.max(indexed, statSync(path).size); } catch { /* gone meanwhile */ }
  return { indexed, total };
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
async function indexCapture(dbPath: string, path: string, name: string, header: CaptureHeader, claim: Claim, say: (msg: string) => void, exit: HandedOnExit | null): Promise<StopReason | null> {
  let stopped: StopReason | null = null;
  const send = (m: FromRecorder) => {
    if ('warn' in m) say(`acp-inspect: recording ${claim.id}: ${m.warn}`);
    // What the indexer says as it goes (a full disk it waits on, and its end): shown by `index` in a terminal.
    else if ('info' in m) say(m.info.startsWith('acp-inspect: ') ? m.info : `acp-inspect: recording ${claim.id}: ${m.info}`);
    else if ('stopped' in m) stopped ??= m.stopped;
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
  if (fatal) stopped ??= { why: `indexing failed (${(fatal as Error).message ?? String(fatal)})`, fix: '' };
  return stopped;
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
