/**
 * Lines to items: splits each stream into lines (capped, so a line without end cannot grow the
 * recorder's memory without bound), numbers them, builds frames (cut to --max-frame-bytes, redacted
 * when asked), correlates responses with requests, and turns control messages (events, gaps, end of
 * stream) into items. Items go to `onItem` in order, stamped no earlier than the one before.
 */
import type { RecorderConfig, StreamCode, ToRecorder } from '../messages.js';
import { A2C, C2A, STDERR } from '../messages.js';
import { decodeUtf8 } from '../../wire/line-splitter.js';
import { CappedLineSplitter, DEFAULT_LINE_CAP, type CappedLine } from '../capped-splitter.js';
import { frameFromDecoded } from '../../wire/make-frame.js';
import { chunkFrameOf, type ChunkKind } from '../../wire/chunk-frame.js';
import { Correlator, type PendingRequest } from '../../wire/correlate.js';
import type { Frame, Item } from '../../wire/frame.js';
import { peerInfoFromFrame } from '../../wire/peer-info.js';
import { spawnFailure } from '../../wire/spawn-failure.js';
import { redactFrame } from '../../redact.js';

/** Lines longer than the cap are kept cut (and marked truncated), so recorder memory stays bounded. */
const LINE_CAP = DEFAULT_LINE_CAP;

export interface LineHooks {
  /**
   * An item, in order; `bytes` is about what it holds in memory until it is written. `chunk`: for a
   * text chunk frame recognised by chunkFrameOf, its update kind (see Checker.step), else undefined.
   */
  onItem(item: Item, bytes: number, chunk?: number): void;
  /**
   * An item made again that is stored already (a resumed indexer goes over the items between its
   * saved state and the last one stored): not stored again, but its checker must see it.
   */
  onStored(item: Item, chunk?: number): void;
  /** A request or result named a peer (name, version, protocol version). */
  onPeer(info: Record<string, unknown>): void;
  /** Something was lost on the way (a gap): the recording is incomplete. */
  onIncomplete(reason: string): void;
}

/** The indexer's state between two records of the capture log: what it resumes from (see LineIndexer.snapshot). */
export interface IndexState {
  seq: number;
  lastT: number;
  /** Per stream: the line in progress (base64) and its bytes past the cap. */
  lines: [string, number][];
  pending: [string, PendingRequest][];
}

/** Bytes of lines in progress past which a state is not saved (see snapshot): a later one will be. */
const MAX_STATE_LINE_BYTES = 1024 * 1024;

export class LineIndexer {
  private readonly splitters = [new CappedLineSplitter(LINE_CAP), new CappedLineSplitter(LINE_CAP), new CappedLineSplitter(LINE_CAP)];
  private readonly correlator = new Correlator();
  private seq = 0;
  private readonly chunkKind: ChunkKind = { update: -1 };
  /** The time of the newest item so far: items are stored in order, and their times must not go back. */
  lastT = 0;
  /**
   * Items up to this seq are stored already (a resumed indexer goes over some of them again, from
   * its saved state): they are made again, to keep every count, and go to onStored.
   */
  private storedSeq = 0;

  constructor(private readonly config: RecorderConfig, private readonly hooks: LineHooks) {}

  /**
   * The state to resume from, between two records; null while a line in progress is too large to be
   * worth saving with every batch (a later state will be saved: resuming from an earlier one only
   * makes again items that are skipped). `whole`: whatever the lines in progress hold (a state handed
   * to another thread, not saved).
   */
  snapshot(whole = false): IndexState | null {
    if (!whole && !this.small) return null;
    const lines = this.splitters.map((s) => s.snapshot());
    return { seq: this.seq, lastT: this.lastT, lines: lines.map((l) => [l.kept.toString('base64'), l.over]), pending: this.correlator.snapshot() };
  }

  /** Whether the lines in progress are small enough for a state saved with a batch (see snapshot). */
  get small(): boolean {
    return this.splitters.reduce((a, s) => a + s.kept, 0) <= MAX_STATE_LINE_BYTES;
  }

  /** Resumes from a saved state, with items up to `storedSeq` already stored. */
  restore(state: IndexState | null, storedSeq: number): void {
    this.storedSeq = storedSeq;
    if (!state) return;
    this.seq = state.seq;
    this.lastT = state.lastT;
    state.lines.forEach(([kept, over], i) => this.splitters[i]!.restore({ kept: Buffer.from(kept, 'base64'), over }));
    this.correlator.restore(state.pending);
  }

  /** The seq of the newest item made. */
  get lastSeq(): number {
    return this.seq;
  }

  /** Takes one message from the forwarder: a chunk of a stream, an event, a gap or an end of stream. */
  handle(m: ToRecorder): void {
    if (Array.isArray(m)) {
      const [code, t, bytes] = m;
      const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      for (const line of this.splitters[code]!.push(buf)) this.onLine(code, t, line);
      return;
    }
    if ('ev' in m) {
      // An agent that never started leaves no session: the recording is not a complete one.
      if (m.ev === 'spawn-error') this.hooks.onIncomplete(`the agent did not start: ${spawnFailure(m.data)}`);
      this.push({ seq: ++this.seq, t: m.t, dir: 'event', type: m.ev, data: m.data }, 256);
    } else if ('gap' in m) {
      this.gap(m.gap, m.t, m.bytes + this.splitters[m.gap]!.discard());
    } else if ('eof' in m) {
      const rest = this.splitters[m.eof]!.end();
      if (rest) this.onLine(m.eof, m.t, rest);
    }
  }

