/**
 * Retention, journald-style: limits on the store (its database, SQLite's log and the capture logs)
 * that a tap applies at its start, in a process of its own, once its agent runs: a maximum size of
 * the store, a minimum of free space to keep on its disk, a maximum age of a recording. The oldest
 * recordings go first; never one still recorded, and, unless the user says otherwise, never one with
 * a note or younger than a day (`protectNotes`, `minAge`).
 *
 * Settings come from the config file (`$XDG_CONFIG_HOME/acp-inspect/config.json`, `{"retention":
 * {...}}`) and the environment (which wins): ACP_INSPECT_MAX_STORE_SIZE, ACP_INSPECT_KEEP_FREE,
 * ACP_INSPECT_MAX_AGE, ACP_INSPECT_RETENTION_MIN_AGE, ACP_INSPECT_RETENTION_PROTECT_NOTES. Sizes are
 * bytes or a number with K, M, G or T (powers of 1024); ages as `prune --older-than` takes them;
 * `off` turns a limit off. The defaults are generous, as journald's: the store at most a tenth of its
 * disk (at most 16 GiB), 5% of the disk kept free (at most 4 GiB), no maximum age.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { RecordingSummary, Store } from './store.js';
import { capturesDir } from './paths.js';
import { diskBytes, freeBytes } from './disk.js';
import { parseAge } from './prune.js';

const GiB = 1024 ** 3;
const DAY = 86_400_000;

export interface RetentionSettings {
  /** Bytes the store may take (null: no limit). */
  maxStoreBytes: number | null;
  /** Bytes to keep free on the store's disk (null: no limit). */
  keepFreeBytes: number | null;
  /** Age past which a recording goes (ms; null: none). */
  maxAgeMs: number | null;
  /** Recordings younger than this are kept (ms). */
  minAgeMs: number;
  /** Recordings with a note are kept. */
  protectNotes: boolean;
  /** Where each setting came from (`default`, the config file's path, or the variable's name). */
  sources: Record<string, string>;
}

/** The config file: `$XDG_CONFIG_HOME/acp-inspect/config.json` (default `~/.config`), or `$ACP_INSPECT_CONFIG`. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ACP_INSPECT_CONFIG) return env.ACP_INSPECT_CONFIG;
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'acp-inspect', 'config.json');
}

/** Parses `4G`, `500M`, `1.5GiB`, `1048576`; throws an Error naming the accepted forms. */
export function parseSize(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?$/i.exec(text.trim());
  if (!m) throw new Error(`"${text}" is not a size; use bytes or a number with K, M, G or T, like 4G or 500M`);
  return Math.floor(Number(m[1]) * 1024 ** ' KMGT'.indexOf((m[2] || ' ').toUpperCase()));
}

const KEYS = {
  maxStoreSize: 'ACP_INSPECT_MAX_STORE_SIZE',
  keepFree: 'ACP_INSPECT_KEEP_FREE',
  maxAge: 'ACP_INSPECT_MAX_AGE',
  minAge: 'ACP_INSPECT_RETENTION_MIN_AGE',
  protectNotes: 'ACP_INSPECT_RETENTION_PROTECT_NOTES',
} as const;

/**
 * The retention settings for the store at `dbPath`: the defaults, then the config file's, then the
 * environment's. Throws an Error naming the setting, where it came from, and the fix, on a bad value.
 */
export function retentionSettings(dbPath: string, env: NodeJS.ProcessEnv = process.env): RetentionSettings {
  const disk = diskBytes(dbPath);
  const s: RetentionSettings = {
    maxStoreBytes: disk === null ? 16 * GiB : Math.min(16 * GiB, Math.floor(disk / 10)),
    keepFreeBytes: disk === null ? null : Math.min(4 * GiB, Math.floor(disk / 20)),
    maxAgeMs: null,
    minAgeMs: DAY,
    protectNotes: true,
    sources: {},
  };
  const given: Partial<Record<keyof typeof KEYS, { value: unknown; from: string }>> = {};
  const file = configPath(env);
  if (existsSync(file)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new Error(`config file ${file} is not JSON (${(e as Error).message}); fix it or move it aside`);
    }
    const r = (parsed as { retention?: Record<string, unknown> } | null)?.retention;
    if (r !== undefined && (typeof r !== 'object' || r === null)) throw new Error(`config file ${file}: "retention" must be an object like {"maxStoreSize": "4G"}`);
    for (const [k, v] of Object.entries(r ?? {})) {
      if (!(k in KEYS)) throw new Error(`config file ${file}: unknown retention setting "${k}"; the settings are ${Object.keys(KEYS).join(', ')}`);
      given[k as keyof typeof KEYS] = { value: v, from: file };
    }
  }
  for (const [k, name] of Object.entries(KEYS)) {
    if (env[name] !== undefined && env[name] !== '') given[k as keyof typeof KEYS] = { value: env[name], from: name };
  }
  const off = (v: unknown) => v === 'off' || v === false || v === null;
  for (const [k, g] of Object.entries(given) as [keyof typeof KEYS, { value: unknown; from: string }][]) {
    const text = String(g.value);
    try {
      if (k === 'protectNotes') {
        if (!['true', 'false'].includes(text)) throw new Error(`"${text}" is not true or false`);
        s.protectNotes = text === 'true';
      } else if (k === 'maxStoreSize') s.maxStoreBytes = off(g.value) ? null : parseSize(text);
      else if (k === 'keepFree') s.keepFreeBytes = off(g.value) ? null : parseSize(text);
      else if (k === 'maxAge') s.maxAgeMs = off(g.value) ? null : parseAge(text);
      else s.minAgeMs = text === '0' ? 0 : parseAge(text);
    } catch (e) {
      throw new Error(`retention setting ${k} (${g.from}): ${(e as Error).message}`);
    }
    s.sources[k] = g.from;
  }
  return s;
}

