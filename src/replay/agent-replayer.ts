/**
 * The mock agent's core, sans-IO: live client lines in, effects out (lines to send with a delay,
 * diagnostics). It answers each live client frame with the agent frames that followed the matching
 * recorded client frame (its "segment"), rewriting ids and paths for the live session.
 *
 * - Recorded agent responses carry the live request's JSON-RPC id; a response whose request has not
 *   been matched yet is held back until it is.
 * - Agent→client requests keep their recorded ids; the live client's answer is matched to the
 *   recorded answer, compared, and releases the frames that followed it.
 * It does not do IO, timers or process handling (see agent-stdio.ts).
 */
import { type Frame } from '../wire/frame.js';
import { frameFromText } from '../wire/make-frame.js';
import type { Recording } from '../transcript/format.js';
import { isFrame } from '../wire/frame.js';
import { Aligner, describeFrame, type Divergence } from './aligner.js';
import { describeDiffs, type IgnoreSet, type PathDiff } from './json-diff.js';
import { FaultInjector, type FaultPlan } from './faults.js';
import { framePatch } from './report.js';
import { VolatileMap } from './volatile.js';

export type Effect =
  | { type: 'send'; line: string; delayMs: number }
  | { type: 'log'; text: string }
  | { type: 'close' };

export interface AgentReplayerOptions {
  /** 0 = instant (default), 1 = as recorded, N = N times faster. */
  speed?: number;
  strict?: boolean;
  ignore?: IgnoreSet;
  faults?: FaultPlan;
  /** Include unified diffs in diagnostics (default true). */
  patches?: boolean;
  color?: boolean;
}

/** Error code of the JSON-RPC error sent for a request the recording cannot answer. */
export const NO_MATCH_CODE = -32603;

export interface AgentReplaySummary {
  /** Live client frames that matched a recorded one. */
  matched: number;
  /** Matched with differing params. */
  changed: number;
  /** Live client frames with no recorded counterpart. */
  unmatched: number;
  /** Recorded client frames (requests, notifications, answers) the live client never sent. */
  unused: Frame[];
  /** Recorded agent frames never sent because what triggers them never came. */
  unsent: number;
  divergences: Divergence[];
}

export class AgentReplayer {
  readonly aligner: Aligner;
  private readonly segments = new Map<number, Frame[]>();
  private readonly initial: Frame[] = [];
  private readonly liveIdOf = new Map<number, unknown>();
  private readonly deferred = new Map<number, Frame[]>();
  private readonly errored = new Set<number>();
  private readonly emitted = new Set<number>();
  private readonly played = new WeakSet<Frame[]>();
  private readonly faults: FaultInjector;
  private liveSeq = 0;
  private matched = 0;
  private closed = false;

  constructor(readonly recording: Recording, private readonly opts: AgentReplayerOptions = {}) {
    const frames = recording.items.filter(isFrame);
    this.aligner = new Aligner(frames, { map: new VolatileMap(), ignore: opts.ignore, strict: opts.strict });
    this.faults = new FaultInjector(opts.faults);
    // Segments: the agent frames after a client frame belong to it. Client frames sent back to back
    // (no agent frame between) form a burst: whichever of them comes first plays the burst's agent
    // frames, once; a response among them still waits for its own request (see `deferred`).
    let current: Frame[] = this.initial;
    let inBurst = false;
    for (const f of frames) {
      if (f.dir === 'c2a' && !Aligner.isNoise(f)) {
        if (inBurst) {
          this.segments.set(f.seq, current);
        } else {
          current = [];
          this.segments.set(f.seq, current);
          inBurst = true;
        }
      } else if (f.dir === 'a2c') {
        current.push(f);
        inBurst = false;
      } else {
        // A client frame that answers nothing (a parse error for a garbage line): what follows does not wait on it.
        this.segments.set(f.seq, []);
      }
    }
  }

  get map(): VolatileMap {
    return this.aligner.map;
  }

  /** Frames to send before the client says anything (rare: agents usually wait for initialize). */
  start(): Effect[] {
    return this.emit(this.initial, 0);
  }

  /** One line the live client wrote. */
  receive(line: string): Effect[] {
    if (this.closed) return [];
    const live = frameFromText(++this.liveSeq, 0, 'c2a', line);
    if (live.kind === 'invalid' && line.trim() === '') return [];
    const obs = this.aligner.observe(live);
    const out: Effect[] = [];
    const what = describeFrame(live);
    if (!obs.matched) {
      out.push({ type: 'log', text: this.explain(live, obs.reason, obs.nearest, obs.diffs) });
      if (live.kind === 'request') {
        out.push(...this.send(live, JSON.stringify({
          jsonrpc: '2.0', id: live.id ?? null,
          error: {
            code: NO_MATCH_CODE,
            message: `acp-inspect replay: no recorded ${live.method} matches: ${obs.reason}`,
            data: { nearestRecordedSeq: obs.nearest?.seq ?? null, differences: describeDiffs(obs.diffs) },
          },
        }), 0));
      } else if (live.kind === 'invalid') {
        const notJson = live.json === undefined;
        out.push(...this.send(live, JSON.stringify({ jsonrpc: '2.0', id: null, error: notJson ? { code: -32700, message: 'Parse error' } : { code: -32600, message: 'Invalid request' } }), 0));
      }
      return out;
    }
    this.matched++;
    const rec = obs.recorded;
    if (obs.diffs.length > 0) {
      out.push({ type: 'log', text: `replay: ${what} matched recorded #${rec.seq} with ${obs.diffs.length} difference${obs.diffs.length === 1 ? '' : 's'}:\n${describeDiffs(obs.diffs).map((l) => `  ${l}`).join('\n')}` });
    }
    if (live.kind === 'request') {
      this.liveIdOf.set(rec.seq, live.id);
      if (this.faults.errorFor(live.method)) {
        this.errored.add(rec.seq);
        out.push(...this.send(rec, JSON.stringify({ jsonrpc: '2.0', id: live.id ?? null, error: { code: -32603, message: `injected error (acp-inspect replay --error-for ${live.method})` } }), 0));
      }
    }
    const segment = this.segments.get(rec.seq);
    if (segment && !this.played.has(segment)) {
      this.played.add(segment);
      out.push(...this.emit(segment, rec.t));
    }
    const held = this.deferred.get(rec.seq);
    if (held) {
      this.deferred.delete(rec.seq);
      out.push(...this.emit(held, rec.t, true));
    }
    return out;
  }

