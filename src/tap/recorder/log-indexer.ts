/**
 * One indexer of a capture log: the intake reads its records in order (intake.ts), the line indexer
 * turns them into items (lines.ts), the live checker folds each in (live-checker.ts), and the end of
 * the log (the tap's finish record, or the last record of a tap that died) ends the items and the
 * checker. Where the items go is its host's: the tap's recorder (recorder/index.ts) hands them to its
 * store writer on the same thread; the index worker (index-worker.ts) packs them into batches for the
 * thread that writes, as the tap's helper for a backlog and in a detached indexer (split-recorder.ts).
 * Nothing here writes SQLite or knows about threads.
 */
import type { FromRecorder, RecorderConfig, ToRecorder } from '../messages.js';
import type { StoredFinding } from '../../store/store.js';
import type { Item } from '../../wire/frame.js';
import { LineIndexer } from './lines.js';
import { LiveCheck, indexerState, type SavedState } from './live-checker.js';
import { Intake, type IntakeHooks } from './intake.js';

/** What an indexer asks of its host. */
export interface IndexerHost extends Pick<IntakeHooks, 'recordDone' | 'writerBlocked' | 'indexing' | 'delegate' | 'warnOnce' | 'flowing'> {
  /** An item made (about `bytes` in memory until written), with the checker's findings on it. */
  onItem(item: Item, bytes: number, findings: StoredFinding[]): void;
  /** A request or result named a peer. */
  onPeer(info: Record<string, unknown>): void;
  /** The recording is incomplete, and why (the first reason is kept). */
  onIncomplete(reason: string): void;
  /** What the live checker says (a trace's or the checker's info). */
  send(m: FromRecorder): void;
  /**
   * The tap's finish record was read. True: the host leaves it (a helper: the tap's recorder takes it),
   * and nothing more is taken. Absent or false: the indexer ends the log with it (`ended`).
   */
  leaveFinish?(): boolean;
  /**
   * The log is at its end: `t` is the exit item's time (or, `interrupted`, the last frame's), `last` the
   * checker's last findings; `trace()` ends the live trace (null without one). Done once this resolves.
   */
  ended(code: number | null, signal: string | null, t: number, interrupted: boolean, last: StoredFinding[], trace: () => Promise<unknown> | null): Promise<void>;
  /** A part failed unexpectedly (a bug). */
  fail(e: unknown): void;
  /** The recording the live trace's spans belong to. */
  recordingId(): number | null;
}

export class LogIndexer {
  private lines: LineIndexer;
  private live: LiveCheck;
  private intake: Intake | null = null;
  /** Set once the end of the log is taken: nothing more is. */
  finishing = false;
  /** Set once the finish record is left to another (see IndexerHost.leaveFinish): nothing more is taken. */
  private left = false;
  /** Set once the live checker is loaded: until then records wait in the log. */
  private ready = false;
  private checkerLoading = false;
  private readonly saved: SavedState | null;

  /** `from`: where indexing resumes (a resumed indexer's, or a helper's job's), without its recording. */
  constructor(private readonly config: RecorderConfig, private readonly host: IndexerHost, from?: { state: string | null; storedSeq: number } | null) {
    this.saved = from?.state ? JSON.parse(from.state) as SavedState : null;
    this.live = new LiveCheck(config, host.send);
    this.lines = this.newLines();
    if (from) this.lines.restore(this.saved, from.storedSeq);
  }

  private newLines(): LineIndexer {
    const { host } = this;
    return new LineIndexer(this.config, {
      onItem: (item, bytes, chunk) => host.onItem(item, bytes, this.live.step(item, chunk)),
      // Its findings were stored with it.
      onStored: (item, chunk) => this.live.step(item, chunk),
      onPeer: (info) => host.onPeer(info),
      onIncomplete: (reason) => host.onIncomplete(reason),
    });
  }

  /**
   * Opens the log at `start`; `committed`: how far a live tap's log holds whole records (null: a
   * finished log, read to its end). False when the log is gone (its recording was deleted).
   */
  open(start: number, committed: (() => number) | null): boolean {
    const { host } = this;
    try {
      this.intake = new Intake(this.config.capture.path, start, committed, {
        receive: (m) => this.receive(m),
        recordDone: (offset) => host.recordDone(offset),
        finishing: () => this.finishing,
        ready: () => this.ready,
        startChecker: () => this.startChecker(),
        writerBlocked: () => host.writerBlocked(),
        warnOnce: (msg) => host.warnOnce(msg),
        indexing: host.indexing,
        delegate: host.delegate,
        flowing: host.flowing,
      });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      return false;
    }
  }

