/**
 * The mock client's core, sans-IO: drives a live agent with the recorded client frames and compares
 * what the agent sends with the recording. Lines and clock readings in, effects out.
 *
 * - Causal order: a recorded client request or notification goes out once every agent frame that
 *   preceded it in the recording has arrived (matched), or `timeoutMs` passed without progress.
 * - The agent's requests (fs, terminals, permissions, elicitations) are answered right away with the
 *   recorded answer of the matching recorded request, ids and paths mapped to the live run.
 * - Every agent frame is matched by the `Aligner`; its divergences (changed, extra, missing) are the
 *   verdict. Client requests keep their recorded JSON-RPC ids.
 */
import { type Frame, isFrame } from '../wire/frame.js';
import { frameFromText } from '../wire/make-frame.js';
import type { Recording } from '../transcript/format.js';
import { Aligner, describeFrame, type Divergence } from './aligner.js';
import { describeDiffs, type IgnoreSet } from './json-diff.js';
import { FaultInjector, type FaultPlan } from './faults.js';
import type { Effect } from './agent-replayer.js';
import { NO_MATCH_CODE } from './agent-replayer.js';
import { VolatileMap } from './volatile.js';
import { mergeChunkDivergences } from './merge-chunks.js';

export interface ClientReplayerOptions {
  ignore?: IgnoreSet;
  /** Live working directory; the recorded one (and paths under it) is mapped to it. */
  cwd?: string;
  /** ms to wait for an expected agent frame before moving on (default 10000). */
  timeoutMs?: number;
  faults?: FaultPlan;
  strict?: boolean;
  /** Compare streamed message chunks as whole messages (see merge-chunks.ts). */
  mergeChunks?: boolean;
}

export interface ClientReplayResult {
  equivalent: boolean;
  divergences: Divergence[];
  /** Recorded agent frames matched by live ones. */
  matched: number;
  /** Why the replay stopped. */
  ended: 'complete' | 'timeout' | 'agent-exited' | 'killed';
}

/** The recorded working directory: the first `cwd` a client frame carried, else the header's. */
export function recordedCwd(rec: Recording): string | undefined {
  for (const it of rec.items) {
    if (!isFrame(it) || it.dir !== 'c2a' || it.kind !== 'request') continue;
    const p = (it.json as { params?: { cwd?: unknown } } | undefined)?.params;
    if (p && typeof p.cwd === 'string') return p.cwd;
  }
  return typeof rec.header.cwd === 'string' ? rec.header.cwd : undefined;
}

export class ClientReplayer {
  readonly aligner: Aligner;
  private readonly queue: Frame[];
  private readonly a2c: Frame[];
  private a2cCursor = 0;
  private readonly waived = new Set<number>();
  private readonly faults: FaultInjector;
  private liveSeq = 0;
  private lastProgress = 0;
  private exited = false;
  private killed = false;
  private timedOut = false;
  private matched = 0;
  /** Live frames in order (for --record). */
  readonly liveFrames: Frame[] = [];

  constructor(readonly recording: Recording, private readonly opts: ClientReplayerOptions = {}) {
    const frames = recording.items.filter(isFrame);
    this.aligner = new Aligner(frames, { map: new VolatileMap(), ignore: opts.ignore, strict: opts.strict });
    this.queue = frames.filter((f) => f.dir === 'c2a' && f.kind !== 'result' && f.kind !== 'error');
    // Client frames wait for these; lines that are not JSON-RPC are compared but never waited for.
    this.a2c = frames.filter((f) => f.dir === 'a2c' && f.kind !== 'invalid');
    this.faults = new FaultInjector(opts.faults);
    const rc = recordedCwd(recording);
    if (opts.cwd && rc) this.aligner.map.learnPath(rc, opts.cwd);
  }

  get map(): VolatileMap {
    return this.aligner.map;
  }

  /** Starts the replay at clock reading `now` (ms). */
  start(now: number): Effect[] {
    this.lastProgress = now;
    return this.pump();
  }

  /** One line the agent wrote on stdout. */
  receive(line: string, now: number, t = now): Effect[] {
    if (line.trim() === '') return [];
    const live = frameFromText(++this.liveSeq, t, 'a2c', line);
    this.liveFrames.push(live);
    this.lastProgress = now;
    const out: Effect[] = [];
    const obs = this.aligner.observe(live);
    if (obs.matched) this.matched++;
    if (live.kind === 'request') {
      const rec = obs.matched ? this.aligner.responseTo(obs.recorded.seq) : undefined;
      if (this.faults.errorFor(live.method)) {
        out.push(...this.sendLine(undefined, JSON.stringify({ jsonrpc: '2.0', id: live.id ?? null, error: { code: -32603, message: `injected error (acp-inspect replay --error-for ${live.method})` } }), t));
        if (rec) this.aligner.consume(rec);
      } else if (!obs.matched) {
        out.push({ type: 'log', text: `replay: ✗ no recorded ${describeFrame(live)} to answer: ${obs.reason}` });
        out.push(...this.sendLine(undefined, JSON.stringify({
          jsonrpc: '2.0', id: live.id ?? null,
          error: { code: NO_MATCH_CODE, message: `acp-inspect replay: no recorded ${live.method} matches: ${obs.reason}`, data: { differences: describeDiffs(obs.diffs) } },
        }), t));
      } else if (!rec) {
        out.push({ type: 'log', text: `replay: the recorded ${describeFrame(live)} (#${obs.recorded.seq}) was never answered; leaving it unanswered` });
      } else {
        const mapped = this.map.toLive(rec.json) as Record<string, unknown>;
        mapped.id = live.id;
        out.push(...this.sendLine(rec, JSON.stringify(mapped), t));
      }
    }
    this.advanceCursor();
    out.push(...this.pump(t));
    return out;
  }

