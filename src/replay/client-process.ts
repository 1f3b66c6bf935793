/**
 * The mock client's IO edge: spawns the agent command, feeds its stdout to a `ClientReplayer`, writes
 * the replayer's frames to its stdin, runs the timeout clock, and at the end closes stdin and stops
 * the agent. Optionally stores the run as a new recording.
 */
import { spawn } from 'node:child_process';
import { LineSplitter } from '../wire/line-splitter.js';
import type { Item, StderrItem, EventItem } from '../wire/frame.js';
import { Correlator } from '../wire/correlate.js';
import type { Recording } from '../transcript/format.js';
import { Store, peerInfoOf } from '../store/store.js';
import { ClientReplayer, type ClientReplayerOptions, type ClientReplayResult } from './client-replayer.js';

export interface ReplayClientRun extends ClientReplayResult {
  /** The live run as items (frames both ways, agent stderr, spawn/exit events), correlated. */
  items: Item[];
  exitCode: number | null;
  exitSignal: string | null;
  /** Set when the agent could not be started. */
  spawnError?: string;
  /** Id of the stored recording when `record` was given. */
  recordingId?: number;
  replayer: ClientReplayer;
}

export interface ReplayClientProcessOptions extends ClientReplayerOptions {
  command: string[];
  /** Diagnostics sink (default: nothing). */
  log?: (text: string) => void;
  /** Where the agent's stderr goes (default: the log, line by line, prefixed). */
  agentStderr?: (line: string) => void;
  /** Extra time to wait for unexpected frames after everything matched (default 150 ms). */
  settleMs?: number;
  env?: NodeJS.ProcessEnv;
  /** Store the run: database path (undefined = default database) and label. */
  record?: { db?: string; name?: string };
}

/** Spawns `opts.command` and drives it with the recorded client side of `recording`. */
export async function runReplayClient(recording: Recording, opts: ReplayClientProcessOptions): Promise<ReplayClientRun> {
  const log = opts.log ?? (() => {});
  const replayer = new ClientReplayer(recording, opts);
  const t0 = performance.now();
  const now = (): number => performance.now() - t0;
  const extraItems: Array<StderrItem | EventItem> = [];
  const startedAt = new Date().toISOString();
  const [cmd, ...args] = opts.command;
  if (!cmd) throw new Error('no agent command given');

  const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
  extraItems.push({ seq: 0, t: now(), dir: 'event', type: 'spawn', data: { command: cmd, args, cwd: opts.cwd ?? process.cwd(), pid: child.pid ?? null } });

  return await new Promise<ReplayClientRun>((resolve) => {
    let finished = false;
    let spawnError: string | undefined;
    let exitCode: number | null = null;
    let exitSignal: string | null = null;
    let timer: NodeJS.Timeout | undefined;
    let settleTimer: NodeJS.Timeout | undefined;
    let exited = false;

    const apply = (effects: ReturnType<ClientReplayer['start']>): void => {
      for (const e of effects) {
        if (e.type === 'log') log(e.text);
        else if (e.type === 'send') {
          if (child.stdin.writable) child.stdin.write(`${e.line}\n`);
        } else if (e.type === 'close') {
          child.stdin.end();
          child.kill();
        }
      }
      check();
    };

    const schedule = (): void => {
      if (timer) clearTimeout(timer);
      if (finished) return;
      const wait = Math.max(10, replayer.nextDeadline() - now() + 5);
      timer = setTimeout(() => apply(replayer.tick(now())), wait);
    };

    const check = (): void => {
      if (finished) return;
      if (replayer.isDone(now())) {
        if (exited || settleTimer) return void (exited && done());
        settleTimer = setTimeout(done, opts.settleMs ?? 150);
        return;
      }
      if (settleTimer) {
        clearTimeout(settleTimer);
        settleTimer = undefined;
      }
      schedule();
    };

    const done = (): void => {
      if (finished) return;
      finished = true;
      if (timer) clearTimeout(timer);
      if (settleTimer) clearTimeout(settleTimer);
      const result = replayer.finish();
      const stop = (): void => {
        const items = buildItems(replayer, extraItems);
        let recordingId: number | undefined;
        if (opts.record) {
          recordingId = storeRun(opts.record, { header: { acpInspect: 'recording', version: 1 }, items }, {
            command: opts.command, cwd: opts.cwd ?? process.cwd(), startedAt, exitCode, exitSignal, pid: child.pid ?? null,
          });
        }
        resolve({ ...result, items, exitCode, exitSignal, spawnError, recordingId, replayer });
      };
      if (exited) return stop();
      // Shutdown as ACP says: close stdin, then terminate.
      child.stdin.end();
      const killTimer = setTimeout(() => child.kill('SIGTERM'), 200);
      const hardTimer = setTimeout(() => { child.kill('SIGKILL'); }, 3000);
      child.once('close', () => {
        clearTimeout(killTimer);
        clearTimeout(hardTimer);
        stop();
      });
    };

    child.once('error', (e) => {
      spawnError = `could not start ${cmd}: ${e.message}`;
      exited = true;
      replayer.agentExited();
      done();
    });
    child.stdin.on('error', () => { /* EPIPE when the agent died: seen as exit */ });
    const out = new LineSplitter();
    child.stdout.on('data', (chunk: Buffer) => {
      for (const line of out.push(chunk)) {
        const t = now();
        apply(replayer.receive(line.toString('utf8'), t, t));
      }
    });
    const errLines = new LineSplitter();
    const onErrLine = (line: string): void => {
      extraItems.push({ seq: 0, t: now(), dir: 'stderr', raw: line });
      (opts.agentStderr ?? ((l: string) => log(`agent: ${l}`)))(line);
    };
    child.stderr.on('data', (chunk: Buffer) => {
      for (const line of errLines.push(chunk)) onErrLine(line.toString('utf8'));
    });
    child.once('close', (code, signal) => {
      const rest = out.end();
      if (rest && !finished) apply(replayer.receive(rest.toString('utf8'), now(), now()));
      const errRest = errLines.end();
      if (errRest) onErrLine(errRest.toString('utf8'));
      exitCode = code;
      exitSignal = signal;
      extraItems.push({ seq: 0, t: now(), dir: 'event', type: 'exit', data: { code, signal } });
      exited = true;
      if (!finished) {
        replayer.agentExited();
        done();
      }
    });
    child.once('spawn', () => apply(replayer.start(now())));
  });
}

