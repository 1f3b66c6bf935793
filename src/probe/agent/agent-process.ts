/**
 * One agent process for the probe: spawns the command in a process group of its own, wires its
 * stdout to a ProbeConnection (the probe is the client), records its stderr and its spawn and exit as
 * items, and stops it the way ACP says (close stdin, then terminate), the whole group: npm wrapper
 * scripts start the real agent as a child, and signalling the wrapper alone leaves that child
 * running with stdout open. No wait is unbounded: a process that keeps the agent's stdout open after
 * the agent exited is not waited for.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { LineSplitter } from '../../wire/line-splitter.js';
import { ProbeConnection } from '../connection.js';

export interface AgentProcess {
  conn: ProbeConnection;
  child: ChildProcess;
  /** Set when the command could not be started. */
  spawnError?: string;
  /** Resolves when the process has exited and its output is read (or given up on). */
  exited: Promise<{ code: number | null; signal: string | null }>;
  /** Set once the process exited (before the probe stopped it, when `stoppedByProbe` is false). */
  exit?: { code: number | null; signal: string | null; stoppedByProbe: boolean };
  /**
   * Closes stdin; after `graceMs` SIGTERM to the process group, after TERM_GRACE_MS more SIGKILL;
   * resolves once the agent exited and no process of its group is left.
   */
  stop(graceMs?: number): Promise<void>;
  /** The most telling of the last stderr lines (an error, else the last one), for a one-line reason. */
  stderrReason(): string | undefined;
}

/** How long a SIGTERMed group gets before SIGKILL. */
export const TERM_GRACE_MS = 1500;
/** How long, after the agent exited, its stdout may stay open (held by a process it left behind). */
export const CLOSE_WAIT_MS = 500;

/** Process groups of agents still alive, ended if the probe itself is ended. */
const liveGroups = new Set<number>();
const ENDING_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // ESRCH: nobody left in the group
  }
}

const killAll = (): void => { for (const g of liveGroups) signalGroup(g, 'SIGKILL'); };
function onEndingSignal(signal: NodeJS.Signals): void {
  killAll();
  unwatch();
  process.kill(process.pid, signal); // as without this handler
}
function watch(pgid: number): void {
  if (!liveGroups.size) {
    process.on('exit', killAll);
    for (const s of ENDING_SIGNALS) process.on(s, onEndingSignal);
  }
  liveGroups.add(pgid);
}
function unwatch(pgid?: number): void {
  if (pgid === undefined) liveGroups.clear();
  else liveGroups.delete(pgid);
  if (liveGroups.size) return;
  process.off('exit', killAll);
  for (const s of ENDING_SIGNALS) process.off(s, onEndingSignal);
}

/**
 * Whether a live (not zombie) process of the group is left. A killed process whose parent died stays
 * a zombie until init reaps it: it is gone for our purpose, though kill(-pgid, 0) still finds it.
 */
function groupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  let entries: string[];
  try { entries = readdirSync('/proc'); } catch { return true; } // no procfs: trust kill()
  for (const d of entries) {
    if (d.charCodeAt(0) > 57) continue;
    let stat: string;
    try { stat = readFileSync(`/proc/${d}/stat`, 'utf8'); } catch { continue; }
    // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so read after the last ')'.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(f[2]) === pgid && f[0] !== 'Z') return true;
  }
  return false;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits until no process of the group is left, at most `ms`; true when it is empty. */
async function groupGone(pgid: number, ms: number): Promise<boolean> {
  const until = performance.now() + ms;
  for (;;) {
    if (!groupAlive(pgid)) return true;
    if (performance.now() >= until) return false;
    await sleep(50);
  }
}

