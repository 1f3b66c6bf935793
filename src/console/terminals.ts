/**
 * The `terminal/*` duty of a client: commands the agent asks for, run in a folder, their output kept
 * (cut to the agent's byte limit, or DEFAULT_OUTPUT_LIMIT, at a character boundary), waited for, killed and released. The
 * caller decides whether the agent may run anything at all; this only runs what it is handed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { insideFolder } from './files.js';

interface Term { child: ChildProcess; output: string; exit?: { exitCode: number | null; signal: string | null }; limit: number; truncated: boolean }

/**
 * The output kept of a command when the agent gives no `outputByteLimit`: its last 1 MiB (the answer
 * then says `truncated`), so a command that prints without end does not grow the console without end.
 */
export const DEFAULT_OUTPUT_LIMIT = 1024 * 1024;

export type TerminalReply = { result: unknown } | { error: { code: number; message: string } };

/** Hears what the commands do, as they do it: each piece of output (stdout and stderr as they come) and the exit. */
export interface TerminalWatcher {
  output(terminalId: string, text: string): void;
  exit(terminalId: string, exit: { exitCode: number | null; signal: string | null }): void;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export class TerminalHost {
  private readonly terms = new Map<string, Term>();
  private next = 1;

  /** `root`: the real path of the folder commands run in (a `cwd` the agent names must be inside it). */
  constructor(private readonly root: string, private readonly prefix = 'term', private readonly defaultLimit = DEFAULT_OUTPUT_LIMIT, private readonly watcher?: TerminalWatcher) {}

  /** Answers one `terminal/*` request through `reply` (at once, or when the command exits for wait_for_exit). */
  handle(method: string, p: Record<string, unknown>, reply: (r: TerminalReply) => void): void {
    const bad = (message: string) => reply({ error: { code: -32602, message } });
    if (method === 'terminal/create') {
      if (typeof p.command !== 'string') return bad('command is required');
      const args = Array.isArray(p.args) ? p.args.map(String) : [];
      const env = { ...process.env };
      if (Array.isArray(p.env)) for (const e of p.env.filter(isObj)) env[String(e.name)] = String(e.value);
      const cwd = p.cwd == null ? this.root : insideFolder(this.root, p.cwd);
      if (!cwd) return bad(`cwd must be absolute and inside ${this.root}`);
      // A group of its own, so kill and release end what the command started too.
      const id = `${this.prefix}-${this.next++}`;
      const child = spawn(p.command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      const t: Term = { child, output: '', limit: typeof p.outputByteLimit === 'number' && p.outputByteLimit >= 0 ? p.outputByteLimit : this.defaultLimit, truncated: false };
      const out = (text: string) => { this.append(t, text); this.watcher?.output(id, text); };
      const exited = () => { if (t.exit) this.watcher?.exit(id, t.exit); };
      child.stdout!.setEncoding('utf8').on('data', out);
      child.stderr!.setEncoding('utf8').on('data', out);
      child.once('error', (e) => { out(`${e.message}\n`); t.exit = { exitCode: 127, signal: null }; exited(); });
      child.once('close', (code, signal) => { if (!t.exit) { t.exit = { exitCode: code, signal }; exited(); } });
      this.terms.set(id, t);
      return reply({ result: { terminalId: id } });
    }
    const t = typeof p.terminalId === 'string' ? this.terms.get(p.terminalId) : undefined;
    if (!t) return bad('unknown terminalId');
    if (method === 'terminal/output') return reply({ result: { output: t.output, truncated: t.truncated, exitStatus: t.exit ?? null } });
    if (method === 'terminal/wait_for_exit') {
      if (t.exit) return reply({ result: t.exit });
      t.child.once('close', () => reply({ result: t.exit ?? { exitCode: null, signal: null } }));
      return;
    }
    if (method === 'terminal/kill') { kill(t); return reply({ result: {} }); }
    if (method === 'terminal/release') {
      kill(t);
      this.terms.delete(String(p.terminalId));
      return reply({ result: {} });
    }
    reply({ error: { code: -32601, message: `Method not found: ${method}` } });
  }

  private append(t: Term, s: string): void {
    t.output += s;
    if (Buffer.byteLength(t.output) > t.limit) {
      const all = Buffer.from(t.output);
      let b = all.subarray(all.length - t.limit);
      while (b.length && (b[0]! & 0xc0) === 0x80) b = b.subarray(1); // cut at a character boundary
      t.output = b.toString('utf8');
      t.truncated = true;
    }
  }

  /** Kills every command still running and forgets them all. */
  dispose(): void {
    for (const t of this.terms.values()) if (!t.exit) kill(t, 'SIGKILL');
    this.terms.clear();
  }
}

function kill(t: Term, sig: NodeJS.Signals = 'SIGTERM'): void {
  if (t.exit || t.child.pid === undefined) return;
  try { process.kill(-t.child.pid, sig); } catch { /* gone */ }
}