/** Merges the live frames with stderr lines and events by time, numbers them and correlates responses. */
function buildItems(replayer: ClientReplayer, extra: Array<StderrItem | EventItem>): Item[] {
  const all: Item[] = [...replayer.liveFrames.map((f) => ({ ...f })), ...extra.map((e) => ({ ...e }))];
  all.sort((a, b) => a.t - b.t);
  const corr = new Correlator();
  all.forEach((it, i) => {
    it.seq = i + 1;
    if (it.dir === 'c2a' || it.dir === 'a2c') {
      delete it.replyTo;
      delete it.latency;
      corr.observe(it);
    }
  });
  return all;
}

function storeRun(target: { db?: string; name?: string }, rec: Recording, meta: {
  command: string[]; cwd: string; startedAt: string; exitCode: number | null; exitSignal: string | null; pid: number | null;
}): number {
  const store = Store.open(target.db);
  try {
    const id = store.createRecording({
      name: target.name ?? `replay of ${meta.command.join(' ')}`.slice(0, 200),
      startedAt: meta.startedAt,
      status: 'running',
      command: meta.command,
      cwd: meta.cwd,
      header: { acpInspect: 'recording', version: 1, replay: true },
    });
    store.appendItems(id, rec.items);
    const info = peerInfoOf(rec.items);
    store.updateRecording(id, {
      status: 'complete',
      ended_at: new Date().toISOString(),
      exit_code: meta.exitCode,
      exit_signal: meta.exitSignal,
      pid: meta.pid,
      client_name: info.clientName ?? null,
      client_version: info.clientVersion ?? null,
      agent_name: info.agentName ?? null,
      agent_version: info.agentVersion ?? null,
      protocol_version: info.protocolVersion ?? null,
    });
    return id;
  } finally {
    store.close();
  }
}