/** The store's size on disk (database, SQLite's log, capture logs) and its disk's free space. */
export interface StoreUsage {
  /** Bytes the store takes: the database's pages in use, SQLite's log and the capture logs. */
  usedBytes: number;
  /** Bytes free on its disk, with the database's own free pages (which it reuses before it grows). */
  freeBytes: number | null;
}

export function storeUsage(store: Store): StoreUsage {
  const page = store.db.pragma('page_size', { simple: true }) as number;
  const pages = store.db.pragma('page_count', { simple: true }) as number;
  const unused = store.db.pragma('freelist_count', { simple: true }) as number;
  const size = (p: string) => { try { return statSync(p).size; } catch { return 0; } };
  // A capture log's indexed part gives its blocks back (its size stays: see tap/recorder/log-freer.ts).
  const held = (p: string) => { try { const s = statSync(p); return Math.min(s.size, s.blocks * 512); } catch { return 0; } };
  let captures = 0;
  try {
    for (const f of readdirSync(capturesDir(store.path))) captures += held(join(capturesDir(store.path), f));
  } catch { /* no capture folder */ }
  const free = freeBytes(store.path);
  return { usedBytes: (pages - unused) * page + size(`${store.path}-wal`) + captures, freeBytes: free === null ? null : free + unused * page };
}

/**
 * The recordings retention deletes, oldest first: every one past the maximum age, then the oldest
 * while the store is over its size or its disk short of the space to keep free (each deletion counted
 * as freeing the recording's share of the database: its items' part of the bytes in use). Never one
 * still recorded, nor a protected one (`noted`: ids of recordings with a note).
 */
export function selectRetention(recordings: RecordingSummary[], usage: StoreUsage, s: RetentionSettings, noted: Set<number>, now = Date.now()): RecordingSummary[] {
  const totalItems = recordings.reduce((n, r) => n + r.items, 0);
  const perItem = totalItems > 0 ? usage.usedBytes / totalItems : 0;
  const candidates = recordings
    .filter((r) => r.status !== 'running' && !(s.protectNotes && noted.has(r.id)))
    .filter((r) => { const t = Date.parse(r.startedAt); return Number.isFinite(t) && now - t >= s.minAgeMs; })
    .sort((a, b) => (Date.parse(a.startedAt) || 0) - (Date.parse(b.startedAt) || 0) || a.id - b.id);
  let used = usage.usedBytes;
  let free = usage.freeBytes;
  const over = () => (s.maxStoreBytes !== null && used > s.maxStoreBytes) || (s.keepFreeBytes !== null && free !== null && free < s.keepFreeBytes);
  const out: RecordingSummary[] = [];
  for (const r of candidates) {
    const old = s.maxAgeMs !== null && now - Date.parse(r.startedAt) > s.maxAgeMs;
    if (!old && !over()) break;
    out.push(r);
    used -= r.items * perItem;
    if (free !== null) free += r.items * perItem;
  }
  return out;
}

/** A size as `list` and `doctor` say it: `812.4 MiB`, `1.2 GiB`. */
export function sizeText(n: number): string {
  return n < GiB ? `${(n / 1048576).toFixed(1)} MiB` : `${(n / GiB).toFixed(1)} GiB`;
}

/** `store 1.2 GiB (at most 16.0 GiB); disk 40.3 GiB free (4.0 GiB kept free)`: what `list` and `doctor` say. */
export function storeUsageText(usage: StoreUsage, s: RetentionSettings | null): string {
  const gib = sizeText;
  return `store ${gib(usage.usedBytes)}${s?.maxStoreBytes == null ? '' : ` (at most ${gib(s.maxStoreBytes)})`}; disk ${usage.freeBytes === null ? 'free space unknown' : `${gib(usage.freeBytes)} free`}${s?.keepFreeBytes == null ? '' : ` (${gib(s.keepFreeBytes)} kept free)`}`;
}

/** Warnings when the store nears a limit (90% of its size, or less than twice the space to keep free). */
export function retentionWarnings(usage: StoreUsage, s: RetentionSettings): string[] {
  const out: string[] = [];
  const gib = sizeText;
  if (s.maxStoreBytes !== null && usage.usedBytes >= 0.9 * s.maxStoreBytes) {
    out.push(`the store takes ${gib(usage.usedBytes)} of the ${gib(s.maxStoreBytes)} it may (maxStoreSize): the oldest recordings go at the next tap's start`);
  }
  if (s.keepFreeBytes !== null && usage.freeBytes !== null && usage.freeBytes < 2 * s.keepFreeBytes) {
    out.push(`its disk has ${gib(usage.freeBytes)} free, near the ${gib(s.keepFreeBytes)} to keep free (keepFree): the oldest recordings go at the next tap's start`);
  }
  return out;
}

/**
 * Whether retention has something to do (a recording past the maximum age, or the store over a limit):
 * asked by the tap's recorder, cheaply (the database's page counts, a statfs, one query), before it
 * starts a process to apply it.
 */
export function retentionDue(store: Store, s: RetentionSettings, now = Date.now()): boolean {
  const usage = storeUsage(store);
  if (s.maxStoreBytes !== null && usage.usedBytes > s.maxStoreBytes) return true;
  if (s.keepFreeBytes !== null && usage.freeBytes !== null && usage.freeBytes < s.keepFreeBytes) return true;
  if (s.maxAgeMs === null) return false;
  const oldest = store.db.prepare(`SELECT MIN(started_at) AS t FROM recordings WHERE status != 'running'`).get() as { t: string | null };
  return oldest.t !== null && now - Date.parse(oldest.t) > Math.max(s.maxAgeMs, s.minAgeMs);
}
