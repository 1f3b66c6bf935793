/**
 * The console's ACP client: it starts the agent command (given on the command line, and only there)
 * behind the tap, in a process group of its own, so every line both ways is recorded as an ordinary
 * recording, and it is the process writing to the tap's stdin. The page drives it: requests,
 * notifications and raw lines to send, answers to the agent's requests. The client's duties it does
 * itself: `fs/read_text_file` served from the console's folder; `fs/write_text_file` kept waiting
 * with its diff until the page approves (and only inside the folder); terminals refused unless the
 * page switched them on; a turn's cancel answers its waiting permission requests `cancelled`.
 * It never starts anything the page names: no message from the page carries a command.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LineSplitter } from '../wire/line-splitter.js';
import { frameFromBytes, frameFromText } from '../wire/make-frame.js';
import type { Frame, RpcId } from '../wire/frame.js';
import { M } from '../spec/methods.js';
import { insideFolder, textLines } from './files.js';
import { TerminalHost } from './terminals.js';
import { ClientReplayer } from '../replay/client-replayer.js';
import type { Effect } from '../replay/agent-replayer.js';
import type { Recording } from '../transcript/format.js';
import { CONSOLE_KEPT_BYTES, CONSOLE_KEPT_FRAMES, CONSOLE_RAW_LIMIT, CONSOLE_TERMINAL_KEPT, CONSOLE_TERMINALS_KEPT, type TerminalView, type PermissionPolicy, type ConsoleEvent, type ConsoleFrame, type ConsoleSnapshot, type ConsoleStatus, type PendingRequest, type TerminalAuthMethod } from './contract.js';
import { makeDirs } from '../store/paths.js';

export interface ConsoleOptions {
  /** The agent command and its arguments. */
  command: string[];
  /** The folder the agent runs in and file requests are kept inside. */
  cwd: string;
  dbPath: string;
  /** The recording's name (default "console"). */
  name?: string;
}

/** The answer the page gives to a waiting request. */
export type ConsoleAnswer =
  | { optionId: string }
  | { cancelled: true }
  | { approve: boolean }
  | { result: unknown }
  | { error: { code: number; message: string; data?: unknown } };

