/**
 * One agent process for one scenario: spawns the command, wires its stdout to a ProbeConnection
 * (the probe is the client), records its stderr and its spawn and exit as items, and stops it the
 * way ACP says (close stdin, then terminate).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { LineSplitter } from '../../wire/line-splitter.js';
import { ProbeConnection } from '../connection.js';

export interface AgentProcess {
  conn: ProbeConnection;
  child: ChildProcess;
  /** Set when the command could not be started. */
  spawnError?: string;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: string | null }>;
  /** Set once the process exited (before the probe stopped it, when `stoppedByProbe` is false). */
  exit?: { code: number | null; signal: string | null; stoppedByProbe: boolean };
  /** Closes stdin, then SIGTERM after `graceMs`, then SIGKILL; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
  /** The most telling of the last stderr lines (an error, else the last one), for a one-line reason. */
  stderrReason(): string | undefined;
}

export function startAgent(command: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number }): AgentProcess {
  const [cmd, ...args] = command;
  let stopping = false;
  const conn = new ProbeConnection({
    side: 'client',
    timeoutMs: opts.timeoutMs,
    write: (line) => { if (child.stdin?.writable) child.stdin.write(`${line}\n`); },
  });
  const child = spawn(cmd!, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
  const proc: AgentProcess = {
    conn, child,
    exited: undefined as unknown as AgentProcess['exited'],
    stop: async (graceMs = 300) => {
      if (proc.exit) return;
      stopping = true;
      conn.event('stdin-closed', {});
      child.stdin?.end();
      const term = setTimeout(() => child.kill('SIGTERM'), graceMs);
      const kill = setTimeout(() => child.kill('SIGKILL'), graceMs + 3000);
      await proc.exited;
      clearTimeout(term);
      clearTimeout(kill);
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
    child.once('close', (code, signal) => {
      const rest = out.end();
      if (rest) conn.receive(rest.toString('utf8'));
      const errRest = err.end();
      if (errRest) onErr(errRest.toString('utf8'));
      conn.event('exit', { code, signal });
      proc.exit = { code, signal, stoppedByProbe: stopping };
      conn.close(`agent exited (${signal ?? `code ${code}`})`);
      resolve({ code, signal });
    });
  });
  return proc;
}
