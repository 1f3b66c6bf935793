/** Shared test helpers: temp folders, the real binary, the SDK's example peers. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, type Dirent } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { liveIndexers } from '../src/store/indexer-pids.js';
import { capturesDir } from '../src/store/paths.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const BIN = join(ROOT, 'bin', 'acp-inspect.js');
export const EXAMPLES = join(ROOT, 'node_modules', 'acp-sdk-v1-examples', 'dist', 'examples');
export const EXAMPLE_AGENT = join(EXAMPLES, 'agent.js');
export const EXAMPLE_CLIENT = join(EXAMPLES, 'client.js');
export const PEERS = join(ROOT, 'test', 'peers');

/** A seeded PRNG (mulberry32) giving numbers in [0, 1), so a failing generated case can be replayed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A fresh temp folder, removed by the returned cleanup (see removeDir). */
export function tempDir(prefix = 'acp-inspect-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => removeDir(dir) };
}

/**
 * Removes a test's folder once the detached indexers that taps and commands started for databases
 * in it have exited (see waitForIndexers): one still at work there would write into the folder as
 * it is removed.
 */
export function removeDir(dir: string): void {
  waitForIndexers(dir);
  rmSync(dir, { recursive: true, force: true });
}

/** How long waitForIndexers waits for an indexer before it gives up on it. */
const INDEXER_WAIT_MS = 60_000;

/**
 * Waits (blocking) until no detached indexer named in a capture folder under `dir` runs (a tap
 * names the one it starts at its exit there before it exits: see src/store/indexer-pids.ts), those
 * an indexer starts in turn included. One still running after INDEXER_WAIT_MS is killed, and this
 * throws, naming it.
 */
export function waitForIndexers(dir: string, ms = INDEXER_WAIT_MS): void {
  const nap = new Int32Array(new SharedArrayBuffer(4));
  const until = Date.now() + ms;
  for (;;) {
    const live = captureFolders(dir).flatMap((db) => liveIndexers(db).map((pid) => ({ pid, db })));
    if (live.length === 0) return;
    if (Date.now() > until) {
      for (const { pid } of live) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
      throw new Error(`detached indexer(s) still running after ${ms} ms, killed: ${live.map(({ pid, db }) => `pid ${pid} for ${db}`).join(', ')}`);
    }
    Atomics.wait(nap, 0, 0, 20);
  }
}

/** The databases under `dir` (a few levels deep) that have a capture folder beside them. */
function captureFolders(dir: string, depth = 4): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const e of entries) {
    if (!e.isDirectory()) continue;
    const path = join(dir, e.name);
    if (e.name.endsWith(CAPTURES_SUFFIX)) out.push(path.slice(0, -CAPTURES_SUFFIX.length));
    else if (depth > 0) out.push(...captureFolders(path, depth - 1));
  }
  return out;
}
const CAPTURES_SUFFIX = capturesDir('');

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
}

/**
 * The least time `run` gives a command before it kills it and fails. It guards against a hang, not a
 * time: on a 2-core machine running a second suite beside this one, commands that take 2 s alone
 * took over 30 s. A test's own smaller `timeoutMs` is raised to it.
 */
const RUN_HANG_MS = 300_000;

/** Runs a command to completion, feeding `input` to its stdin; one that hangs past RUN_HANG_MS is killed and fails. */
export function run(cmd: string, args: string[], opts: { input?: Buffer | string; env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...opts.env }, cwd: opts.cwd ?? ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out: ${cmd} ${args.join(' ')}\nstderr: ${err}`));
    }, Math.max(opts.timeoutMs ?? 0, RUN_HANG_MS));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolveRun({ code, signal, stdout: Buffer.concat(out), stderr: err });
    });
    child.stdin.on('error', () => undefined);
    if (opts.input !== undefined) child.stdin.end(opts.input);
    else child.stdin.end();
  });
}

/** Runs the acp-inspect binary. */
export function cli(args: string[], opts: Parameters<typeof run>[2] = {}): Promise<RunResult> {
  return run(process.execPath, [BIN, ...args], opts);
}

/**
 * Runs the SDK 1.9.0 example client against `agentCommand` (a shell command line, e.g. the tap in
 * front of the example agent). The client answers its permission question with option 1.
 */
export function runExampleClient(agentCommand: string, opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<RunResult> {
  return run(process.execPath, [EXAMPLE_CLIENT], {
    input: '1\n',
    cwd: opts.cwd,
    env: { ...opts.env, PATH: `${join(PEERS, 'bin')}:${process.env.PATH}`, ACP_TEST_AGENT: agentCommand },
    timeoutMs: 40_000,
  });
}

/** Shell-quotes one argument. */
export function sh(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * Ends a process a test started and waits until it has exited: `signal` first, SIGKILL if it is
 * still there after `graceMs`. Resolves at once for one that already exited.
 */
export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Spawns the tap without waiting, for signal tests. */
export function spawnTap(args: string[], env?: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** A fenced code block of a Markdown text: its language, the rest of its info string, its text. */
export interface CodeBlock {
  lang: string;
  /** What follows the language on the opening fence, e.g. `requires=probe`. */
  info: string;
  body: string;
}

/** The fenced code blocks of a Markdown text, indented ones (in a list) included. */
export function markdownCodeBlocks(markdown: string): CodeBlock[] {
  const out: CodeBlock[] = [];
  for (const m of markdown.matchAll(/^( *)```([^`\n]*)\n([\s\S]*?)^\1```[ \t]*$/gm)) {
    const indent = m[1]!.length;
    const body = indent ? m[3]!.split('\n').map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length))).join('\n') : m[3]!;
    const [lang = '', ...rest] = m[2]!.trim().split(/\s+/);
    out.push({ lang, info: rest.join(' '), body });
  }
  return out;
}

/** The fenced code blocks of a Markdown text (the README) in one language, e.g. 'sh' or 'ts'. */
export function readmeCodeBlocks(markdown: string, lang: string): string[] {
  return markdownCodeBlocks(markdown).filter((b) => b.lang === lang && !b.info).map((b) => b.body);
}

/** The README and every page of docs/, README first: { file, text }. */
export function docPages(): { file: string; text: string }[] {
  const docs = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`);
  return ['README.md', ...docs].map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));
}

/**
 * A suite's teardown: runs every step in order, each even when one before it failed (a browser that
 * would not close still lets the server stop and the folder go), then throws the first failure.
 * Steps left undefined (what a failed beforeAll never made) are skipped.
 */
export async function endAll(...steps: Array<(() => unknown) | undefined>): Promise<void> {
  const failures: unknown[] = [];
  for (const step of steps) {
    if (!step) continue;
    try {
      await step();
    } catch (e) {
      failures.push(e);
    }
  }
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) throw new AggregateError(failures, `${failures.length} teardown steps failed: ${failures.map((e) => (e instanceof Error ? e.message : String(e))).join('; ')}`);
}
