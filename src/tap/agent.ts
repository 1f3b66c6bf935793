/**
 * Starting the agent. Beside the native forwarder the agent is started by it (posix_spawnp: a
 * vfork, so none of the tap's memory is copied and neither node:child_process nor node:net must be
 * loaded first), which puts the agent's first byte through the tap 5-10 ms sooner than Node's spawn
 * on a loaded two-core machine. Node's spawn starts it otherwise: on the JavaScript forwarder, and
 * whenever the native start fails, so that a command that cannot start is reported as it always was
 * (and a script without `#!` runs with /bin/sh, as Node runs it).
 */
import type { ChildProcess, StdioOptions } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import { constants as osConstants } from 'node:os';
import type { NativeForwarder } from './native.js';

let req: NodeRequire | null = null;
/**
 * Built-ins required on first use rather than imported: node:child_process and node:net cost the
 * start-up about 4 ms, and beside the native forwarder they are needed only once the agent runs.
 */
export function lazyRequire(id: string): unknown {
  return (req ??= createRequire(import.meta.url))(id);
}

/** What the tap asks of the agent's process: Node's ChildProcess has it, and so has NativeAgent. */
export interface AgentProcess {
  readonly pid?: number | undefined;
  readonly stdin: ChildProcess['stdin'];
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  on(event: 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): unknown;
  on(event: 'error', listener: (e: NodeJS.ErrnoException) => void): unknown;
  on(event: 'spawn', listener: () => void): unknown;
  kill(signal: NodeJS.Signals): boolean;
}

/** The agent as the native forwarder started it; its 'exit' comes through agentExited(). */
export class NativeAgent extends EventEmitter implements AgentProcess {
  readonly stdin = null;
  readonly stdout = null;
  private err: Readable | null = null;
  private exited = false;

  constructor(private readonly fwd: NativeForwarder, readonly pid: number, private readonly stderrFd: number) {
    super();
  }

  /** The agent's stderr pipe, as a stream made on first use (after forwarding started: see lazyRequire). */
  get stderr(): Readable {
    const { Socket } = lazyRequire('node:net') as typeof import('node:net');
    return (this.err ??= new Socket({ fd: this.stderrFd, readable: true, writable: false }));
  }

  /** The native forwarder said the agent exited (its event pipe): 'exit', with Node's arguments. */
  agentExited(): void {
    const status = this.fwd.exitStatus();
    if (!status || this.exited) return;
    this.exited = true;
    const [code, signo] = status;
    const signal = signo === null ? null : (Object.entries(osConstants.signals).find(([, n]) => n === signo)?.[0] as NodeJS.Signals | undefined) ?? null;
    this.emit('exit', code, signal);
  }

  kill(signal: NodeJS.Signals): boolean {
    try {
      process.kill(this.pid, signal);
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * Starts the agent in a session of its own (setsid: Node's `detached`, POSIX_SPAWN_SETSID natively),
 * which makes it the leader of a new process group too. The group is what the tap signals to end the
 * agent and whatever it started; the session keeps the editor's terminal, if any, from signalling the
 * agent directly (a Ctrl-C or hangup reaches it once, passed on by the tap, not twice), as a daemon's
 * children are kept. On the native forwarder's pipes when it is there
 * (its stdin and stdout; stderr a pipe either way), else on three pipes Node makes.
 */
export function spawnAgent(command: string, args: string[], native: { fwd: NativeForwarder; stdin: number; stdout: number } | null): AgentProcess {
  if (native) {
    try {
      const [pid, stderrFd] = native.fwd.spawn(command, args, native.stdin, native.stdout);
      return new NativeAgent(native.fwd, pid, stderrFd);
    } catch { /* Node's spawn tries, and says why it cannot */ }
  }
  const { spawn } = lazyRequire('node:child_process') as typeof import('node:child_process');
  const stdio: StdioOptions = native ? [native.stdin, native.stdout, 'pipe'] : ['pipe', 'pipe', 'pipe'];
  return spawn(command, args, { stdio, detached: true });
}
