/** Starts `acp-inspect console` as the user would (the real binary, its own process group) and reads the URL it prints. */
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN } from '../helpers.js';

export interface RunningConsole {
  child: ChildProcess;
  url: string;
  origin: string;
  token: string;
  stderr: () => string;
  /** GET/POST on the console's API with the token. */
  api<T = unknown>(path: string, body?: unknown, init?: RequestInit): Promise<{ status: number; json: T }>;
  /** Ends it with SIGTERM (as Ctrl-C would) and waits for its exit code. */
  stop(): Promise<number | null>;
}

export async function startConsole(args: string[], env?: NodeJS.ProcessEnv): Promise<RunningConsole> {
  const child = spawn(process.execPath, [BIN, 'console', '--no-open', '--port', '0', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the console printed no URL in 20 s; stderr: ${err}`)), 20_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^(http:\/\/\S+)\n/m.exec(out);
      if (m) { clearTimeout(timer); resolve(m[1]!); }
    });
    void exited.then((code) => { clearTimeout(timer); reject(new Error(`the console exited (${code}) before printing its URL; stderr: ${err}`)); });
  });
  const u = new URL(url);
  const token = u.searchParams.get('token')!;
  return {
    child, url, origin: u.origin, token, stderr: () => err,
    async api<T>(path: string, body?: unknown, init: RequestInit = {}) {
      const res = await fetch(`${u.origin}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        ...init,
        headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...(init.headers as Record<string, string> | undefined) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, json: (await res.json().catch(() => null)) as T };
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
