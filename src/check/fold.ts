/**
 * The fold `acp-inspect check` runs over a recording: every item through one checker, each finding
 * handed on as it is made (a frame's at that frame, then the end-of-recording ones, sorted). Shared
 * by the one-thread path (run.ts) and the checking worker (check-worker.ts), so both report the same;
 * where the findings go (a list, or a spool that does not hold them) is the caller's.
 */
import type { Item } from '../wire/frame.js';
import { createChecker, type Checker, type Finding } from './checker.js';
import { spawnFailure } from '../wire/spawn-failure.js';

export interface CheckRun {
  findings: Finding[];
  items: number;
  frames: number;
  /** Set when the recording's agent never started (its spawn-error, in words): there was no session to check. */
  notStarted?: string;
}

export class CheckFold {
  private readonly c: Checker;
  private n = 0;
  private notStarted: string | undefined;

  constructor(ignore: string[], private readonly out: (f: Finding) => void) {
    this.c = createChecker({ ignore });
  }

  /** `chunk`: as Checker.step's. */
  step(item: Item, chunk?: number): void {
    this.n++;
    if (item.dir === 'event' && item.type === 'spawn-error') this.notStarted ??= `${JSON.stringify(item.data.command ?? '')}: ${spawnFailure(item.data)}`;
    const f = this.c.step(item, chunk);
    for (let i = 0; i < f.length; i++) this.out(f[i]!);
  }

  /** Hands on the end-of-recording findings; how many items and frames were checked. */
  finish(): { items: number; frames: number; notStarted?: string } {
    for (const f of this.c.end()) this.out(f);
    return { items: this.n, frames: this.c.state.frames, ...(this.notStarted !== undefined && { notStarted: this.notStarted }) };
  }
}
