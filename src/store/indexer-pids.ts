/**
 * Who is indexing beside a database: each detached indexer (src/tap/detached-indexer.ts) is named by
 * a small file in the capture folder, `<pid>.indexer`, written by the process that starts it before
 * that one goes on (so it is there before a tap that handed its log on exits). Its first line is the
 * indexer's identity (pid and start time: a pid the system gave to a later process is not taken for
 * it), its second the capture log a tap handed on as it exited cleanly, if that is why it started.
 *
 * Tests and tools wait on these (liveIndexers) before they remove a folder, and `list` knows from
 * them that a recording whose tap is gone was handed on by a clean exit (handedOnLogs), not cut
 * short. A file is only a hint: one whose process is dead blocks nothing, and is swept by the next
 * start once its log is gone. Nothing here opens the database.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { capturesDir } from './paths.js';
import { processStartId } from './process-id.js';

const EXT = '.indexer';

/** An indexer named in the capture folder: its pid, and the log a tap handed it (empty for none). */
export interface IndexerEntry { pid: number; alive: boolean; log: string }

/** Names indexer `pid` (just started by this process) in `dbPath`'s capture folder; `log`: the capture log a tap handed on. */
export function recordIndexer(dbPath: string, pid: number, log: string | null = null): void {
  const dir = capturesDir(dbPath);
  try {
    for (const e of readIndexers(dbPath)) if (!e.alive && (!e.log || !existsSync(join(dir, e.log)))) rmSync(join(dir, `${e.pid}${EXT}`), { force: true });
    if (!existsSync(dir)) mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, `${pid}${EXT}`), `${pid} ${processStartId(pid) ?? ''}\n${log ?? ''}\n`, { mode: 0o600 });
  } catch { /* a hint only: without it nobody waits for this indexer, and list decides on the tap alone */ }
}

/** This process, an indexer, is done: its file goes, unless it names a log still there (a fact about that log's tap). */
export function forgetIndexer(dbPath: string): void {
  const file = join(capturesDir(dbPath), `${process.pid}${EXT}`);
  try {
    const [who, log] = readFileSync(file, 'utf8').split('\n');
    if (who !== `${process.pid} ${processStartId(process.pid) ?? ''}`) return; // another process's, from before
    if (!log || !existsSync(join(capturesDir(dbPath), log))) rmSync(file, { force: true });
  } catch { /* none */ }
}

/** The indexers named beside `dbPath`, alive or not. */
export function readIndexers(dbPath: string): IndexerEntry[] {
  const dir = capturesDir(dbPath);
  let names: string[];
  try {
    names = readdirSync(dir).filter((f) => f.endsWith(EXT));
  } catch {
    return [];
  }
  const out: IndexerEntry[] = [];
  for (const name of names) {
    const pid = Number(name.slice(0, -EXT.length));
    if (!Number.isSafeInteger(pid) || pid <= 0) continue;
    let text = '';
    try { text = readFileSync(join(dir, name), 'utf8'); } catch { continue; }
    const [who = '', log = ''] = text.split('\n');
    out.push({ pid, alive: alive(pid, who.split(' ')[1] ?? ''), log });
  }
  return out;
}

/** Pids of the indexers beside `dbPath` that still run. */
export function liveIndexers(dbPath: string): number[] {
  return readIndexers(dbPath).filter((e) => e.alive).map((e) => e.pid);
}

/** Capture logs beside `dbPath` that a tap handed on to an indexer as it exited cleanly. */
export function handedOnLogs(dbPath: string): Set<string> {
  return new Set(readIndexers(dbPath).map((e) => e.log).filter(Boolean));
}

/**
 * Whether `pid` runs and, when `start` is known (a half-written file has none), is the process that
 * started then. A zombie (exited, not yet reaped by whoever adopted it) no longer runs.
 */
function alive(pid: number, start: string): boolean {
  if (existsSync('/proc/self/stat')) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2))) return false;
    } catch {
      return false;
    }
  } else {
    try { process.kill(pid, 0); } catch (e) { if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false; }
  }
  if (!start) return true;
  const now = processStartId(pid);
  return now === null || now === start;
}
