/**
 * Starts a detached indexer: `acp-inspect index --db FILE` in a process of its own (its own session,
 * no stdio, not waited for), which finishes the capture logs beside the database that no live
 * process indexes (see recover.ts). The tap starts one when it exits before its recording is all
 * indexed, and any command that opens the database starts one when it finds such logs: the editor
 * never waits on the recorder, and nobody has to run anything for a recording to be finished.
 */
import { lazyRequire } from './agent.js';
import { recordHandedOn, recordIndexer } from '../store/indexer-pids.js';
import type { HandedOnExit } from './messages.js';

const started = new Set<string>();
/** Databases whose log a detached indexer started by copyLogElsewhere is copying now. */
const copying = new Set<string>();

/**
 * Starts one for `dbPath` (once per process), or, for the capture log `handedOn` a tap hands on as
 * it exits cleanly, one that is named as indexing that log (see indexer-pids.ts) and is told the
 * tap's exit on its command line (`exit`): on a full disk nothing else may carry it (see HandedOnExit).
 */
export function startDetachedIndexer(dbPath: string, handedOn: string | null = null, exit: HandedOnExit | null = null): void {
  const key = handedOn === null ? dbPath : `${dbPath}\0${handedOn}`;
  if (started.has(key)) return;
  started.add(key);
  // The tap's exit is named in the capture folder first, whether or not an indexer starts: whoever
  // indexes the log ends the recording with it, and until then it reads as handed on, not cut short.
  if (handedOn !== null && exit !== null) recordHandedOn(dbPath, handedOn, exit);
  if (process.env.ACP_INSPECT_NO_DETACHED_INDEXER === '1') return;
  const more = handedOn !== null && exit !== null ? ['--handed-on', handedOn, '--handed-on-exit', JSON.stringify(exit)] : [];
  spawnIndexer(dbPath, more, handedOn);
}

/**
 * Has another process copy SQLite's write-ahead log into the database (`acp-inspect index
 * --log-only`, from its own connection, while this process goes on writing). The tap's recorder runs
 * on the thread that takes the tap's signals and its agent's exit, and copying the log of a flood
 * there (a gigabyte, several seconds) held the tap's exit as long. True when one was started, or one
 * started before still runs (it copies what it finds; what comes later waits for the next copy).
 * False when none can be (the caller then copies the log itself).
 */
export function copyLogElsewhere(dbPath: string): boolean {
  if (process.env.ACP_INSPECT_NO_DETACHED_INDEXER === '1') return false;
  if (copying.has(dbPath)) return true;
  const child = spawnIndexer(dbPath, ['--log-only']);
  if (!child) return false;
  copying.add(dbPath);
  child.on('exit', () => copying.delete(dbPath));
  return true;
}

/** Whether a detached indexer started by copyLogElsewhere still runs. */
export function copyingElsewhere(dbPath: string): boolean {
  return copying.has(dbPath);
}

/**
 * Applies the store's retention settings (store/retention.ts) in a process of its own: `acp-inspect
 * prune --auto`, not waited for. The tap's recorder starts it once its recording is made (the agent
 * runs by then), when something is due; the agent and the editor never wait for a deletion.
 */
export function startRetention(dbPath: string): void {
  spawnCli(['prune', '--auto', '--db', dbPath]);
}

/**
 * `acp-inspect index --db dbPath` (and `more`) in a process of its own, not waited for, named in the
 * capture folder (recordIndexer) before this process goes on; null when it cannot start.
 */
function spawnIndexer(dbPath: string, more: string[] = [], handedOn: string | null = null): import('node:child_process').ChildProcess | null {
  const child = spawnCli(['index', '--db', dbPath, '--detached', ...more]);
  if (child?.pid !== undefined) recordIndexer(dbPath, child.pid, handedOn);
  return child;
}

/** `acp-inspect ARGS` in a process of its own (its own session, no stdio), not waited for; null when it cannot start. */
function spawnCli(args: string[]): import('node:child_process').ChildProcess | null {
  const cli = process.argv[1];
  if (!cli) return null;
  try {
    const { spawn } = lazyRequire('node:child_process') as typeof import('node:child_process');
    const child = spawn(process.execPath, [cli, ...args], { detached: true, stdio: 'ignore' });
    child.on('error', () => { /* the next opener starts one */ });
    child.unref();
    return child;
  } catch {
    return null; // the next opener starts one
  }
}
