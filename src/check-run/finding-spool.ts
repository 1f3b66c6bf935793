/**
 * The findings of a check, in seq order, without holding them: a recording with a finding on nearly
 * every frame has a million of them. The spool holds up to HOLD in memory, then appends them to a
 * temporary file (removed from its folder as soon as it is open, so nothing is left behind however
 * the process ends) as their `check --json` lines, and keeps the tally the readable report needs as
 * they come. `lines` and `read` give them back in the order the whole sorted list had.
 *
 * A check reports a frame's findings at that frame, so they come in seq order; the checks at the end
 * of a recording (a request never answered, a field seen since #12) report at earlier frames. Those,
 * and any finding below one already spooled, are held apart ("late": as many as the recording has
 * open requests and distinct odd fields) and merged in when read.
 */
import { closeSync, openSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError } from '../errors.js';
import { LineSplitter } from '../wire/line-splitter.js';
import type { Finding } from '../check/checker.js';
import type { Severity } from '../check/rule.js';
import { specUrl } from '../spec/doc-links.js';

/**
 * A finding as `check --json` prints it (and the spool's file holds it): seq first, then the fields
 * of the contract in their order, then `url`, the protocol's page for its spec part.
 */
export function lineOf(f: Finding): string {
  return JSON.stringify({ seq: f.seq, severity: f.severity, rule: f.rule, message: f.message, spec: f.spec, url: specUrl(f.spec) });
}
const SEQ_AT = '{"seq":'.length;

/** Findings held in memory before they are written to the file. */
const HOLD = 4096;
/** Findings per rule the readable report lists. */
export const PER_RULE = 20;
const READ_BYTES = 64 * 1024;

interface RuleGroup {
  severity: Severity;
  rule: string;
  count: number;
  /** Where its first finding is in seq order: its seq, then when it came. */
  firstSeq: number;
  firstCame: number;
  /** Its first PER_RULE findings in seq order. */
  first: Finding[];
}

/**
 * What the readable report needs of the findings, kept as they come (in any order): the count per
 * severity, and per rule its count and its first PER_RULE findings, as the sorted list would list them.
 * Plain data, so that it crosses from the checking thread as it is.
 */
export interface FindingTally {
  counts: Record<Severity, number>;
  /** By severity and rule. */
  groups: Map<string, RuleGroup>;
  came: number;
}

export function newTally(): FindingTally {
  return { counts: { error: 0, warning: 0, info: 0 }, groups: new Map(), came: 0 };
}

export function tallyFinding(t: FindingTally, f: Finding): void {
  const came = t.came++;
  t.counts[f.severity]++;
  const key = `${f.severity} ${f.rule}`;
  const g = t.groups.get(key);
  if (!g) {
    t.groups.set(key, { severity: f.severity, rule: f.rule, count: 1, firstSeq: f.seq, firstCame: came, first: [f] });
    return;
  }
  g.count++;
  // Equal seqs keep the order they came in (the sort was stable).
  if (f.seq < g.firstSeq) {
    g.firstSeq = f.seq;
    g.firstCame = came;
  }
  const fs = g.first;
  if (fs.length < PER_RULE || f.seq < fs[fs.length - 1]!.seq) {
    let i = fs.length;
    while (i > 0 && fs[i - 1]!.seq > f.seq) i--;
    fs.splice(i, 0, f);
    if (fs.length > PER_RULE) fs.pop();
  }
}

/** The rules of one severity with findings, in the order of their first finding. */
export function groupsOf(t: FindingTally, severity: Severity): RuleGroup[] {
  return [...t.groups.values()].filter((g) => g.severity === severity).sort((a, b) => a.firstSeq - b.firstSeq || a.firstCame - b.firstCame);
}

/** A spool as it stands, to be read on another thread of the process (the file descriptor is the process's). */
export interface SpoolState {
  fd: number;
  path: string;
  held: Finding[];
  late: Finding[];
  lastSeq: number;
  tally: FindingTally;
}

/** A check's counts and its findings, spooled: read them from `spool`, then close it. */
export interface SpooledCheck {
  items: number;
  frames: number;
  /** As CheckRun's: the agent never started. */
  notStarted?: string;
  /** The stored recording's id (a ref of `latest` is named by it). */
  recordingId?: number;
  spool: FindingSpool;
}