export class ConsoleError extends Error {
  constructor(readonly status: 400 | 404 | 409 | 413, message: string) {
    super(message);
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const NOTHING_ADVERTISED: ConsoleStatus['advertised'] = { readTextFile: false, writeTextFile: false, terminal: false, authTerminal: false };
/** How much of a terminal auth method's output (when not run in the console's terminal) is kept to show. */
const AUTH_OUTPUT_KEPT = 8 * 1024;

/** The CLI that runs the tap: this package's own bin. */
const BIN = fileURLToPath(new URL('../../../bin/acp-inspect.js', import.meta.url));

/** How long a closing agent gets after its stdin closes, then after SIGTERM, before SIGKILL. */
const EOF_GRACE_MS = 1500;
const TERM_GRACE_MS = 4000;

export class ConsoleSession {
  private readonly root: string;
  private child: ChildProcess | null = null;
  private status: ConsoleStatus;
  private nextId = 1;
  private n = 0;
  private readonly frames: ConsoleFrame[] = [];
  /** Characters of raw text in `frames`. */
  private keptBytes = 0;
  private readonly notices: Extract<ConsoleEvent, { type: 'notice' }>[] = [];
  private readonly pending = new Map<string, PendingRequest>();
  /** The methods of the requests the console sent that wait for their answer, by the JSON of their id. */
  private readonly asked = new Map<string, string>();
  private readonly listeners = new Set<(ev: ConsoleEvent) => void>();
  private exited: Promise<void> = Promise.resolve();
  private terminals: TerminalHost | null = null;
  /** The terminals of this run as the page sees them, and their output not yet sent to it (sent a few times a second). */
  private readonly termViews = new Map<string, TerminalView>();
  private readonly termUnsent = new Map<string, string>();
  private readonly termExitSent = new Set<string>();
  private termFlush: NodeJS.Timeout | null = null;
  /** A terminal auth method running now, and whether the page cancelled it. */
  private authChild: ChildProcess | null = null;
  private authCancelled = false;
  /** While a fork replays the recording's client side: the agent's lines go to it, not to the user. */
  private replaying: { replayer: ClientReplayer; t0: number; timer: NodeJS.Timeout; sent: number } | null = null;

  /** The recording a tap with this pid writes (the server sets it: see attach). */
  private findRecording: (pid: number) => number | null = () => null;

  constructor(private readonly opts: ConsoleOptions) {
    this.root = realpathSync(opts.cwd);
    this.status = {
      command: opts.command, cwd: this.root, run: 0, state: 'exited', exitCode: null, signal: null, recordingId: null, terminals: false, permissions: 'ask', fork: null,
      advertised: { ...NOTHING_ADVERTISED }, terminalAuth: [], authRun: null, tty: process.stdin.isTTY === true,
    };
  }

  /** The folder (a real path) the agent runs in and files are kept inside. */
  get folder(): string {
    return this.root;
  }

  /** How to find the recording a tap makes (by its pid), in the server's store. */
  attach(find: (pid: number) => number | null): void {
    this.findRecording = find;
  }

  /** Starts the agent behind the tap (again, for a reconnect: the previous one is ended first). */
  async start(): Promise<void> {
    await this.stop();
    this.pending.clear();
    this.asked.clear();
    this.frames.length = 0;
    this.keptBytes = 0;
    this.n = 0;
    if (this.replaying) clearInterval(this.replaying.timer);
    this.replaying = null;
    this.status = { ...this.status, run: this.status.run + 1, state: 'running', exitCode: null, signal: null, recordingId: null, fork: null, advertised: { ...NOTHING_ADVERTISED }, terminalAuth: [] };
    const run = this.status.run;
    // detached: the tap leads a process group of its own (and puts the agent in another), so ending
    // the console ends the group, never an unrelated process.
    const child = spawn(process.execPath, [BIN, 'tap', '--db', this.opts.dbPath, '--name', this.opts.name ?? 'console', '--', ...this.opts.command], {
      cwd: this.root, stdio: ['pipe', 'pipe', 'inherit'], detached: true,
    });
    this.child = child;
    this.termViews.clear();
    this.termUnsent.clear();
    this.termExitSent.clear();
    this.terminals = new TerminalHost(this.root, 'term', undefined, {
      output: (id, text) => this.terminalOutput(run, id, text),
      exit: (id, exit) => this.terminalOutput(run, id, '', exit),
    });
    child.stdin!.on('error', () => { /* the tap is gone: its exit says so */ });
    const lines = new LineSplitter();
    child.stdout!.on('data', (chunk: Buffer) => {
      for (const line of lines.push(chunk)) this.received(run, frameFromBytes(0, 0, 'a2c', line));
    });
    this.exited = new Promise<void>((resolve) => {
      child.once('error', (e) => {
        this.notice('error', `cannot start the tap: ${e.message}`);
        this.ended(run, 127, null);
        resolve();
      });
      child.once('exit', (code, signal) => {
        this.ended(run, code, signal);
        resolve();
      });
    });
    this.emitStatus();
    this.lookForRecording(run, child.pid);
  }

  /** Finds the recording the tap made (it names its pid), polling until it is there or the tap ended. */
  private lookForRecording(run: number, pid: number | undefined): void {
    if (pid === undefined) return;
    const look = (): void => {
      if (run !== this.status.run || this.status.recordingId !== null) return;
      let id: number | null = null;
      try { id = this.findRecording(pid); } catch { /* locked: next time */ }
      if (id !== null) {
        this.status = { ...this.status, recordingId: id };
        this.emitStatus();
      } else if (this.status.state === 'running') setTimeout(look, 100).unref();
    };
    look();
  }

  private ended(run: number, code: number | null, signal: NodeJS.Signals | null): void {
    if (run !== this.status.run || this.status.state === 'exited') return;
    this.terminals?.dispose();
    if (this.replaying) {
      this.replaying.replayer.agentExited();
      this.replayDone(run);
    }
    this.status = { ...this.status, state: 'exited', exitCode: code, signal };
    if (this.pending.size) {
      this.pending.clear();
      this.emit({ type: 'pending', pending: [] });
    }
    // The recording's row may come after a very short run: look once more.
    if (this.status.recordingId === null && this.child?.pid !== undefined) {
      try { this.status.recordingId = this.findRecording(this.child.pid); } catch { /* not there */ }
    }
    this.emitStatus();
  }

  /**
   * Ends the agent: its stdin closed first (ACP's shutdown), then SIGTERM to the tap's group (the
   * tap passes it on to the agent's), then SIGKILL. Resolves when the tap has exited.
   */
  async stop(): Promise<void> {
    if (this.authChild) signalGroup(this.authChild, 'SIGKILL');
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return this.exited;
    const gone = this.exited;
    const within = (ms: number) => Promise.race([gone.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
    child.stdin!.end();
    if (await within(EOF_GRACE_MS)) return gone;
    signalGroup(child, 'SIGTERM');
    if (await within(TERM_GRACE_MS)) return gone;
    signalGroup(child, 'SIGKILL');
    return gone;
  }

  snapshot(): ConsoleSnapshot {
    return { status: this.status, pending: [...this.pending.values()], frames: [...this.frames], notices: [...this.notices], terminals: [...this.termViews.values()].map((v) => ({ ...v })) };
  }

  /**
   * A terminal's output as it comes: gathered, then sent to the page a few times a second (at once
   * with its exit), so a command that prints fast does not make an event per chunk. What the page
   * was sent is what the snapshot holds (the last CONSOLE_TERMINAL_KEPT characters).
   */
  private terminalOutput(run: number, id: string, text: string, exit?: TerminalView['exit']): void {
    if (run !== this.status.run) return;
    if (!this.termViews.has(id)) {
      this.termViews.set(id, { terminalId: id, output: '', truncated: false, exit: null });
      if (this.termViews.size > CONSOLE_TERMINALS_KEPT) {
        const oldest = this.termViews.keys().next().value!;
        this.termViews.delete(oldest);
        this.termUnsent.delete(oldest);
        this.termExitSent.delete(oldest);
      }
    }
    if (text) this.termUnsent.set(id, ((this.termUnsent.get(id) ?? '') + text).slice(-CONSOLE_TERMINAL_KEPT));
    if (exit) this.termViews.get(id)!.exit = exit;
    if (exit) this.flushTerminals(run);
    else this.termFlush ??= setTimeout(() => this.flushTerminals(run), 100);
  }

  private flushTerminals(run: number): void {
    if (this.termFlush) clearTimeout(this.termFlush);
    this.termFlush = null;
    if (run !== this.status.run) return;
    for (const [id, v] of this.termViews) {
      const append = this.termUnsent.get(id) ?? '';
      this.termUnsent.delete(id);
      const sendExit = v.exit !== null && !this.termExitSent.has(id);
      if (!append && !sendExit) continue;
      const all = v.output + append;
      if (all.length > CONSOLE_TERMINAL_KEPT) v.truncated = true;
      v.output = all.slice(-CONSOLE_TERMINAL_KEPT);
      if (sendExit) this.termExitSent.add(id);
      this.emit({ type: 'terminal', run, terminalId: id, append, truncated: v.truncated, exit: v.exit });
    }
  }

  subscribe(fn: (ev: ConsoleEvent) => void): () => void {
    this.listeners.add(fn);
    return () => { this.listeners.delete(fn); };
  }

  private emit(ev: ConsoleEvent): void {
    for (const l of this.listeners) {
      try { l(ev); } catch { /* a closed stream unsubscribes itself */ }
    }
  }

  private emitStatus(): void {
    this.emit({ type: 'status', status: this.status });
  }

  private notice(level: 'info' | 'error', text: string): void {
    const ev = { type: 'notice' as const, level, text, at: Date.now() };
    this.notices.push(ev);
    if (this.notices.length > 200) this.notices.shift();
    this.emit(ev);
  }

  private keep(run: number, f: Frame): void {
    const cut = f.raw.length > CONSOLE_RAW_LIMIT;
    const ev: ConsoleFrame = {
      type: 'frame', n: ++this.n, run, dir: f.dir, at: Date.now(), raw: cut ? `${f.raw.slice(0, CONSOLE_RAW_LIMIT)}…` : f.raw, kind: f.kind,
      ...(f.method !== undefined ? { method: f.method } : {}), ...(f.id !== undefined ? { id: f.id } : {}),
      ...(f.json !== undefined && !cut ? { json: f.json } : {}), ...(f.parseError !== undefined ? { parseError: f.parseError } : {}),
    };
    this.frames.push(ev);
    this.keptBytes += ev.raw.length;
    let drop = 0;
    while (this.frames.length - drop > CONSOLE_KEPT_FRAMES || (this.keptBytes > CONSOLE_KEPT_BYTES && drop < this.frames.length - 1)) this.keptBytes -= this.frames[drop++]!.raw.length;
    if (drop) this.frames.splice(0, drop);
    this.emit(ev);
  }

  /**
   * Fork from frame `upTo` of `recording` (its items up to that frame): a fresh agent process, the
   * recording's client frames replayed to it in causal order (the agent's requests answered with the
   * recorded answers, ids, sessions and paths under the recorded cwd mapped to this run's), then the
   * console takes over, with the session as the replay left it.
   */
  async fork(recordingId: number, upTo: number, recording: Recording): Promise<void> {
    await this.start();
    const run = this.status.run;
    const replayer = new ClientReplayer(recording, { cwd: this.root, timeoutMs: 10_000 });
    const t0 = Date.now();
    const timer = setInterval(() => {
      if (this.replaying?.replayer !== replayer) return;
      this.applyReplay(replayer.tick(Date.now() - t0));
      this.replayDone(run);
    }, 200);
    timer.unref();
    this.replaying = { replayer, t0, timer, sent: 0 };
    this.status = { ...this.status, fork: { recordingId, seq: upTo, state: 'replaying', sent: 0, divergences: null, ended: null } };
    this.emitStatus();
    this.notice('info', `forking recording ${recordingId} at #${upTo}: replaying its client side`);
    this.applyReplay(replayer.start(0));
    this.replayDone(run);
  }

  private applyReplay(effects: Effect[]): void {
    for (const e of effects) {
      if (e.type === 'send') {
        this.replaying!.sent++;
        try { this.write(e.line); } catch { /* the agent ended: its exit ends the replay */ }
      } else if (e.type === 'log') this.notice('info', e.text.replace(/^replay: /, 'fork: '));
    }
  }

  /** Hands the session to the user once the replay has nothing more to send or wait for. */
  private replayDone(run: number): void {
    const r = this.replaying;
    if (!r || run !== this.status.run || !r.replayer.isDone(Date.now() - r.t0)) return;
    clearInterval(r.timer);
    this.replaying = null;
    const result = r.replayer.finish();
    // The console's own ids follow the replayed ones (an id used again in a session is a finding).
    for (const f of r.replayer.liveFrames) if (f.dir === 'c2a' && typeof f.id === 'number' && f.id >= this.nextId) this.nextId = f.id + 1;
    const fork = this.status.fork && { ...this.status.fork, state: 'done' as const, sent: r.sent, divergences: result.divergences.length, ended: result.ended };
    this.status = { ...this.status, fork };
    this.notice(result.divergences.length ? 'error' : 'info', `fork: replayed ${r.sent} client frame${r.sent === 1 ? '' : 's'} (${result.ended}), ${result.divergences.length} difference${result.divergences.length === 1 ? '' : 's'} from the recording; the console has the session now`);
    this.emitStatus();
  }

  // ---- what the page sends ------------------------------------------------------------------

  private write(line: string): Frame {
    const child = this.child;
    if (!child || this.status.state !== 'running') throw new ConsoleError(409, 'the agent is not running; reconnect to start it again');
    const f = frameFromText(0, 0, 'c2a', line);
    child.stdin!.write(`${line}\n`);
    if (f.kind === 'request' && f.method !== undefined) this.asked.set(JSON.stringify(f.id ?? null), f.method);
    this.keep(this.status.run, f);
    this.sent(f);
    return f;
  }

  /** Sends a request with the console's next id; returns that id (the answer comes as a frame). */
  request(method: string, params: unknown): number {
    if (typeof method !== 'string' || method === '') throw new ConsoleError(400, 'a request needs a method');
    const id = this.nextId++;
    this.write(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
    return id;
  }

  /** An id the console's own requests will never use (for a request written by hand). */
  reserveId(): number {
    return this.nextId++;
  }

  notify(method: string, params: unknown): void {
    if (typeof method !== 'string' || method === '') throw new ConsoleError(400, 'a notification needs a method');
    this.write(JSON.stringify({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) }));
  }

  /**
   * Sends a line as it is, valid or not. JSON written over several lines goes as one line (a frame
   * is one line); text that is not JSON must be one line already.
   */
  raw(text: string): void {
    if (typeof text !== 'string') throw new ConsoleError(400, 'raw needs "text", the line to send');
    let line = text;
    if (/[\r\n]/.test(text.replace(/[\r\n]+$/, ''))) {
      try {
        line = JSON.stringify(JSON.parse(text));
      } catch {
        throw new ConsoleError(400, 'a frame is one line: this text is not JSON and has line breaks; put it on one line');
      }
    } else line = text.replace(/[\r\n]+$/, '');
    this.write(line);
  }

  /** What the console itself does about a line it sent: the capabilities it advertised, a cancel's duty. */
  private sent(f: Frame): void {
    const j = isObj(f.json) ? f.json : undefined;
    const params = j && isObj(j.params) ? j.params : {};
    if (f.kind === 'request' && f.method === M.initialize) {
      const caps = isObj(params.clientCapabilities) ? params.clientCapabilities : {};
      const fs = isObj(caps.fs) ? caps.fs : {};
      const auth = isObj(caps.auth) ? caps.auth : {};
      this.status = { ...this.status, advertised: { readTextFile: fs.readTextFile === true, writeTextFile: fs.writeTextFile === true, terminal: caps.terminal === true, authTerminal: auth.terminal === true }, terminalAuth: [] };
      this.emitStatus();
    } else if (f.kind === 'notification' && f.method === M.cancel) {
      // The client must answer the turn's waiting permission requests with the cancelled outcome.
      for (const p of [...this.pending.values()]) {
        if (p.method === M.requestPermission && isObj(p.params) && p.params.sessionId === params.sessionId) {
          this.respond(p, { result: { outcome: { outcome: 'cancelled' } } });
        }
      }
    }
  }

  /** Switches running terminal commands the agent asks for on or off. */
  setTerminals(on: boolean): void {
    this.status = { ...this.status, terminals: on === true };
    if (!this.status.terminals) this.terminals?.dispose();
    this.emitStatus();
  }

  /** How permission requests are answered from now on (see ConsoleStatus.permissions). */
  setPermissions(policy: PermissionPolicy): void {
    if (policy !== 'ask' && policy !== 'allow' && policy !== 'reject') throw new ConsoleError(400, 'the permission policy is "ask", "allow" or "reject"');
    this.status = { ...this.status, permissions: policy };
    this.emitStatus();
  }

  /** Answers a waiting request of the agent. */
  answer(key: string, a: ConsoleAnswer): void {
    const p = this.pending.get(key);
    if (!p) throw new ConsoleError(404, `no request of the agent with id ${key} is waiting`);
    if ('optionId' in a) {
      if (p.method !== M.requestPermission) throw new ConsoleError(400, `${p.method} is not a permission request`);
      this.respond(p, { result: { outcome: { outcome: 'selected', optionId: a.optionId } } });
    } else if ('cancelled' in a) {
      this.respond(p, p.method === M.requestPermission ? { result: { outcome: { outcome: 'cancelled' } } } : { error: { code: -32800, message: 'Request cancelled' } });
    } else if ('approve' in a) {
      if (!p.write) throw new ConsoleError(400, `${p.method} is not a file write`);
      if (!a.approve) {
        this.respond(p, { error: { code: -32000, message: 'The user declined the write' } });
        return;
      }
      // Checked again now: the folder may have changed while the request waited.
      const path = insideFolder(this.root, p.write.path);
      if (!path) {
        this.respond(p, { error: { code: -32602, message: `${p.write.path} is outside the console's folder ${this.root}` } });
        return;
      }
      try {
        makeDirs(dirname(path));
        writeFileSync(path, p.write.newText);
      } catch (e) {
        this.respond(p, { error: { code: -32603, message: `cannot write ${p.write.path}: ${(e as Error).message}` } });
        return;
      }
      this.notice('info', `wrote ${p.write.path}`);
      this.respond(p, { result: {} });
    } else if ('result' in a) {
      this.respond(p, { result: a.result });
    } else if ('error' in a && isObj(a.error) && typeof a.error.code === 'number' && typeof a.error.message === 'string') {
      this.respond(p, { error: a.error });
    } else throw new ConsoleError(400, 'an answer is {optionId}, {cancelled: true}, {approve: true|false}, {result} or {error: {code, message}}');
  }

  private respond(p: { key: string; id: RpcId }, body: { result: unknown } | { error: unknown }): void {
    if (this.pending.delete(p.key)) this.emit({ type: 'pending', pending: [...this.pending.values()] });
    this.write(JSON.stringify({ jsonrpc: '2.0', id: p.id, ...body }));
  }

  // ---- what the agent sends -------------------------------------------------------------------

  private received(run: number, f: Frame): void {
    if (run !== this.status.run) return;
    if ((f.kind === 'result' || f.kind === 'error') && f.method === undefined) {
      // The page reads an answer with the method of its request.
      const key = JSON.stringify(f.id ?? null);
      const method = this.asked.get(key);
      if (method !== undefined) {
        f.method = method;
        this.asked.delete(key);
      }
    }
    this.keep(run, f);
    if (f.kind === 'result' && f.method === M.initialize) this.readAuthMethods(f);
    const r = this.replaying;
    if (r) {
      const now = Date.now() - r.t0;
      this.applyReplay(r.replayer.receive(f.raw, now, now));
      this.replayDone(run);
      return;
    }
    const j = isObj(f.json) ? f.json : undefined;
    if (f.kind === 'notification' && f.method === M.cancelRequest && j && isObj(j.params)) {
      // The agent gave up on a request: it waits no more.
      const key = JSON.stringify(j.params.requestId);
      const p = this.pending.get(key);
      if (p) this.respond(p, { error: { code: -32800, message: 'Request cancelled' } });
      return;
    }
    if (f.kind !== 'request' || f.method === undefined || !j) return;
    const req = { key: JSON.stringify(f.id ?? null), id: f.id ?? null, method: f.method, params: j.params };
    const params = isObj(j.params) ? j.params : {};
    const adv = this.status.advertised;
    const refuse = (code: number, message: string) => this.respond(req, { error: { code, message } });
    try {
      if (f.method === M.readTextFile) {
        if (!adv.readTextFile) return refuse(-32601, `Method not found: ${f.method} (this console did not advertise fs.readTextFile)`);
        const path = insideFolder(this.root, params.path);
        if (!path) {
          this.notice('error', `refused to read ${String(params.path)}: not an absolute path inside ${this.root}`);
          return refuse(-32602, `path must be absolute and inside the console's folder ${this.root}`);
        }
        let text: string;
        try {
          text = readFileSync(path, 'utf8');
        } catch (e) {
          return refuse((e as NodeJS.ErrnoException).code === 'ENOENT' ? -32002 : -32603, `cannot read ${String(params.path)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
        }
        this.notice('info', `served a read of ${String(params.path)}${params.line != null || params.limit != null ? ` (line ${String(params.line ?? 1)}, limit ${String(params.limit ?? 'none')})` : ''}`);
        return this.respond(req, { result: { content: textLines(text, params.line, params.limit) } });
      }
      if (f.method === M.writeTextFile) {
        if (!adv.writeTextFile) return refuse(-32601, `Method not found: ${f.method} (this console did not advertise fs.writeTextFile)`);
        const path = insideFolder(this.root, params.path);
        if (!path || typeof params.content !== 'string') {
          this.notice('error', `refused to write ${String(params.path)}: ${path ? 'no content string' : `not an absolute path inside ${this.root}`}`);
          return refuse(-32602, path ? 'content must be a string' : `path must be absolute and inside the console's folder ${this.root}`);
        }
        let oldText: string | null = null;
        try { oldText = readFileSync(path, 'utf8'); } catch { /* a new file */ }
        return this.wait({ ...req, receivedAt: Date.now(), write: { path: String(params.path), oldText, newText: params.content } });
      }
      if (f.method.startsWith('terminal/')) {
        if (!adv.terminal) return refuse(-32601, `Method not found: ${f.method} (this console did not advertise terminal)`);
        if (!this.status.terminals) return refuse(-32601, `terminals are off in this console: ${f.method} was not run (switch them on in the console to let the agent run commands)`);
        return this.terminals!.handle(f.method, params, (body) => this.respond(req, body));
      }
    } catch (e) {
      return refuse(-32603, (e as Error).message);
    }
    if (f.method === M.requestPermission && this.status.permissions !== 'ask') {
      const kind = this.status.permissions === 'allow' ? 'allow' : 'reject';
      const options = Array.isArray(params.options) ? params.options.filter(isObj) : [];
      const option = options.find((o) => typeof o.kind === 'string' && o.kind.startsWith(kind) && typeof o.optionId === 'string');
      if (option) {
        this.notice('info', `answered a permission request with "${String(option.name ?? option.optionId)}" (the console's policy: ${kind})`);
        return this.respond(req, { result: { outcome: { outcome: 'selected', optionId: option.optionId } } });
      }
    }
    // Everything else (permission requests, elicitations, extension methods) waits for the user.
    this.wait({ ...req, receivedAt: Date.now() });
  }

  /**
   * The terminal auth methods of the agent's answer to initialize, with what running each would run:
   * this console's agent command (from its command line), the method's string `args` appended, and
   * its `env` of string values over this environment. A method with anything else is left out.
   */
  private readAuthMethods(f: Frame): void {
    const j = isObj(f.json) && isObj(f.json.result) ? f.json.result : {};
    const methods = Array.isArray(j.authMethods) ? j.authMethods.filter(isObj) : [];
    const list: TerminalAuthMethod[] = [];
    for (const m of methods) {
      if (m.type !== 'terminal' || typeof m.id !== 'string') continue;
      const args = m.args ?? [];
      const env = m.env ?? {};
      if (!Array.isArray(args) || !args.every((a) => typeof a === 'string') || !isObj(env) || !Object.entries(env).every(([k, v]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) && typeof v === 'string')) {
        this.notice('error', `the agent's terminal auth method ${m.id} has args or env that are not strings: it is not offered`);
        continue;
      }
      list.push({ id: m.id, name: typeof m.name === 'string' ? m.name : m.id, description: typeof m.description === 'string' ? m.description : null, command: [...this.opts.command, ...(args as string[])], env: env as Record<string, string> });
    }
    this.status = { ...this.status, terminalAuth: list };
    this.emitStatus();
  }

  /**
   * Runs a terminal auth method of the agent's last initialize answer, once the page confirmed
   * exactly what runs (`shown`: the command and env it showed, compared with what would run). Only
   * when the console's initialize advertised auth.terminal. It runs in the console's folder, in a
   * process group of its own: in the console's terminal when it has one (so the user can type), else
   * with no input and its output shown. Exit 0 is success; the method never goes to `authenticate`.
   */
  runTerminalAuth(methodId: unknown, shown: unknown): void {
    if (!this.status.advertised.authTerminal) throw new ConsoleError(409, 'this console did not advertise auth.terminal in its initialize: tick auth.terminal and initialize again');
    const m = this.status.terminalAuth.find((x) => x.id === methodId);
    if (!m) throw new ConsoleError(404, `the agent's answer to initialize lists no terminal auth method ${JSON.stringify(methodId)}`);
    if (!isObj(shown) || JSON.stringify(shown.command) !== JSON.stringify(m.command) || JSON.stringify(shown.env) !== JSON.stringify(m.env)) {
      throw new ConsoleError(409, 'what was confirmed is not what would run: confirm the command shown for this method again');
    }
    if (this.authChild) throw new ConsoleError(409, 'a terminal auth method is running already: wait for it to end');
    const tty = this.status.tty;
    const child = spawn(m.command[0]!, m.command.slice(1), { cwd: this.root, env: { ...process.env, ...m.env }, detached: true, stdio: tty ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    this.authChild = child;
    this.authCancelled = false;
    let out = '';
    const keep = (c: Buffer) => { out = (out + c.toString('utf8')).slice(-AUTH_OUTPUT_KEPT); };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.status = { ...this.status, authRun: { methodId: m.id, state: 'running', exitCode: null, signal: null, cancelled: false } };
    this.notice('info', `running the terminal auth method "${m.name}": ${m.command.join(' ')}${tty ? " (in the console's terminal)" : ''}`);
    this.emitStatus();
    let done = false;
    const end = (code: number | null, signal: string | null, why?: string) => {
      if (done) return;
      done = true;
      this.authChild = null;
      const cancelled = this.authCancelled;
      this.status = { ...this.status, authRun: { methodId: m.id, state: 'done', exitCode: code, signal, cancelled } };
      const ok = code === 0 && !cancelled;
      const how = why ?? (cancelled ? `was cancelled (its process group ended${signal ? ` by ${signal}` : ''})` : signal ? `ended by ${signal}` : `exited ${code}`);
      this.notice(ok ? 'info' : 'error', `terminal auth method "${m.name}" ${how}: ${ok ? 'authenticated' : cancelled ? 'not authenticated' : 'failed'}${out.trim() ? `; it said: ${out.trim()}` : ''}`);
      this.emitStatus();
    };
    child.once('error', (e) => end(127, null, `could not start (${e.message})`));
    child.once('close', (code, signal) => end(code, signal));
  }

  /**
   * Ends the running terminal auth method from the page: SIGTERM to its process group, SIGKILL if
   * it is still there after a grace period. Its end is reported as cancelled (never authenticated).
   */
  cancelTerminalAuth(): void {
    const child = this.authChild;
    if (!child) throw new ConsoleError(409, 'no terminal auth method is running');
    this.authCancelled = true;
    this.notice('info', 'cancelling the terminal auth method: ending its process group');
    signalGroup(child, 'SIGTERM');
    setTimeout(() => { if (this.authChild === child) signalGroup(child, 'SIGKILL'); }, TERM_GRACE_MS).unref();
  }

  private wait(p: PendingRequest): void {
    this.pending.set(p.key, p);
    this.emit({ type: 'pending', pending: [...this.pending.values()] });
  }
}

function signalGroup(child: ChildProcess, sig: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, sig);
  } catch { /* already gone */ }
}