  /** The live client closed its side: returns the final diagnostics and the summary. */
  end(): { effects: Effect[]; summary: AgentReplaySummary } {
    this.closed = true;
    const before = this.aligner.divergences.length;
    this.aligner.finish(['c2a'], 'the live client never sent it');
    // Noise the recorded client sent (parse errors for garbage lines) is not an interaction to use.
    const unused = this.aligner.divergences.slice(before).map((d) => (d as { recorded: Frame }).recorded).filter((f) => !Aligner.isNoise(f));
    const a2c = this.aligner.recorded.filter((f) => f.dir === 'a2c');
    const unsent = a2c.filter((f) => !this.emitted.has(f.seq) && !this.errored.has(f.replyTo ?? -1)).length;
    const ds = this.aligner.divergences;
    const summary: AgentReplaySummary = {
      matched: this.matched,
      changed: ds.filter((d) => d.kind === 'changed').length,
      unmatched: ds.filter((d) => d.kind === 'extra').length,
      unused,
      unsent,
      divergences: ds.filter((d) => d.kind !== 'missing'),
    };
    const effects: Effect[] = [];
    const usedText = unused.length === 0 ? 'every recorded client frame was used'
      : `${unused.length} recorded client frame${unused.length === 1 ? ' was' : 's were'} never used: ${unused.slice(0, 5).map((f) => `#${f.seq} ${describeFrame(f)}`).join(', ')}${unused.length > 5 ? ', …' : ''}`;
    effects.push({ type: 'log', text: `replay: done: ${summary.matched} matched (${summary.changed} with differences), ${summary.unmatched} unmatched; ${usedText}${unsent ? `; ${unsent} recorded agent frames not sent` : ''}` });
    return { effects, summary };
  }

  private explain(live: Frame, reason: string, nearest: Frame | undefined, diffs: PathDiff[]): string {
    const lines = [`replay: ✗ no match for live ${describeFrame(live)}${live.id !== undefined ? ` (id ${JSON.stringify(live.id)})` : ''}: ${reason}`];
    if (nearest) {
      lines.push(`  nearest recorded: #${nearest.seq} ${describeFrame(nearest)}${nearest.t ? ` at ${(nearest.t / 1000).toFixed(3)}s` : ''}`);
      for (const l of describeDiffs(diffs)) lines.push(`    ${l}`);
      if (this.opts.patches !== false) lines.push(framePatch(nearest, live, { map: this.map, ignore: this.opts.ignore, color: this.opts.color }).split('\n').map((l) => `    ${l}`).join('\n'));
    }
    return lines.join('\n');
  }

  /** Emits recorded agent frames, mapped to the live session. */
  private emit(frames: readonly Frame[], fromT: number, released = false): Effect[] {
    const out: Effect[] = [];
    let prevT = fromT;
    for (const f of frames) {
      if (this.closed) break;
      const speed = this.opts.speed ?? 0;
      const delayMs = released || speed <= 0 ? 0 : Math.max(0, f.t - prevT) / speed;
      prevT = Math.max(prevT, f.t);
      let line = f.raw;
      if (f.replyTo !== undefined) {
        if (this.errored.has(f.replyTo)) {
          this.emitted.add(f.seq);
          continue;
        }
        if (!this.liveIdOf.has(f.replyTo)) {
          const list = this.deferred.get(f.replyTo) ?? [];
          list.push(f);
          this.deferred.set(f.replyTo, list);
          continue;
        }
        const liveId = this.liveIdOf.get(f.replyTo);
        line = this.rewrite(f, liveId, true);
      } else {
        line = this.rewrite(f, undefined, false);
      }
      this.emitted.add(f.seq);
      out.push(...this.send(f, line, delayMs));
    }
    return out;
  }

  /** Maps ids and paths of a recorded frame for the live session; keeps the exact raw line when nothing changes. */
  private rewrite(f: Frame, liveId: unknown, setId: boolean): string {
    if (f.json === undefined || f.kind === 'invalid') return f.raw;
    const mapped = this.map.toLive(f.json) as Record<string, unknown>;
    if (setId) mapped.id = liveId;
    const text = JSON.stringify(mapped);
    return text === JSON.stringify(f.json) ? f.raw : text;
  }

  private send(recorded: Pick<Frame, 'method' | 'json' | 'kind' | 'seq' | 'dir'>, line: string, delayMs: number): Effect[] {
    const out: Effect[] = [];
    for (const step of this.faults.apply(recorded, line, delayMs)) {
      if ('close' in step) {
        out.push({ type: 'log', text: 'replay: closing the connection (--kill-after)' });
        out.push({ type: 'close' });
        this.closed = true;
        break;
      }
      out.push({ type: 'send', line: step.line, delayMs: step.delayMs });
      const live = frameFromText(++this.liveSeq, 0, 'a2c', step.line);
      if (recorded.dir === 'a2c') this.aligner.pair(live, recorded as Frame);
      else this.aligner.noteSent(live);
    }
    return out;
  }
}
