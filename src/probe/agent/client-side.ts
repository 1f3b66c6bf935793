/**
 * The probe's answers to the agent's requests, as a plain client would give them: permission by
 * the policy of the scenario that prompted the session (scenarios sharing a process each keep their own), `fs/*` and `terminal/*` only when the scenario advertised them (inside the
 * session's folder), -32601 for anything else. It notes every method the agent called.
 */
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { insideFolder, textLines } from '../../console/files.js';
import { TerminalHost } from '../../console/terminals.js';
import type { IncomingRequest, ProbeConnection } from '../connection.js';

/**
 * How the probe answers `session/request_permission`: pick an allow option, a reject one, or keep it
 * pending. The policy is the session's, set by its prompt (`newTurn`): one asked before a session's
 * first turn (auggie asks whether to index the folder right after `session/new`, and starts no turn
 * until it is answered) is answered as `allow` does, as an editor's user would, so the turn can start.
 */
export type PermissionPolicy = 'allow' | 'reject' | 'hold';

export interface ClientSide {
  /** Methods the agent called, in order. */
  called: string[];
  /** Permission requests kept pending (policy `hold`), oldest first. */
  held: IncomingRequest[];
  /** Answers every held permission request `cancelled`. */
  cancelHeld(): void;
  /**
   * The turn of `sessionId` is cancelled: held permission requests of it are answered `cancelled`,
   * and so is every one it still asks, whenever it comes, until the next prompt (`newTurn`): "on
   * cancel of the turn the client must answer with the cancelled outcome" (4.2).
   */
  cancelTurn(sessionId: string): void;
  /**
   * A prompt starts a new turn of `sessionId`: its permission requests are answered by `policy` (the
   * prompting scenario's) from now on, and no longer `cancelled`.
   */
  newTurn(sessionId: string, policy: PermissionPolicy): void;
  /** Kills and forgets the terminals the agent left. */
  dispose(): void;
}

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

export function installClientSide(conn: ProbeConnection, opts: { fs: boolean; terminal: boolean; cwd: string }): ClientSide {
  const root = realpathSync(opts.cwd);
  const terminals = new TerminalHost(root, 'probe-term');
  const cancelled = new Set<string>();
  /** The policy of each session that has had a prompt. */
  const policies = new Map<string, PermissionPolicy>();
  const answerCancelled = (r: IncomingRequest): void => conn.respond(r.id, { outcome: { outcome: 'cancelled' } });
  const side: ClientSide = {
    called: [], held: [],
    cancelHeld() {
      for (const r of side.held.splice(0)) answerCancelled(r);
    },
    cancelTurn(sessionId) {
      cancelled.add(sessionId);
      const keep = side.held.filter((r) => r.params.sessionId !== sessionId);
      for (const r of side.held) if (r.params.sessionId === sessionId) answerCancelled(r);
      side.held = keep;
    },
    newTurn(sessionId, policy) {
      cancelled.delete(sessionId);
      policies.set(sessionId, policy);
    },
    dispose() {
      terminals.dispose();
    },
  };
  conn.onRequest = (req) => {
    side.called.push(req.method);
    const p = req.params;
    const notFound = (): void => conn.respondError(req.id, -32601, `Method not found: ${req.method} (not advertised by this client)`);
    if (req.method === 'session/request_permission') {
      if (typeof p.sessionId === 'string' && cancelled.has(p.sessionId)) return answerCancelled(req);
      const policy = (typeof p.sessionId === 'string' ? policies.get(p.sessionId) : undefined) ?? 'allow';
      if (policy === 'hold') { side.held.push(req); return; }
      const optionId = optionOf(p, policy === 'reject' ? ['reject_once', 'reject'] : ['allow_once', 'allow']);
      conn.respond(req.id, { outcome: optionId === undefined ? { outcome: 'cancelled' } : { outcome: 'selected', optionId } });
      return;
    }
    if (req.method.startsWith('fs/')) {
      if (!opts.fs) return notFound();
      const path = insideFolder(root, p.path);
      if (!path) return conn.respondError(req.id, -32602, 'path must be absolute and inside the session folder');
      try {
        if (req.method === 'fs/read_text_file') return conn.respond(req.id, { content: textLines(readFileSync(path, 'utf8'), p.line, p.limit) });
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
      return terminals.handle(req.method, p, (r) => ('result' in r ? conn.respond(req.id, r.result) : conn.respondError(req.id, r.error.code, r.error.message)));
    }
    notFound();
  };
  return side;
}
