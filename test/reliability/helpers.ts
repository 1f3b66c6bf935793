/**
 * Helpers for the fault tests: run the real binary over real pipes, write small agent scripts,
 * read the resulting SQLite file. Nothing here mocks our own code.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Store } from '../../src/store/store.js';
import { tempDir } from '../helpers.js';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const BIN = join(ROOT, 'bin', 'acp-inspect.js');
export const NODE = process.execPath;

/** A fresh temp folder and its cleanup (see tempDir). */
export function makeTmp(prefix = 'acp-rel-'): { dir: string; cleanup(): void } {
  return tempDir(prefix);
}

/**
 * The start of an agent script (writeAgent) that reads messages and writes its output in blocking
 * writes: `out(s)` writes all of `s` to stdout (retrying a non-blocking pipe's EAGAIN), and
 * `onMessages(handle)` calls `handle` with each line of stdin, parsed; the agent exits when stdin ends.
 */
export const AGENT_STDIO = `
const { writeSync } = require('node:fs');
const out = (s) => { const b = Buffer.from(s); for (let o = 0; o < b.length;) { try { o += writeSync(1, b, o); } catch (e) { if (e.code !== 'EAGAIN') throw e; } } };
const onMessages = (handle) => {
  let buf = '';
  process.stdin.on('data', (b) => {
    buf += b;
    let k;
    while ((k = buf.indexOf('\\n')) !== -1) {
      const m = JSON.parse(buf.slice(0, k));
      buf = buf.slice(k + 1);
      handle(m);
    }
  });
  process.stdin.on('end', () => process.exit(0));
};
`;

/** Writes an agent script (CommonJS) into `dir` and returns its path. */
export function writeAgent(dir: string, name: string, source: string): string {
  const p = join(dir, `${name}.cjs`);
  writeFileSync(p, source);
  return p;
}

/**
 * Writes an ACP agent that answers initialize, and session/new with a session "s1" (its result with
 * `newSessionExtra` too, JSON fields), and gives a prompt `chunks` message chunks of about 1 KiB for
 * s1, then its answer; returns its path.
 */
export function writeChunksAgent(dir: string, name: string, chunks: number, newSessionExtra = ''): string {
  return writeAgent(dir, name, `${AGENT_STDIO}
const line = (o) => JSON.stringify({ jsonrpc: '2.0', ...o }) + '\\n';
onMessages((m) => {
  if (m.method === 'initialize') out(line({ id: m.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } }));
  else if (m.method === 'session/new') out(line({ id: m.id, result: { sessionId: 's1'${newSessionExtra ? `, ${newSessionExtra}` : ''} } }));
  else if (m.method === 'session/prompt') {
    let s = '';
    for (let i = 0; i < ${chunks}; i++) {
      const text = String(i).padEnd(940, '.');
      s += line({ method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } });
    }
    out(s);
    out(line({ id: m.id, result: { stopReason: 'end_turn' } }));
  }
});
`);
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
}

export interface Running {
  child: ChildProcess;
  /** Resolves when the process exits and its pipes are drained. */
  done: Promise<RunResult>;
  stderrSoFar(): string;
  stdoutSoFar(): Buffer;
  /** Resolves once stderr contains `text` (or rejects after `ms`). */
  waitStderr(text: string | RegExp, ms?: number): Promise<string>;
  waitStdout(pred: (b: Buffer) => boolean, ms?: number): Promise<void>;
}