  /** Clock tick: gives up waiting after the timeout. */
  tick(now: number): Effect[] {
    if (this.isDone(now)) return [];
    if (now - this.lastProgress < (this.opts.timeoutMs ?? 10_000)) return [];
    const head = this.queue[0];
    if (!head) {
      this.timedOut = true;
      return [];
    }
    // An agent that said nothing at all within the timeout will not start talking for the next frame either.
    if (!this.liveFrames.some((f) => f.dir === 'a2c')) {
      this.timedOut = true;
      return [{ type: 'log', text: `replay: the agent sent nothing within ${this.opts.timeoutMs ?? 10_000}ms; giving up` }];
    }
    const out: Effect[] = [];
    const waiting = this.a2c.filter((f) => f.seq < head.seq && !this.aligner.isConsumed(f.seq) && !this.waived.has(f.seq));
    for (const f of waiting) this.waived.add(f.seq);
    out.push({ type: 'log', text: `replay: waited ${this.opts.timeoutMs ?? 10_000}ms for ${waiting.length} agent frame${waiting.length === 1 ? '' : 's'} (first: #${waiting[0]?.seq} ${waiting[0] ? describeFrame(waiting[0]) : ''}); sending the next client frame anyway` });
    this.lastProgress = now;
    this.advanceCursor();
    out.push(...this.pump());
    return out;
  }

  /** When the IO edge should call `tick` next. */
  nextDeadline(): number {
    return this.lastProgress + (this.opts.timeoutMs ?? 10_000);
  }

  agentExited(): void {
    this.exited = true;
  }

  /** True when nothing more is expected: everything sent and received, or given up. */
  isDone(now?: number): boolean {
    if (this.exited || this.killed || this.timedOut) return true;
    if (this.queue.length > 0) return false;
    this.advanceCursor();
    // Every recorded agent frame arrived (or was given up on after a timeout).
    if (this.a2cCursor >= this.a2c.length) return true;
    return now !== undefined && now - this.lastProgress >= (this.opts.timeoutMs ?? 10_000);
  }

  /** The verdict. Call once, after `isDone`. */
  finish(): ClientReplayResult {
    const reason = this.exited ? 'never arrived (the agent exited first)' : this.killed ? 'never arrived (the connection was closed by --kill-after)' : 'never arrived within the timeout';
    let divergences = this.aligner.finish(['a2c'], reason).filter((d) => (d.kind === 'extra' ? d.live.dir : d.recorded.dir) === 'a2c');
    if (this.opts.mergeChunks) {
      divergences = mergeChunkDivergences(divergences, this.aligner.recorded, this.liveFrames.filter((f) => f.dir === 'a2c'), { map: this.map, ignore: this.opts.ignore });
    }
    const ended = this.killed ? 'killed' : this.exited && this.queue.length > 0 ? 'agent-exited'
      : this.timedOut || this.queue.length > 0 ? 'timeout' : 'complete';
    return { equivalent: divergences.length === 0, divergences, matched: this.matched, ended };
  }

  private advanceCursor(): void {
    while (this.a2cCursor < this.a2c.length) {
      const f = this.a2c[this.a2cCursor]!;
      if (!this.aligner.isConsumed(f.seq) && !this.waived.has(f.seq)) break;
      this.a2cCursor++;
    }
  }

  /** Sends every queued client frame whose causal predecessors have arrived. */
  private pump(t = 0): Effect[] {
    const out: Effect[] = [];
    while (this.queue.length > 0 && !this.killed) {
      const head = this.queue[0]!;
      const blocker = this.a2c[this.a2cCursor];
      if (blocker && blocker.seq < head.seq) break;
      this.queue.shift();
      let line = head.raw;
      if (head.json !== undefined && head.kind !== 'invalid') {
        const mapped = JSON.stringify(this.map.toLive(head.json));
        if (mapped !== JSON.stringify(head.json)) line = mapped;
      }
      out.push(...this.sendLine(head, line, t));
    }
    return out;
  }

  private sendLine(recorded: Frame | undefined, line: string, t: number): Effect[] {
    const out: Effect[] = [];
    const sel = recorded ?? frameFromText(0, 0, 'c2a', line);
    for (const step of this.faults.apply(sel, line, 0)) {
      if ('close' in step) {
        this.killed = true;
        out.push({ type: 'log', text: 'replay: closing the connection (--kill-after)' }, { type: 'close' });
        break;
      }
      const live = frameFromText(++this.liveSeq, t, 'c2a', step.line);
      this.liveFrames.push(live);
      if (recorded) this.aligner.pair(live, recorded);
      else this.aligner.noteSent(live);
      out.push({ type: 'send', line: step.line, delayMs: step.delayMs });
    }
    return out;
  }
}