/**
 * A new temporary file for a spool, removed from its folder at once where the system allows (it lives
 * on until closed, and nothing is left behind however the process ends); else `path` is removed on close.
 */
export function openSpoolFile(): { fd: number; path: string } {
  const path = join(tmpdir(), `acp-inspect-findings-${process.pid}-${Math.random().toString(36).slice(2)}.jsonl`);
  let fd: number;
  try {
    fd = openSync(path, 'wx+', 0o600);
  } catch (e) {
    throw new CliError(`cannot make a temporary file for the findings in ${tmpdir()} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); set TMPDIR to a folder you can write`, 2);
  }
  try {
    unlinkSync(path);
    return { fd, path: '' };
  } catch {
    return { fd, path };
  }
}

export function closeSpoolFile(file: { fd: number; path: string }): void {
  try { closeSync(file.fd); } catch { /* closed already */ }
  if (file.path) rmSync(file.path, { force: true });
}

export class FindingSpool {
  private fd: number;
  private path: string;
  private held: Finding[];
  private late: Finding[];
  private lastSeq: number;
  readonly tally: FindingTally;
  private readonly hold: number;

  /**
   * `state`: a spool handed on by another thread. `file`: a file to write into (from openSpoolFile;
   * a checking worker writes into its parent's, since a worker's files close when it ends), else one
   * is opened when needed. `hold`: findings held before writing (tests use few).
   */
  constructor(state?: SpoolState, opts: { file?: { fd: number; path: string }; hold?: number } = {}) {
    this.fd = state?.fd ?? opts.file?.fd ?? -1;
    this.path = state?.path ?? opts.file?.path ?? '';
    this.held = state?.held ?? [];
    this.late = state?.late ?? [];
    this.lastSeq = state?.lastSeq ?? -Infinity;
    this.tally = state?.tally ?? newTally();
    this.hold = opts.hold ?? HOLD;
  }

  get count(): number {
    return this.tally.came;
  }

  add(f: Finding): void {
    tallyFinding(this.tally, f);
    if (f.seq < this.lastSeq) {
      this.late.push(f);
      return;
    }
    this.lastSeq = f.seq;
    this.held.push(f);
    if (this.held.length >= this.hold) this.spill();
  }

  private spill(): void {
    if (this.fd < 0) ({ fd: this.fd, path: this.path } = openSpoolFile());
    const lines: string[] = [];
    for (const f of this.held) lines.push(lineOf(f));
    lines.push('');
    writeSync(this.fd, lines.join('\n'));
    this.held = [];
  }

  state(): SpoolState {
    return { fd: this.fd, path: this.path, held: this.held, late: this.late, lastSeq: this.lastSeq, tally: this.tally };
  }

  /** Every finding in seq order (equal seqs in the order they came), as the checker made it (no url). */
  *read(): Generator<Finding> {
    for (const l of this.lines()) {
      const { url: _url, ...f } = JSON.parse(l) as Finding & { url?: string };
      yield f;
    }
  }

  /**
   * Every finding as its line of `check --json` (lineOf), in seq order: the file's lines are handed on
   * as they were written, not parsed again.
   */
  *lines(): Generator<string> {
    const late = [...this.late].sort((a, b) => a.seq - b.seq);
    let k = 0;
    for (const l of this.linesInOrder()) {
      const seq = Number(l.slice(SEQ_AT, l.indexOf(',', SEQ_AT)));
      while (k < late.length && late[k]!.seq < seq) yield lineOf(late[k++]!);
      yield l;
    }
    while (k < late.length) yield lineOf(late[k++]!);
  }

  /** The lines of the findings that came in seq order: the file's, then those held. */
  private *linesInOrder(): Generator<string> {
    if (this.fd >= 0) {
      const buf = Buffer.allocUnsafe(READ_BYTES);
      const splitter = new LineSplitter();
      for (let pos = 0; ;) {
        const n = readSync(this.fd, buf, 0, READ_BYTES, pos);
        if (n === 0) break;
        pos += n;
        // Each line is made a string before `buf` is read into again.
        for (const line of splitter.push(buf.subarray(0, n))) yield line.toString('utf8');
      }
    }
    for (const f of this.held) yield lineOf(f);
  }

  /** Closes (and so removes) the file; the spool is empty after. */
  close(): void {
    if (this.fd >= 0) closeSpoolFile({ fd: this.fd, path: this.path });
    this.fd = -1;
    this.held = [];
    this.late = [];
  }
}