  /** Takes records until the end of the log, or stop(). An end without a finish record is the host's to end (endUnfinished). */
  run(): Promise<void> {
    return this.intake!.run();
  }

  /** Where the log is indexed up to, and how much of it waits. */
  get offset(): number { return this.intake?.offset ?? 0; }
  get behind(): number { return this.intake?.behind ?? 0; }
  get bursting(): boolean { return this.intake?.bursting ?? false; }
  get lastTraffic(): number { return this.intake?.lastTraffic ?? 0; }
  /** The items' lines in progress are small enough to be handed on (see LineIndexer.small). */
  get small(): boolean { return this.lines.small; }
  get lastSeq(): number { return this.lines.lastSeq; }
  get opened(): boolean { return this.intake !== null; }

  /** The state to go on from here (null: not worth saving now); `whole`, see LineIndexer.snapshot. */
  state(whole = false): string | null {
    return indexerState(this.lines, this.live, whole);
  }

  /** Takes nothing more (the log is another's now, or gone). */
  stop(): void { this.intake?.stop(); }
  /** The session is over: see Intake.sessionOver. */
  sessionOver(): void { this.intake?.sessionOver(); }
  lookNow(): void { this.intake?.lookNow(); }

  /**
   * Goes on from a state another indexer of this log handed back (a helper's), the items up to
   * `lastSeq` made: the line indexer and the checker are made again from it, as a resumed indexer's are.
   */
  async adopt(state: string, lastSeq: number): Promise<void> {
    const saved = JSON.parse(state) as SavedState;
    const lines = this.newLines();
    lines.restore(saved, lastSeq);
    const checker = new LiveCheck(this.config, this.host.send);
    await checker.load(saved.checker);
    this.lines = lines;
    this.live = checker;
  }

  /** The log ended without a finish record (its tap died): ends it interrupted, unless it was ended. */
  async endUnfinished(): Promise<void> {
    if (this.finishing) return;
    this.finishing = true;
    await this.end(null, null, this.lines.lastT, true);
  }

  private receive(m: ToRecorder): void {
    if (this.finishing || this.left) return;
    if (!Array.isArray(m) && 'finish' in m) {
      if (this.host.leaveFinish?.()) {
        this.left = true;
        this.intake!.stop();
        return;
      }
      this.finishing = true;
      const { code, signal, t } = m.finish;
      this.end(code, signal, t, false).catch((e) => this.host.fail(e));
      return;
    }
    try {
      this.lines.handle(m);
    } catch (e) {
      this.host.warnOnce(`recorder error: ${(e as Error).message}; forwarding continues`);
    }
  }

  /**
   * Loads the live checker (its modules and schemas cost a few hundred ms of CPU) once the log is
   * quiet or the session is over (the intake says when), so it does not compete with the agent's
   * start-up; records wait in the log meanwhile, so its findings see every item in order. A resumed
   * indexer's checker goes on from the state saved with the line indexer's (from the start when none was saved).
   */
  private startChecker(): void {
    if (this.checkerLoading) return;
    this.checkerLoading = true;
    this.live.load(this.saved?.checker).then(() => {
      this.ready = true;
      // Not sessionOver(): a burst arriving later would then be indexed as it arrives, competing
      // with the agent and the client for the CPU.
      this.intake?.lookNow();
    }).catch((e) => this.host.fail(e));
  }

  /** Ends the items (the exit item, or for a tap that died its last frame's time) and the checker. */
  private async end(code: number | null, signal: string | null, exitT: number, interrupted: boolean): Promise<void> {
    const { lines, live } = this;
    const t = !interrupted ? lines.end(code, signal, exitT) : this.config.handedOn ? lines.endCut() : lines.endInterrupted();
    const last = live.end();
    await this.host.ended(code, signal, t, interrupted, last, () => live.finish(t, this.host.recordingId()));
  }
}