  /**
   * Ends the session: the streams' unfinished lines, then the exit item. The agent's exit is seen
   * before its last output is (the tap waits for its pipes to drain), so the exit item, stored last,
   * takes the later of the two times: a timeline never goes back. Returns that time.
   */
  end(code: number | null, signal: string | null, exitT: number): number {
    const t = Math.max(exitT, this.lastT);
    for (const c of [C2A, A2C, STDERR] as StreamCode[]) {
      const rest = this.splitters[c]!.end();
      if (rest) this.onLine(c, t, rest);
    }
    this.push({ seq: ++this.seq, t, dir: 'event', type: 'exit', data: { code, signal } }, 64);
    return t;
  }

  /**
   * Ends a recording whose tap died: the streams' unfinished lines are items too (as at the end of a
   * stream), and no exit item follows. Returns the time of its last item.
   */
  endInterrupted(): number {
    for (const c of [C2A, A2C, STDERR] as StreamCode[]) {
      const rest = this.splitters[c]!.end();
      if (rest) this.onLine(c, this.lastT, rest);
    }
    return this.lastT;
  }

  /**
   * Ends a recording whose log lost its end to a full disk (its tap exited cleanly, and said so
   * elsewhere: see HandedOnExit): a stream's unfinished line is what was left of a frame whose rest
   * the log could not take, so it is marked lost (a gap), as a gap record would have, not made an item.
   */
  endCut(): number {
    ([C2A, A2C, STDERR] as StreamCode[]).forEach((c, i) => {
      const lost = this.splitters[c]!.discard();
      if (lost > 0) this.gap(i as StreamCode, this.lastT, lost);
    });
    return this.lastT;
  }

  /**
   * Marks `bytes` of a stream lost (a gap item): the capture log could not take them (only a failed
   * write to it loses bytes). The recording is incomplete, and says where.
   */
  private gap(code: StreamCode, t: number, bytes: number): void {
    const stream = ['c2a', 'a2c', 'stderr'][code]!;
    this.hooks.onIncomplete(`${bytes} bytes of ${stream} could not be written to the capture log (a failed write: its disk full, most likely); marked as a gap at item ${this.seq + 1}, the recording holds what came before and after it`);
    this.push({ seq: ++this.seq, t, dir: 'event', type: 'gap', data: { stream, bytes } }, 64);
  }

  private push(item: Item, bytes: number, chunk?: number): void {
    // Items are stored in the order the tap handed them over (one lock for both forwarding threads and
    // the main thread), but each took its time just before that lock: a thread preempted in between
    // (a busy machine) would make the timeline go back by a fraction of a millisecond. It never does:
    // an item is stamped no earlier than the one before it.
    if (item.t > this.lastT) this.lastT = item.t;
    else item.t = this.lastT;
    if (item.seq > this.storedSeq) this.hooks.onItem(item, bytes, chunk);
    else this.hooks.onStored(item, chunk);
  }

  private onLine(code: StreamCode, t: number, capped: CappedLine): void {
    const { config } = this;
    const line = capped.bytes;
    const seq = ++this.seq;
    if (code === STDERR) {
      let text = decodeUtf8(line).text;
      if (text.endsWith('\r')) text = text.slice(0, -1);
      this.push({ seq, t, dir: 'stderr', raw: text }, line.length);
      return;
    }
    const dir = code === C2A ? 'c2a' : 'a2c';
    const over = config.maxFrameBytes !== null && line.length > config.maxFrameBytes;
    let chunk = -1;
    let frame: Frame;
    if (capped.size > line.length) {
      // Past the recorder's line cap: only the first bytes were kept, so the frame cannot be parsed.
      // Only what is stored of it is decoded, and nothing tries to parse tens of MB only to fail.
      const stored = over ? line.subarray(0, config.maxFrameBytes!) : line;
      const { text, valid } = decodeUtf8(stored);
      frame = { seq, t, dir, raw: text, size: capped.size, kind: 'invalid', truncated: true, parseError: `frame of ${capped.size} bytes is larger than the recorder's cap (${LINE_CAP} bytes); stored cut` };
      if (!valid) frame.rawBase64 = stored.toString('base64');
    } else {
      const { text, valid } = decodeUtf8(line);
      // The commonest frame, a text chunk, is recognised without JSON.parse (the same frame either way).
      const recognised = valid ? chunkFrameOf(seq, t, dir, text, line.length, this.chunkKind) : null;
      if (recognised) chunk = this.chunkKind.update;
      frame = recognised ?? frameFromDecoded(seq, t, dir, line, text, valid);
      if (over) {
        const cut = line.subarray(0, config.maxFrameBytes!);
        const { text, valid } = decodeUtf8(cut);
        frame.raw = text;
        frame.truncated = true;
        if (!valid) frame.rawBase64 = cut.toString('base64');
        else delete frame.rawBase64;
      }
    }
    if (config.redact) frame = redactFrame(frame);
    this.correlator.observe(frame);
    if (frame.kind === 'request' || frame.kind === 'result') {
      const info = peerInfoFromFrame(frame);
      if (Object.keys(info).length) this.hooks.onPeer(info);
    }
    // A recognised chunk stays one only while it is the frame recognised (not cut or redacted since).
    if (chunk >= 0 && (frame.truncated || config.redact)) chunk = -1;
    this.push(frame, Math.min(line.length, config.maxFrameBytes ?? Infinity) + 200, chunk >= 0 ? chunk : undefined);
  }
}