/** Spawns `acp-inspect` with `args`; stdin stays open unless `input` is given (written, then closed). */
export function start(args: string[], opts: { env?: NodeJS.ProcessEnv; input?: Buffer | string | (Buffer | string)[]; readStdout?: boolean; cwd?: string } = {}): Running {
  const child = spawn(NODE, [BIN, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ACP_INSPECT_DB: undefined, ...opts.env },
    cwd: opts.cwd,
  });
  const out: Buffer[] = [];
  let err = '';
  const waiters: (() => void)[] = [];
  const poke = () => { for (const w of waiters.splice(0)) w(); };
  if (opts.readStdout !== false) child.stdout!.on('data', (b: Buffer) => { out.push(b); poke(); });
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (s: string) => { err += s; poke(); });
  child.stdin!.on('error', () => { /* the tap may be gone */ });
  if (opts.input !== undefined) {
    const parts = Array.isArray(opts.input) ? opts.input : [opts.input];
    for (const p of parts) child.stdin!.write(p);
    child.stdin!.end();
  }
  const done = new Promise<RunResult>((res) => {
    child.on('close', (code, signal) => res({ code, signal, stdout: Buffer.concat(out), stderr: err }));
  });
  const waitFor = (check: () => boolean, what: string, ms: number) => new Promise<void>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`timed out waiting for ${what}; stderr so far: ${err}`)), ms);
    const loop = () => {
      if (check()) { clearTimeout(timer); res(); } else waiters.push(loop);
    };
    loop();
  });
  return {
    child,
    done,
    stderrSoFar: () => err,
    stdoutSoFar: () => Buffer.concat(out),
    waitStderr: async (text, ms = 120_000) => {
      await waitFor(() => (typeof text === 'string' ? err.includes(text) : text.test(err)), String(text), ms);
      return err;
    },
    waitStdout: (pred, ms = 20_000) => waitFor(() => pred(Buffer.concat(out)), 'stdout', ms),
  };
}

/** Runs `acp-inspect` to completion. */
export function run(args: string[], opts: Parameters<typeof start>[1] = {}): Promise<RunResult> {
  return start(args, { input: '', ...opts }).done;
}

/** The tap's own warning lines (ours start with "acp-inspect:"). */
export function tapLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.startsWith('acp-inspect:'));
}

/** Opens the database read-only and hands it to `fn`. */
export function withStore<T>(db: string, fn: (s: Store) => T): T {
  const s = Store.open(db, { readonly: true });
  try {
    return fn(s);
  } finally {
    s.close();
  }
}

/** A byte snapshot of a file, to prove a command left stored data alone. */
export function snapshot(path: string): Buffer {
  return readFileSync(path);
}

/** True while `pid` runs (a zombie, dead but not yet reaped, counts as gone). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX] /s.test(stat);
  } catch {
    return true; // no procfs: trust kill(0)
  }
}

/** Resolves when `pid` is gone (polling), or rejects after `ms`. */
export async function waitGone(pid: number, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (pidAlive(pid)) {
    if (Date.now() > until) throw new Error(`process ${pid} is still alive`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const rpc = (o: Record<string, unknown>): string => JSON.stringify({ jsonrpc: '2.0', ...o });

/**
 * Asks a tap's agent (the tap started with readStdout false) and resolves once the answer is in; only
 * the tail of what the agent writes is kept (an answer after a flood comes last).
 */
export function asker(r: Running): (id: number, method: string, params: Record<string, unknown>) => Promise<void> {
  let tail = '';
  let heard = () => undefined as void;
  r.child.stdout!.on('data', (b: Buffer) => { tail = (tail + b.toString('latin1')).slice(-4096); heard(); });
  return async (id, method, params) => {
    const want = `"id":${id},"result"`;
    r.child.stdin!.write(rpc({ id, method, params }) + '\n');
    await new Promise<void>((res) => { heard = () => { if (tail.includes(want)) res(); }; heard(); });
  };
}

/** Holds `BEGIN EXCLUSIVE` on `db` from another process until told to release (a line on stdin). */
export function lockDb(db: string) {
  const script = `
const Database = require(${JSON.stringify(join(ROOT, 'node_modules', 'better-sqlite3'))});
const db = new Database(process.argv[1]);
db.pragma('journal_mode = WAL');
db.exec('BEGIN EXCLUSIVE');
process.stdout.write('locked\\n');
process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });
`;
  const p = spawn(NODE, ['-e', script, db], { stdio: ['pipe', 'pipe', 'inherit'] });
  const locked = new Promise<void>((res) => p.stdout!.once('data', () => res()));
  const exited = new Promise<void>((res) => p.on('exit', () => res()));
  return { locked, release: async () => { p.stdin!.write('go\n'); await exited; } };
}

/** Polls `ok` every `everyMs` until it holds; throws, naming `what`, after `ms`. */
export async function until(what: string, ok: () => boolean, ms = 120_000, everyMs = 20): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
