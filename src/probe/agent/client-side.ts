/**
 * The probe's answers to the agent's requests, as a plain client would give them: permission by
 * the scenario's policy, `fs/*` and `terminal/*` only when the scenario advertised them (inside the
 * session's folder), -32601 for anything else. It notes every method the agent called.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import type { IncomingRequest, ProbeConnection } from '../connection.js';

/** How the probe answers `session/request_permission`: pick an allow option, a reject one, or keep it pending. */
export type PermissionPolicy = 'allow' | 'reject' | 'hold';

export interface ClientSide {
  /** Methods the agent called, in order. */
  called: string[];
  /** Permission requests kept pending (policy `hold`), oldest first. */
  held: IncomingRequest[];
  permission: PermissionPolicy;
  /** Answers every held permission request `cancelled`. */
  cancelHeld(): void;
  /**
   * The turn of `sessionId` is cancelled: held permission requests of it are answered `cancelled`,
   * and so is every one it still asks, whenever it comes, until the next prompt (`newTurn`): "on
   * cancel of the turn the client must answer with the cancelled outcome" (4.2).
   */
  cancelTurn(sessionId: string): void;
  /** A prompt starts a new turn of `sessionId`: its permission requests are answered by the policy again. */
  newTurn(sessionId: string): void;
  /** Kills and forgets the terminals the agent left. */
  dispose(): void;
}

interface Term { child: ChildProcess; output: string; exit?: { exitCode: number | null; signal: string | null }; limit: number | null; truncated: boolean }

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function optionOf(params: Record<string, unknown>, kinds: string[]): string | undefined {
  const options = Array.isArray(params.options) ? params.options.filter(isObj) : [];
  for (const k of kinds) {
    const o = options.find((x) => typeof x.kind === 'string' && x.kind.startsWith(k));
    if (o && typeof o.optionId === 'string') return o.optionId;
  }
  const first = options[0];
  return first && typeof first.optionId === 'string' ? first.optionId : undefined;
}

export function installClientSide(conn: ProbeConnection, opts: { fs: boolean; terminal: boolean; cwd: string; permission?: PermissionPolicy }): ClientSide {
  const terms = new Map<string, Term>();
  let nextTerm = 1;
  const cancelled = new Set<string>();
  const answerCancelled = (r: IncomingRequest): void => conn.respond(r.id, { outcome: { outcome: 'cancelled' } });
  const side: ClientSide = {
    called: [], held: [], permission: opts.permission ?? 'allow',
    cancelHeld() {
      for (const r of side.held.splice(0)) answerCancelled(r);
    },
    cancelTurn(sessionId) {
      cancelled.add(sessionId);
      const keep = side.held.filter((r) => r.params.sessionId !== sessionId);
      for (const r of side.held) if (r.params.sessionId === sessionId) answerCancelled(r);
      side.held = keep;
    },
    newTurn(sessionId) {
      cancelled.delete(sessionId);
    },
    dispose() {
      for (const t of terms.values()) if (!t.exit) t.child.kill('SIGKILL');
      terms.clear();
    },
  };
  const inside = (p: unknown): string | undefined => {
    if (typeof p !== 'string' || !isAbsolute(p)) return undefined;
    const rel = relative(opts.cwd, p);
    return rel.startsWith('..') || isAbsolute(rel) ? undefined : resolve(p);
  };
  const term = (id: unknown): Term | undefined => (typeof id === 'string' ? terms.get(id) : undefined);
  const append = (t: Term, s: string): void => {
    t.output += s;
    if (t.limit !== null && Buffer.byteLength(t.output) > t.limit) {
      let b = Buffer.from(t.output).subarray(-t.limit);
      while (b.length && (b[0]! & 0xc0) === 0x80) b = b.subarray(1); // cut at a character boundary
      t.output = b.toString('utf8');
      t.truncated = true;
    }
  };
  conn.onRequest = (req) => {
    side.called.push(req.method);
    const p = req.params;
    const notFound = (): void => conn.respondError(req.id, -32601, `Method not found: ${req.method} (not advertised by this client)`);
    if (req.method === 'session/request_permission') {
      if (typeof p.sessionId === 'string' && cancelled.has(p.sessionId)) return answerCancelled(req);
      if (side.permission === 'hold') { side.held.push(req); return; }
      const optionId = optionOf(p, side.permission === 'allow' ? ['allow_once', 'allow'] : ['reject_once', 'reject']);
      conn.respond(req.id, { outcome: optionId === undefined ? { outcome: 'cancelled' } : { outcome: 'selected', optionId } });
      return;
    }
    if (req.method.startsWith('fs/')) {
      if (!opts.fs) return notFound();
      const path = inside(p.path);
      if (!path) return conn.respondError(req.id, -32602, 'path must be absolute and inside the session folder');
      try {
        if (req.method === 'fs/read_text_file') {
          let lines = readFileSync(path, 'utf8').split('\n');
          const line = typeof p.line === 'number' ? p.line : 1;
          lines = lines.slice(Math.max(0, line - 1), typeof p.limit === 'number' ? Math.max(0, line - 1) + p.limit : undefined);
          return conn.respond(req.id, { content: lines.join('\n') });
        }
        if (req.method === 'fs/write_text_file') {
          writeFileSync(path, typeof p.content === 'string' ? p.content : '');
          return conn.respond(req.id, {});
        }
      } catch (e) {
        return conn.respondError(req.id, (e as NodeJS.ErrnoException).code === 'ENOENT' ? -32002 : -32603, (e as Error).message);
      }
      return notFound();
    }
    if (req.method.startsWith('terminal/')) {
      if (!opts.terminal) return notFound();
      if (req.method === 'terminal/create') {
        if (typeof p.command !== 'string') return conn.respondError(req.id, -32602, 'command is required');
        const args = Array.isArray(p.args) ? p.args.map(String) : [];
        const env = { ...process.env };
        if (Array.isArray(p.env)) for (const e of p.env.filter(isObj)) env[String(e.name)] = String(e.value);
        const cwd = inside(p.cwd) ?? opts.cwd;
        const child = spawn(p.command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
        const t: Term = { child, output: '', limit: typeof p.outputByteLimit === 'number' ? p.outputByteLimit : null, truncated: false };
        child.stdout!.on('data', (c: Buffer) => append(t, c.toString('utf8')));
        child.stderr!.on('data', (c: Buffer) => append(t, c.toString('utf8')));
        child.once('error', (e) => { append(t, `${e.message}\n`); t.exit = { exitCode: 127, signal: null }; });
        child.once('close', (code, signal) => { t.exit ??= { exitCode: code, signal }; });
        const id = `probe-term-${nextTerm++}`;
        terms.set(id, t);
        return conn.respond(req.id, { terminalId: id });
      }
      const t = term(p.terminalId);
      if (!t) return conn.respondError(req.id, -32602, 'unknown terminalId');
      if (req.method === 'terminal/output') return conn.respond(req.id, { output: t.output, truncated: t.truncated, exitStatus: t.exit ?? null });
      if (req.method === 'terminal/wait_for_exit') {
        if (t.exit) return conn.respond(req.id, t.exit);
        t.child.once('close', () => conn.respond(req.id, t.exit ?? { exitCode: null, signal: null }));
        return;
      }
      if (req.method === 'terminal/kill') { if (!t.exit) t.child.kill('SIGTERM'); return conn.respond(req.id, {}); }
      if (req.method === 'terminal/release') {
        if (!t.exit) t.child.kill('SIGTERM');
        terms.delete(String(p.terminalId));
        return conn.respond(req.id, {});
      }
      return notFound();
    }
    notFound();
  };
  return side;
}
