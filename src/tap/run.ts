/**
 * The tap: spawns the agent in a session (and so a process group) of its own (see spawnAgent) and
 * forwards bytes in both directions unchanged and at once, appending a copy of each chunk to the
 * recording's capture log (capture-log.ts) beside the database; forwarding never parses, never
 * touches SQLite and never waits for the recorder, which indexes the log on its own time (see
 * recorder/index.ts).
 *
 * Two forwarders. The native one (native/forward.c, built on install) also starts the agent (see
 * agent.ts): the agent gets two pipes and a thread per direction moves bytes with read() and write(),
 * as a `cat` does, appending each chunk to the log before writing it on; JavaScript only sees the
 * agent's stderr and the control records. Where it is not built, Node's spawn starts the agent and
 * this thread forwards with Node's streams (forwardInJs): each chunk is written on first and only
 * then appended to the log.
 *
 * Backpressure is per direction: when a destination is full, only that direction waits until it
 * drains, so a slow reader makes the writer wait (as a direct pipe would) instead of growing memory.
 *
 * The tap exits with its agent: once the agent's output is handed to the client, it gives its
 * recorder FINISH_WAIT_MS to finish the recording, leaves the rest to a detached indexer, and ends
 * as the agent ended (its exit code, or its signal).
 */
import type { ChildProcess } from 'node:child_process';
import { fstatSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Socket as SocketType } from 'node:net';
import { constants as osConstants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { parseTapArgs, type TapOptions } from './args.js';
import { isRemoteTarget } from '../remote/headers.js';
import { RecorderClient, type OpenCaptureLog } from './recorder-client.js';
import { notRecording, openCaptureLog, recorderConfig } from './recording-setup.js';
import { startDetachedIndexer } from './detached-indexer.js';
import { onOrphanedCaptures } from '../store/orphans.js';
import { NATIVE_A2C_ENDED, NATIVE_CLIENT_BROKEN, NATIVE_EV_A2C_END, NATIVE_EV_EXIT, NATIVE_WRITING_TO_CLIENT, loadNativeForwarder, type NativeForwarder } from './native.js';
import { NativeAgent, lazyRequire, spawnAgent, type AgentProcess } from './agent.js';
import { A2C, C2A, STDERR, type StreamCode } from './messages.js';
import { capturesDir, defaultDbPath } from '../store/paths.js';
import { processStartId } from '../store/process-id.js';
import { spawnFailure } from '../wire/spawn-failure.js';

/**
 * The tap's clock: monotonic milliseconds since it started. From process.hrtime, not performance
 * (whose module costs the start-up a millisecond or two); the native forwarder is given the offset
 * to its own clock.
 */
const hrMs = () => {
  const [s, ns] = process.hrtime();
  return s * 1e3 + ns / 1e6;
};
const t0 = hrMs();
/** When the tap started (as a date only once the agent runs: the first date costs V8 its time zone, 0.3-0.8 ms). */
const startedMs = Date.now();
const now = () => hrMs() - t0;

/**
 * How long the tap's exit waits for its recorder to finish the recording (ACP_INSPECT_FINISH_WAIT_MS
 * sets it): what is left then is indexed by a detached indexer, so the tap exits within about this
 * long of its agent, however much is left.
 */
const FINISH_WAIT_MS = 50;

/** node:net, required when first needed (see lazyRequire). */
const net = () => lazyRequire('node:net') as typeof import('node:net');

/** The tap's own messages: stderr only, one line each. */
function say(msg: string): void {
  toStderr(msg.endsWith('\n') ? msg : `${msg}\n`);
}

/**
 * How much of the agent's stderr and our messages may wait for a client that reads our stderr
 * slowly or never. Past it, what does not fit is not forwarded (it is still recorded, and the
 * recording says how much was left out): waiting for such a client would stop the agent in its
 * next write to stderr, and with it the session and its recording.
 */
const STDERR_QUEUE_BYTES = 1024 * 1024;
/** Bytes of the agent's stderr and our messages the client's stderr did not take (see STDERR_QUEUE_BYTES). */
let stderrDropped = 0;

function toStderr(chunk: Buffer | string): void {
  if (process.stderr.writableLength > STDERR_QUEUE_BYTES) stderrDropped += chunk.length;
  else process.stderr.write(chunk);
}

/**
 * Our stdout as a non-blocking stream. Node makes stdout pipes blocking on Linux, which would let a
 * client that stops reading freeze the whole tap (both directions); a socket over fd 1 blocks only
 * the agent→client direction, through backpressure.
 */
function openStdout(): Writable {
  try {
    const st = fstatSync(1);
    if (st.isFIFO() || st.isSocket()) return new (net().Socket)({ fd: 1, readable: false, writable: true });
  } catch { /* fall back */ }
  return process.stdout;
}

/** Pipes `src` into `dst` by hand: write first, then record; pause on backpressure. */
function forward(src: Readable, dst: Writable, code: StreamCode, rec: RecorderClient, state: { dstBroken: boolean }): void {
  src.on('data', (chunk: Buffer) => {
    const t = now();
    if (!state.dstBroken && !dst.write(chunk)) {
      src.pause();
      dst.once('drain', () => src.resume());
    }
    rec.chunk(code, t, chunk);
  });
}

/** How much one read of a pipe may take (pipes hold 64 KiB by default). */
const READ_BYTES = 64 * 1024;
/** Read buffers kept for reuse per direction while writes are pending (a few: reading pauses on backpressure). */
const SPARE_BUFFERS = 8;

interface UserBufferKeys { buffer: symbol; callback: symbol; generator: symbol }
let userBufferKeys: UserBufferKeys | null | undefined;

/**
 * The keys under which `net.Socket` keeps its `onread` option (read into a caller's buffer instead
 * of a new one per chunk). Node only offers `onread` for sockets the caller constructs, and the
 * agent's pipes are made by `child_process`, so they are read off a probe socket; null when this
 * Node keeps them otherwise (then forwarding takes the ordinary path).
 */
function findUserBufferKeys(): UserBufferKeys | null {
  if (userBufferKeys !== undefined) return userBufferKeys;
  userBufferKeys = null;
  try {
    const probe = new (net().Socket)({ onread: { buffer: () => Buffer.alloc(1), callback: () => true } } as ConstructorParameters<typeof SocketType>[0]);
    const keys = Object.getOwnPropertySymbols(probe);
    const find = (d: string) => keys.find((k) => k.description === d);
    const buffer = find('kBuffer');
    const callback = find('kBufferCb');
    const generator = find('kBufferGen');
    const p = probe as unknown as Record<symbol, unknown>;
    if (buffer && callback && generator && p[buffer] === true && typeof p[callback] === 'function' && typeof p[generator] === 'function') {
      userBufferKeys = { buffer, callback, generator };
    }
    probe.destroy();
  } catch { /* ordinary path */ }
  return userBufferKeys;
}

/**
 * Forwards a pipe reading into one reused buffer instead of a fresh 64 KiB allocation per read (what
 * `pipe()` and 'data' do), and without the stream machinery between the read and our callback. Under a flood that saves the allocator, page faults on new
 * memory, garbage collection and memory: the bytes go from the pipe into a buffer that stays in the
 * cache, are written on, and copied to the recorder. A buffer is reused only when the write took all
 * of it at once; otherwise the next read gets a new one and the old stays with its pending write.
 * Returns false (nothing changed) when this Node does not allow it; the caller then uses 'data'.
 */
function forwardInto(src: Readable, dst: Writable, code: StreamCode, rec: RecorderClient, state: { dstBroken: boolean }, directFd: number | null = null): boolean {
  const keys = findUserBufferKeys();
  const handle = (src as unknown as { _handle?: { useUserBuffer?: (b: Uint8Array) => void; readStart?: () => number; reading?: boolean } })._handle;
  if (!keys || !handle || typeof handle.useUserBuffer !== 'function' || typeof handle.readStart !== 'function') return false;
  let buf: Buffer = Buffer.allocUnsafe(READ_BYTES);
  // Buffers whose bytes a pending write still holds, and buffers free again: once the destination
  // has drained, every earlier write is done, so a slow reader does not make one new buffer per read.
  const held: Buffer[] = [];
  const spare: Buffer[] = [];
  dst.on('drain', () => {
    for (const h of held.splice(0)) if (spare.length < SPARE_BUFFERS) spare.push(h);
  });
  let paused = false;
  const resume = () => {
    if (!paused) return;
    paused = false;
    handle.reading = true;
    handle.readStart!();
  };
  // A destination that fails while we wait for it to drain never drains: read on (the caller marks
  // it broken and keeps recording what arrives).
  dst.on('error', resume);
  dst.on('close', resume);
  const onRead = (n: number, b: Buffer): boolean => {
    const chunk = b.subarray(0, n);
    const t = now();
    let ok = true;
    if (!state.dstBroken) {
      let done = 0;
      if (directFd !== null && dst.writableLength === 0) {
        // Nothing queued: write straight to the descriptor, without the stream's bookkeeping.
        // What it does not take (a full pipe, an error) goes through the stream, which queues it
        // or reports the error as before.
        try { done = writeSync(directFd, chunk); } catch { done = 0; }
      }
      ok = done === n ? true : dst.write(done === 0 ? chunk : chunk.subarray(done));
      if (dst.writableLength > 0) {
        // The write still holds `b`: read into another buffer until the destination drains.
        if (held.length < SPARE_BUFFERS) held.push(b);
        buf = spare.pop() ?? Buffer.allocUnsafe(READ_BYTES);
      }
    }
    rec.chunk(code, t, chunk);
    if (!ok) {
      paused = true;
      dst.once('drain', resume);
      return false; // stop reading until the destination has taken what waits
    }
    return true;
  };
  const s = src as unknown as Record<symbol, unknown>;
  s[keys.buffer] = buf;
  s[keys.generator] = () => buf;
  s[keys.callback] = onRead;
  handle.useUserBuffer(buf);
  return true;
}

function signalNumber(sig: NodeJS.Signals | null): number {
  if (!sig) return 0;
  return (osConstants.signals as Record<string, number>)[sig] ?? 0;
}

export async function runTapCli(argv: string[]): Promise<void> {
  let opts: TapOptions;
  try {
    opts = parseTapArgs(argv);
  } catch (e) {
    say(`acp-inspect: ${(e as Error).message}`);
    process.exit(2);
  }
  if (isRemoteTarget(opts.command)) {
    // A remote agent: the tap bridges stdio to its URL (loaded through a variable: the bundle of the
    // stdio tap's start-up leaves it out).
    (import(REMOTE_BRIDGE) as Promise<typeof import('../remote/bridge.js')>)
      .then((m) => m.runRemoteBridge(opts, startedMs))
      .catch((e) => {
        say(`acp-inspect: the remote bridge failed: ${(e as Error)?.message ?? String(e)}`);
        process.exit(1);
      });
    return;
  }
  runTap(opts);
}

/** The stdio↔remote bridge, relative to this module and to the CLI's bundle alike. */
const REMOTE_BRIDGE = '../remote/bridge.js';

/**
 * The tap runs its JavaScript without V8's optimizing compiler (the baseline compilers still run).
 * Its hot paths are native (reads, writes, copies, SQLite), and what the optimizer bought was small
 * next to its cost here: each burst of compilations (the recorder's parser, checker and schema
 * validators) took tens of MB of compiler memory that the allocator kept, about 50 MB of peak RSS,
 * and CPU on other threads in the middle of floods. Measured: peak RSS through a flood 120 MiB
 * instead of 170, forwarding unchanged. The recorder turns it on while it indexes a burst's backlog,
 * after the burst (see burstTuning in recorder-client.ts).
 */
function withoutOptimizer(): void {
  try {
    // Required here, not imported: node:v8 costs 1-2 ms, better spent once the agent runs.
    (lazyRequire('node:v8') as typeof import('node:v8')).setFlagsFromString('--no-opt');
  } catch { /* this V8 does not know the flag: run as it is */ }
}

/** The native forwarder, set up to take the agent's stdin and stdout (see native.ts), or null. */
interface NativeSetup {
  fwd: NativeForwarder;
  eventsFd: number;
  /** [agent stdin read, agent stdin write, agent stdout read, agent stdout write] */
  pipes: [number, number, number, number];
}

/**
 * Sets up the native forwarder: the capture log it appends to (and the memory where it publishes
 * how far), and the two pipes the agent gets as stdin and stdout (real pipes, as behind a `cat`).
 * Null when it is not built or cannot be set up; the tap then forwards with JavaScript.
 */
function setUpNative(log: OpenCaptureLog | null, shared: SharedArrayBuffer): NativeSetup | null {
  const fwd: NativeForwarder | null = loadNativeForwarder();
  if (!fwd) return null;
  try {
    const eventsFd = fwd.init(new Uint8Array(shared), fwd.nowMs() - now(), log?.fd ?? -1, log?.pos ?? 0);
    return { fwd, eventsFd, pipes: fwd.pipes() };
  } catch {
    return null;
  }
}

/**
 * Starts the tap. Its start-up is on the path of every agent an editor launches, so the agent is
 * spawned and forwarded first, with as little loaded as can be (this file and what it imports are
 * bundled as one); the recorder (SQLite, the checker) is loaded after, while what arrives waits in
 * the capture log.
 */
export function runTap(opts: TapOptions): void {
  // The database may hold capture logs that dead taps left: the recorder's first open finds them.
  onOrphanedCaptures(startDetachedIndexer);
  const dbPath = opts.db ?? defaultDbPath();
  const why = { message: '' };
  const log = openCaptureLog(opts, [opts.command, ...opts.args], dbPath, startedMs, why);
  const shared = new SharedArrayBuffer(8);
  const native = setUpNative(log, shared);
  let child: AgentProcess;
  try {
    child = spawnAgent(opts.command, opts.args, native && { fwd: native.fwd, stdin: native.pipes[0], stdout: native.pipes[3] });
  } catch (e) {
    say(`acp-inspect: cannot start agent "${opts.command}": ${(e as Error).message}`);
    process.exit(127);
  }
  const spawnedAt = now();
  if (native) {
    // The agent has its ends; ours stay with the forwarding threads (or are closed, if it did not start).
    native.fwd.closeFd(native.pipes[0]);
    native.fwd.closeFd(native.pipes[3]);
    if (child.pid === undefined) {
      native.fwd.closeFd(native.pipes[1]);
      native.fwd.closeFd(native.pipes[2]);
    }
  }
  // (The native forwarder puts our stdout in non-blocking mode itself: see client_nonblocking in forward.c.)
  const out = native ? null : openStdout();
  const rec = new RecorderClient((msg) => say(msg.startsWith('acp-inspect') ? msg : `acp-inspect: ${msg}`), native?.fwd ?? null, log, shared);
  if (!log) say(notRecording(why));

  let spawnFailed = false;
  let exiting = false;
  let receivedSignal: NodeJS.Signals | null = null;
  const toAgent = { dstBroken: false };
  const toClient = { dstBroken: false };

  const recordSpawn = () => rec.event('spawn', spawnedAt, { command: opts.command, args: opts.args, cwd: process.cwd(), pid: child.pid ?? null });
  /** Waiters for the end of the agent's output (native forwarding). */
  const a2cEndWaiters: (() => void)[] = [];
  const nativeForwarding = native !== null && child.pid !== undefined;
  if (native && nativeForwarding) {
    // The spawn is recorded before the first chunk the threads may push.
    recordSpawn();
    native.fwd.start(0, native.pipes[1], native.pipes[2], 1);
    const events = new (net().Socket)({ fd: native.eventsFd, readable: true, writable: false });
    events.on('data', (b: Buffer) => {
      if (b.includes(NATIVE_EV_A2C_END)) for (const w of a2cEndWaiters.splice(0)) w();
      if (b.includes(NATIVE_EV_EXIT) && child instanceof NativeAgent) child.agentExited();
    });
    events.on('error', () => { /* not expected: the threads only write to it */ });
  } else if (!native) {
    child.on('spawn', recordSpawn);
  }
  child.on('error', (e: NodeJS.ErrnoException) => {
    if (child.pid === undefined && !spawnFailed) {
      spawnFailed = true;
      say(`acp-inspect: cannot start agent "${opts.command}": ${spawnFailure(e)}`);
      rec.event('spawn-error', now(), { command: opts.command, args: opts.args, code: e.code ?? null, message: e.message });
      void end(127, null, null);
    }
  });

  // (Without the native forwarder, Node's spawn started the agent.)
  if (!native) forwardInJs(child as ChildProcess, out!, rec, toAgent, toClient);

  // Forwarding has begun: now the recorder. Building and encoding spans is JavaScript-heavy work:
  // with --otlp the optimizer stays on (100,000 frames through the tap: 8.4 s of CPU instead of
  // 13.6 s, the same peak RSS).
  if (!opts.otlp) withoutOptimizer();
  const finishWaitMs = Number(process.env.ACP_INSPECT_FINISH_WAIT_MS) || FINISH_WAIT_MS;
  rec.start(recorderConfig(opts, [opts.command, ...opts.args], dbPath, startedMs));


  // agent stderr → our stderr, and recorded; never waiting for the client to read it (toStderr)
  const stderrState = { dstBroken: false };
  child.stderr!.on('data', (chunk: Buffer) => {
    const t = now();
    if (!stderrState.dstBroken) toStderr(chunk);
    rec.chunk(STDERR, t, chunk);
  });
  child.stderr!.on('end', () => rec.eof(STDERR, now()));
  process.stderr.on('error', () => {
    // The client closed our stderr (EPIPE): an unhandled error here would end the whole session.
    // Keep draining and recording the agent's stderr; the tap's own messages go nowhere now.
    stderrState.dstBroken = true;
  });
  // Read errors on the agent's pipes end those streams, never the tap.
  for (const s of [child.stdout, child.stderr]) s?.on('error', () => { /* the 'close' that follows is handled */ });

  const onSignal = (sig: NodeJS.Signals) => {
    if (receivedSignal) {
      // Second signal: stop waiting for the agent.
      killGroup(child, 'SIGKILL');
      return;
    }
    receivedSignal = sig;
    rec.event('signal', now(), { signal: sig });
    killGroup(child, sig);
    // An agent that ignores the signal gets SIGKILL after a grace period.
    setTimeout(() => killGroup(child, 'SIGKILL'), 3000).unref();
  };
  for (const sig of TAP_SIGNALS) process.on(sig, onSignal);

  child.on('exit', (code, signal) => {
    const t = now();
    // After a signal to the tap, what is left of the agent's group (children that ignored the
    // signal and may hold its pipes open) goes now, not after the drain wait below.
    if (receivedSignal) killGroup(child, 'SIGTERM');
    // Wait (briefly) for the agent's pipes to drain, so its last frames are forwarded and recorded.
    let pending = 0;
    const done = () => {
      if (--pending <= 0) void end(code === null ? 128 + signalNumber(signal) : code, code, signal ?? null, t);
    };
    for (const s of [child.stdout, child.stderr]) {
      if (s && !s.readableEnded && !s.destroyed) {
        pending++;
        s.once('close', done);
      }
    }
    if (native && nativeForwarding && !(native.fwd.state() & NATIVE_A2C_ENDED)) {
      pending++;
      a2cEndWaiters.push(done);
    }
    if (pending === 0) void end(code === null ? 128 + signalNumber(signal) : code, code, signal ?? null, t);
    else {
      // Give up on pipes held open by a leftover child, but not while output is still on its way to a
      // client that reads slowly: that waits, as it would in a direct pipe.
      const giveUp = () => {
        if (!receivedSignal && !clientBroken() && stillWriting()) {
          setTimeout(giveUp, 2000).unref();
          return;
        }
        pending = 0;
        done();
      };
      setTimeout(giveUp, 2000).unref();
    }
  });

  /** The client stopped reading (its end of our stdout is gone). */
  function clientBroken(): boolean {
    return native ? (native.fwd.state() & NATIVE_CLIENT_BROKEN) !== 0 : toClient.dstBroken;
  }
  /** Output is on its way to the client (a write waits for it to read). */
  function stillWriting(): boolean {
    if (native) return (native.fwd.state() & NATIVE_WRITING_TO_CLIENT) !== 0;
    return out!.writableLength > 0 || child.stdout!.isPaused();
  }

  async function end(exitCode: number, code: number | null, signal: string | null, t = now()): Promise<void> {
    if (exiting) return;
    exiting = true;
    // Leave no orphans: the agent's process group goes with it.
    killGroup(child, 'SIGTERM');
    if (stderrDropped > 0) rec.event('stderr-not-forwarded', now(), { bytes: stderrDropped, reason: 'the client did not read stderr' });
    // The recording's rest is in the capture log: the recorder gets a moment to finish it, and what
    // it cannot finish in that time a detached indexer does (or the next acp-inspect that opens the
    // database): the editor never waits for the recorder.
    const stored = await rec.finish(code, signal, t, finishWaitMs);
    if (!stored) await rec.handOn(dbPath, code, signal);
    // Asked to stop by a signal: nothing of the agent's group may outlive the tap, even what ignored SIGTERM.
    if (receivedSignal) killGroup(child, 'SIGKILL');
    const bye = () => {
      rec.quiesce(stored ? 5000 : 100);
      exitAs(exitCode, signal, native?.fwd ?? null);
    };
    // Exit once everything is handed to the client (or it hung up): exiting earlier would drop the
    // agent's last output while a slow client has not read it yet. Only after a signal is that cut short.
    if (native && !nativeForwarding) {
      bye();
    } else if (native) {
      // The forwarding thread is done when the agent's output ended; until then it may be writing to
      // a slow client (wait), or reading a pipe a leftover child holds open (give up after 2 s).
      let idleSince = Date.now();
      const poll = () => {
        const st = native.fwd.state();
        if (st & (NATIVE_A2C_ENDED | NATIVE_CLIENT_BROKEN)) return bye();
        if ((st & NATIVE_WRITING_TO_CLIENT) && !receivedSignal) idleSince = Date.now();
        if (Date.now() - idleSince >= 2000) return bye();
        setTimeout(poll, 20);
      };
      poll();
    } else if (out !== process.stdout && !toClient.dstBroken) {
      out!.end(bye);
      if (receivedSignal || out!.writableLength === 0) setTimeout(bye, 2000).unref();
    } else {
      bye();
    }
  }
}

/** Forwarding on the JavaScript path (no native forwarder): Node's streams over the agent's pipes. */
function forwardInJs(child: ChildProcess, out: Writable, rec: RecorderClient, toAgent: { dstBroken: boolean }, toClient: { dstBroken: boolean }): void {
  // Each direction has both paths: forwardInto() takes over the reads where Node allows it, and the
  // 'data' path of forward() then only sees what was read before the switch (nothing, in practice)
  // and is what runs on a Node that does not allow it, or for a source that is not a pipe (a file).
  // client → agent
  forward(process.stdin, child.stdin!, C2A, rec, toAgent);
  forwardInto(process.stdin, child.stdin!, C2A, rec, toAgent);
  process.stdin.on('end', () => {
    const t = now();
    rec.eof(C2A, t);
    rec.event('stdin-closed', t, {});
    child.stdin!.end();
  });
  process.stdin.on('error', () => { /* client vanished; the agent's exit ends the session */ });
  child.stdin!.on('error', (e: NodeJS.ErrnoException) => {
    // The agent closed its stdin (or exited): stop writing, keep recording what the client sends.
    if (!toAgent.dstBroken) rec.event('agent-stdin-error', now(), { code: e.code ?? null });
    toAgent.dstBroken = true;
    process.stdin.resume();
  });

  // agent → client
  forward(child.stdout!, out, A2C, rec, toClient);
  forwardInto(child.stdout!, out, A2C, rec, toClient, out !== process.stdout ? 1 : null);
  child.stdout!.on('end', () => {
    const t = now();
    rec.eof(A2C, t);
    rec.event('stdout-closed', t, {});
    // The client sees the end of the agent's output now, as through a direct pipe, not once the
    // recording is finished (a backlog from a flood can take seconds to index before the tap exits).
    if (out !== process.stdout && !toClient.dstBroken) out.end();
  });
  out.on('error', (e: NodeJS.ErrnoException) => {
    // The client stopped reading (EPIPE): keep draining the agent so it never blocks, keep recording.
    if (!toClient.dstBroken) rec.event('client-stdout-error', now(), { code: e.code ?? null });
    toClient.dstBroken = true;
    child.stdout!.resume();
  });
}

/** The signals the tap takes and passes on to the agent. */
const TAP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Exits as the agent did: an agent ended by a signal ends the tap by the same signal (its default
 * disposition back first), so the editor sees `{code: null, signal}` as it would without the tap;
 * else, or when that signal does not end a process (Node ignores SIGPIPE), with `code`.
 */
function exitAs(code: number, signal: string | null, native: NativeForwarder | null): never {
  const signo = signalNumber(signal as NodeJS.Signals | null);
  if (signo > 0) {
    for (const s of TAP_SIGNALS) process.removeAllListeners(s);
    if (native?.raiseDefault) native.raiseDefault(signo);
    else {
      try {
        process.kill(process.pid, signal as NodeJS.Signals);
        // Delivered to whichever thread does not block it: give it a moment to arrive.
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
      } catch { /* cannot be raised: the exit code says it */ }
    }
  }
  process.exit(code);
}

function killGroup(child: AgentProcess, sig: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, sig);
  } catch {
    try { child.kill(sig); } catch { /* already gone */ }
  }
}