export function startAgent(command: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number }): AgentProcess {
  const [cmd, ...args] = command;
  let stopping = false;
  const conn = new ProbeConnection({
    side: 'client',
    timeoutMs: opts.timeoutMs,
    write: (line) => { if (child.stdin?.writable) child.stdin.write(`${line}\n`); },
  });
  // detached: the agent leads a process group of its own, which stop() ends as a whole.
  const child = spawn(cmd!, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  const pgid = child.pid;
  if (pgid !== undefined) watch(pgid);
  let exitedNow: { code: number | null; signal: string | null } | undefined;
  const endGroup = async (graceMs: number): Promise<void> => {
    if (pgid === undefined) return;
    // The agent's own way out first (stdin closed), then the group: SIGTERM, a grace, SIGKILL.
    if (!exitedNow && graceMs > 0) await Promise.race([proc.exited, sleep(graceMs)]);
    if (!(await groupGone(pgid, 0))) {
      signalGroup(pgid, 'SIGTERM');
      if (!(await groupGone(pgid, TERM_GRACE_MS))) {
        signalGroup(pgid, 'SIGKILL');
        await groupGone(pgid, 1000);
      }
    }
    unwatch(pgid);
  };
  const proc: AgentProcess = {
    conn, child,
    exited: undefined as unknown as AgentProcess['exited'],
    stop: async (graceMs = 300) => {
      if (!stopping) {
        stopping = true;
        if (!exitedNow) conn.event('stdin-closed', {});
        child.stdin?.end();
      }
      await endGroup(exitedNow ? 0 : graceMs);
      await proc.exited;
    },
    stderrReason: () => {
      const lines = tail.map((l) => l.trim()).filter(Boolean);
      return [...lines].reverse().find((l) => /error|cannot|not found|denied|missing|invalid|failed/i.test(l)) ?? lines.at(-1);
    },
  };
  const tail: string[] = [];
  conn.event('spawn', { command: cmd, args, cwd: opts.cwd, pid: child.pid ?? null });
  proc.exited = new Promise((resolve) => {
    child.once('error', (e) => {
      if (pgid !== undefined) unwatch(pgid);
      proc.spawnError = `could not start ${cmd}: ${e.message}`;
      conn.event('spawn-error', { message: e.message });
      proc.exit = { code: null, signal: null, stoppedByProbe: stopping };
      conn.close('spawn error');
      resolve({ code: null, signal: null });
    });
    const out = new LineSplitter();
    child.stdout!.on('data', (chunk: Buffer) => {
      for (const line of out.push(chunk)) conn.receive(line.toString('utf8'));
    });
    const err = new LineSplitter();
    const onErr = (l: string): void => {
      conn.stderr(l);
      tail.push(l);
      if (tail.length > 20) tail.shift();
    };
    child.stderr!.on('data', (chunk: Buffer) => { for (const l of err.push(chunk)) onErr(l.toString('utf8')); });
    child.stdin!.on('error', () => { /* EPIPE after the agent died: seen as its exit */ });
    let finished = false;
    const finish = (): void => {
      if (finished || !exitedNow) return;
      finished = true;
      const rest = out.end();
      // A line the agent was still writing when the probe's own signal ended it was cut by the probe,
      // not malformed by the agent: kept whole, as an event, and never checked as a frame.
      if (rest && stopping && exitedNow.signal !== null) conn.event('stdout-cut', { signal: exitedNow.signal, bytes: rest.length, raw: rest.toString('utf8') });
      else if (rest) conn.receive(rest.toString('utf8'));
      const errRest = err.end();
      if (errRest) onErr(errRest.toString('utf8'));
      const { code, signal } = exitedNow;
      conn.event('exit', { code, signal });
      proc.exit = { code, signal, stoppedByProbe: stopping };
      conn.close(`agent exited (${signal ?? `code ${code}`})`);
      resolve({ code, signal });
    };
    child.once('exit', (code, signal) => {
      exitedNow = { code, signal };
      // Its output is read to the end, unless a process it left behind holds the pipes open: that
      // one is not waited for, and it is ended with the rest of the group.
      const t = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish();
        if (!stopping) void endGroup(0);
      }, CLOSE_WAIT_MS);
      child.once('close', () => { clearTimeout(t); finish(); if (!stopping && pgid !== undefined) void endGroup(0); });
    });
  });
  return proc;
}
