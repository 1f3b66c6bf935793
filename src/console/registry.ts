/**
 * Running consoles, for `serve` to list: each console keeps one small file in a folder beside the
 * database while it runs (`<db>-consoles/<pid>.json`) and removes it as it ends; a reader skips
 * (and removes) the file of a console that died without doing so.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { processStartId } from '../store/process-id.js';
import type { RunningConsoleInfo } from './contract.js';
import { makeDirs } from '../store/paths.js';

export function consolesDir(dbPath: string): string {
  return `${dbPath}-consoles`;
}

/** Writes (or rewrites) this console's entry; best effort: listing consoles is a convenience. */
export function saveConsoleEntry(dbPath: string, info: RunningConsoleInfo): void {
  try {
    const dir = consolesDir(dbPath);
    makeDirs(dir);
    const tmp = join(dir, `.${info.pid}.json.tmp`);
    writeFileSync(tmp, JSON.stringify(info));
    renameSync(tmp, join(dir, `${info.pid}.json`));
  } catch { /* not listed: nothing else depends on it */ }
}

export function removeConsoleEntry(dbPath: string, pid: number): void {
  rmSync(join(consolesDir(dbPath), `${pid}.json`), { force: true });
}

function alive(info: RunningConsoleInfo): boolean {
  try {
    process.kill(info.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return info.hostStart === null || processStartId(info.pid) === info.hostStart;
}

/** The consoles running on database `dbPath`, oldest first. */
export function listConsoles(dbPath: string): RunningConsoleInfo[] {
  let names: string[];
  try {
    names = readdirSync(consolesDir(dbPath)).filter((n) => /^\d+\.json$/.test(n));
  } catch {
    return [];
  }
  const out: RunningConsoleInfo[] = [];
  for (const n of names) {
    let info: RunningConsoleInfo;
    try {
      info = JSON.parse(readFileSync(join(consolesDir(dbPath), n), 'utf8')) as RunningConsoleInfo;
    } catch {
      continue;
    }
    if (alive(info)) out.push(info);
    else try { rmSync(join(consolesDir(dbPath), n), { force: true }); } catch { /* another reader did */ }
  }
  return out.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
}
