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
 *
 * A tap that hands its log on also leaves an empty file whose name says so, with the tap's exit:
 * `<log>.<exit code>.<signal>.<end time in ms>.handed-on`. On a full disk the `.indexer` file is made
 * but cannot be written, and the database cannot take the exit either; a name needs no data blocks.
 * So `list` goes on reading the recording as handed on (not cut short) while the disk is full, and
 * whichever indexer finishes the log once space returns ends it with that exit (handedOnExit). It
 * goes once its log is gone.
 */
import { closeSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { capturesDir } from './paths.js';
import { processStartId } from './process-id.js';

const EXT = '.indexer';
const HANDED_EXT = '.handed-on';

/** How a tap that handed its log on exited (as HandedOnExit in tap/messages.ts). */
export interface HandedOnEnd { endedAt: string; exitCode: number | null; exitSignal: string | null }

/** An indexer named in the capture folder: its pid, and the log a tap handed it (empty for none). */
export interface IndexerEntry { pid: number; alive: boolean; log: string }

/**
 * Names indexer `pid` (just started by this process) in `dbPath`'s capture folder; `log`: the capture
 * log a tap handed on, and `exit`, how that tap exited (named in an empty file too: see above).
 */
export function recordIndexer(dbPath: string, pid: number, log: string | null = null, exit: HandedOnEnd | null = null): void {
  const dir = capturesDir(dbPath);
  try {
    for (const e of readIndexers(dbPath)) if (!e.alive && (!e.log || !existsSync(join(dir, e.log)))) rmSync(join(dir, `${e.pid}${EXT}`), { force: true });
    if (log && exit) recordHandedOn(dbPath, log, exit);
    else sweepHandedOn(dbPath);
    if (!existsSync(dir)) mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, `${pid}${EXT}`), `${pid} ${processStartId(pid) ?? ''}\n${log ?? ''}\n`, { mode: 0o600 });
  } catch { /* a hint only: without it nobody waits for this indexer, and list decides on the tap alone */ }
}

/**
 * Names capture log `log` as handed on by a tap that exited as `exit` (the empty file described above).
 * The tap makes it whether or not an indexer can be started for it: until some indexer finishes the
 * log, `list` reads the recording as handed on, not cut short, and that indexer ends it with this exit.
 */
export function recordHandedOn(dbPath: string, log: string, exit: HandedOnEnd): void {
  const dir = capturesDir(dbPath);
  try {
    sweepHandedOn(dbPath);
    if (!existsSync(dir)) mkdirSync(dir, { mode: 0o700 });
    const name = `${log}.${exit.exitCode ?? ''}.${exit.exitSignal ?? ''}.${Date.parse(exit.endedAt)}${HANDED_EXT}`;
    closeSync(openSync(join(dir, name), 'w', 0o600));
  } catch { /* the .indexer file, the database or the indexer's command line says it */ }
}

/** The handed-on names (see above) in `dbPath`'s capture folder: the log each names, and how its tap exited. */
function handedOnNames(dbPath: string): { file: string; log: string; exit: HandedOnEnd }[] {
  let names: string[];
  try {
    names = readdirSync(capturesDir(dbPath)).filter((f) => f.endsWith(HANDED_EXT));
  } catch {
    return [];
  }
  const out: { file: string; log: string; exit: HandedOnEnd }[] = [];
  for (const file of names) {
    const parts = file.slice(0, -HANDED_EXT.length).split('.');
    if (parts.length < 4) continue;
    const [code, signal, ms] = parts.slice(-3) as [string, string, string];
    const t = Number(ms);
    if (!Number.isFinite(t)) continue;
    out.push({
      file, log: parts.slice(0, -3).join('.'),
      exit: { endedAt: new Date(t).toISOString(), exitCode: code === '' ? null : Number(code), exitSignal: signal === '' ? null : signal },
    });
  }
  return out;
}

/** How the tap that handed capture log `log` on exited, when a handed-on name says so. */
export function handedOnExit(dbPath: string, log: string): HandedOnEnd | null {
  return handedOnNames(dbPath).find((h) => h.log === log)?.exit ?? null;
}

/** Removes the handed-on names whose log is gone (indexed, or deleted). */
export function sweepHandedOn(dbPath: string): void {
  const dir = capturesDir(dbPath);
  for (const h of handedOnNames(dbPath)) if (!existsSync(join(dir, h.log))) rmSync(join(dir, h.file), { force: true });
}

/** This process, an indexer, is done: its file goes, unless it names a log still there (a fact about that log's tap). */
export function forgetIndexer(dbPath: string): void {
  const file = join(capturesDir(dbPath), `${process.pid}${EXT}`);
  try {
    const [who, log] = readFileSync(file, 'utf8').split('\n');
    if (who !== `${process.pid} ${processStartId(process.pid) ?? ''}`) return; // another process's, from before
    if (!log || !existsSync(join(capturesDir(dbPath), log))) rmSync(file, { force: true });
  } catch { /* none */ }
  sweepHandedOn(dbPath);
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
  return new Set([...readIndexers(dbPath).map((e) => e.log).filter(Boolean), ...handedOnNames(dbPath).map((h) => h.log)]);
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
