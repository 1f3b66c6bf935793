/**
 * The live checker (--check, on by default) and the live OpenTelemetry trace (--otlp) that rides
 * on its model: each item is folded in as it is indexed, and the findings go to the store with it.
 * Both are extras: if either fails, it is dropped and recording goes on without it.
 */
import type { FromRecorder, RecorderConfig } from '../messages.js';
import type { Item } from '../../wire/frame.js';
import type { StoredFinding } from '../../store/store.js';
import type { LiveTrace } from '../../otel/live.js';
import type { CheckerSnapshot } from '../../check/checker.js';
import type { PrebuiltFactory } from '../../spec/schema.js';
import type { IndexState, LineIndexer } from './lines.js';

interface Checker {
  /** `chunk`: see Checker.step in check/checker.ts (the update kind of a recognised text chunk frame). */
  step(item: Item, chunk?: number): StoredFinding[];
  end(): StoredFinding[];
  snapshot(): CheckerSnapshot;
}

/**
 * The checker as one bundled file where the build made it (scripts/bundle-check.js), else as its
 * modules: it loads about 40 ms sooner and takes 9 MiB less, in a tap and in every indexer.
 */
const CHECK_BUNDLE = '../../check/index.bundle.js';
/**
 * The schema validators made at build time (see check-run/validators.ts): loading them takes less
 * time and memory than compiling the schemas of the first frames (the session/update schema alone
 * took 100-150 ms of the checker's start).
 */
const VALIDATORS = '../../spec/schema-validators.js';

/** Loaded only for --otlp; a variable keeps the OpenTelemetry packages out of the tap otherwise. */
const OTEL_MODULE = '../../otel/live.js';

const NONE: StoredFinding[] = [];

export class LiveCheck {
  private checker: Checker | null = null;
  /** Set once loading the checker is over (whether there is one then or not). */
  private loaded = false;
  /** Live OpenTelemetry export (--otlp): spans built here, off the forwarding path. */
  private trace: LiveTrace | null = null;

  constructor(private readonly config: RecorderConfig, private readonly send: (m: FromRecorder) => void) {}

  /**
   * Loads the checker, then the trace (which shares its model). `from`: where a resumed indexer's
   * checker goes on from (see snapshot); null when the checker that saved it had been dropped.
   */
  async load(from?: CheckerSnapshot | null): Promise<void> {
    await this.loadChecker(from);
    this.loaded = true;
    await this.loadTrace();
  }

  private async loadChecker(from?: CheckerSnapshot | null): Promise<void> {
    if (!this.config.check || from === null) return;
    try {
      const mod = (await (import(CHECK_BUNDLE) as Promise<unknown>).catch(() => import('../../check/index.js'))) as Partial<Pick<typeof import('../../check/index.js'), 'installPrebuiltValidators'>> & { createChecker?: (o?: { from?: CheckerSnapshot }) => Checker };
      try {
        const prebuilt = (await import(VALIDATORS)) as { default: PrebuiltFactory };
        mod.installPrebuiltValidators?.(prebuilt.default);
      } catch { /* a build without them: the schemas are compiled on first use */ }
      if (typeof mod.createChecker === 'function') this.checker = mod.createChecker(from ? { from } : undefined);
    } catch {
      this.checker = null; // checking is an extra; recording goes on without it
    }
  }

  /** Starts the live trace; the session goes on without it if that fails. */
  private async loadTrace(): Promise<void> {
    const { config } = this;
    if (!config.otlp) return;
    try {
      const mod = (await import(OTEL_MODULE)) as typeof import('../../otel/live.js');
      this.trace = mod.startLiveTrace({
        target: config.otlp.target,
        content: config.otlp.content,
        startedAt: config.startedAt,
        name: config.name,
        command: config.command,
        state: (this.checker as { state?: import('../../check/model.js').ModelState } | null)?.state,
        warn: (msg) => this.send({ info: msg }),
      });
    } catch (e) {
      this.send({ info: `acp-inspect: OpenTelemetry export not started: ${(e as Error).message}` });
    }
  }

  /** Folds one item in (`chunk`: see LineHooks.onItem); returns its findings (and hands both to the trace). */
  step(item: Item, chunk?: number): StoredFinding[] {
    let findings = NONE;
    if (this.checker) {
      try {
        findings = this.checker.step(item, chunk);
      } catch {
        this.checker = null;
      }
    }
    if (this.trace) {
      try {
        this.trace.step(item, findings.length > 0 ? findings.slice() : undefined);
      } catch {
        this.trace = null; // the trace is an extra; recording goes on without it
      }
    }
    return findings;
  }

  /**
   * The checker's state between two items, for an indexer that goes on from here: null when there is
   * no checker (not asked for, or dropped), undefined while it is not loaded yet (no item was made:
   * the next indexer starts one from the beginning).
   */
  snapshot(): CheckerSnapshot | null | undefined {
    if (!this.loaded) return undefined;
    return this.checker ? this.checker.snapshot() : null;
  }

  /** The checker's last findings (what the end of the session leaves open); the trace gets them too. */
  end(): StoredFinding[] {
    if (!this.checker) return NONE;
    let findings = NONE;
    try { findings = this.checker.end(); } catch { /* ignore */ }
    try { this.trace?.addFindings(findings); } catch { /* ignore */ }
    return findings;
  }

  /** Sends the trace's last spans (bounded: see startLiveTrace); null without a trace. */
  finish(t: number, recordingId: number | null): Promise<unknown> | null {
    return this.trace ? this.trace.finish(t, recordingId).catch(() => undefined) : null;
  }
}

/**
 * What is saved with a batch for whoever goes on from there: the line indexer's state and the
 * checker's at the same point (between two records), so that a takeover finds what one indexer
 * would have found. Not with every batch (see STATE_EVERY_BYTES in batch-bounds.ts).
 */
export interface SavedState extends IndexState {
  checker?: CheckerSnapshot | null;
}

/**
 * The indexer's state now, as saved (JSON of a SavedState): null while the lines in progress are too
 * large to save (see LineIndexer.snapshot), unless `whole` (a state handed to another thread).
 */
export function indexerState(lines: LineIndexer, live: LiveCheck, whole = false): string | null {
  const state = lines.snapshot(whole);
  return state && JSON.stringify({ ...state, checker: live.snapshot() } satisfies SavedState);
}
